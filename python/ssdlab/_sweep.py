"""Sweeps: a grid of points, resolved and keyed here, run in batches on a Dask
cluster (a ``LocalCluster`` unless told otherwise), each batch's figures
written to the results store as it comes back, so that an interrupted sweep
resumes with only the missing points."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
from contextlib import contextmanager
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import pandas as pd

from . import _native
from ._native import SsdlabError
from ._api import flatten_figures, job_source, overrides_of, seed_of
from ._store import MemoryStore, Store

#: Keys a point may set directly (the rest: ``device.*``, ``host.*``, ``job.*``).
PARAMS = ("job", "job_name", "device", "gc", "host", "scheduler", "occupancy", "precondition", "seed")

#: A study point's own keys (``ssdlab.studies.<name>.grid``): its
#: configuration, already resolved, and its key.
STUDY_POINT = ("study_config", "key")

Grid = Union[Mapping[str, Sequence[Any]], Sequence[Mapping[str, Any]]]


def expand(base: Optional[Mapping[str, Any]] = None, grid: Optional[Grid] = None) -> List[Dict[str, Any]]:
    """The points of a sweep, each a dict of settings over ``base``.

    A setting is one of ``job`` (a path or a job file's text),
    ``job_name``, ``device``, ``gc``, ``host``, ``scheduler``,
    ``occupancy`` (percent), ``precondition``, ``seed``; ``device.<key>`` /
    ``host.<key>`` (a preset or host key, dotted); ``job.<option>`` (an fio
    option set in every job section); or ``labels`` (a dict of columns for
    the results). Nothing is run or resolved here.

    Parameters
    ----------
    base : mapping, optional
        Settings every point shares.
    grid : mapping of setting to values, or list of mappings, optional
        A mapping of setting to values (a list, a range, an array or a
        Series; their Cartesian product, the first setting varying
        slowest), or a list of settings, one per point. None: one point,
        ``base``.

    Returns
    -------
    list of dict
        One dict per point: its settings over ``base`` (NumPy scalars as
        Python numbers) and ``labels``: the ``labels`` given, and the
        settings the grid varies (but ``job``) that they do not name.

    Raises
    ------
    ValueError
        On an unknown setting, or a grid value that is not a list (a
        string, a mapping, a scalar) or is a set (whose order is not fixed).
    """
    base = dict(base or {})
    if grid is None:
        combos: List[Dict[str, Any]] = [{}]
    elif isinstance(grid, Mapping):
        keys = list(grid)
        values = [_values(k, grid[k]) for k in keys]
        combos = [dict(zip(keys, vs)) for vs in itertools.product(*values)]
    else:
        combos = [dict(p) for p in grid]
    points = []
    for combo in combos:
        point = {k: _plain(v) for k, v in {**base, **combo}.items()}
        for k in point:
            _check_setting(k)
        labels = dict(point.pop("labels", {}) or {})
        for k, v in combo.items():
            if k not in ("labels", "job", *STUDY_POINT):
                labels.setdefault(k, v)
        point["labels"] = labels
        points.append(point)
    return points


def _values(key: str, given: Any) -> List[Any]:
    """A grid setting's values: any iterable but a string or a mapping (a
    list, a range, a NumPy array, a pandas Series)."""
    if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Iterable):
        raise ValueError(f"grid: '{key}' takes a list of values")
    if isinstance(given, (set, frozenset)):
        # A set's order changes from one Python process to the next, and
        # with it the rows, the batches and the shards' names.
        raise ValueError(f"grid: '{key}' is a set, whose order is not fixed; give a list")
    return [_plain(v) for v in given]


def _plain(v: Any) -> Any:
    """A NumPy scalar as the Python number it holds (JSON takes only those)."""
    return v.item() if hasattr(v, "item") and callable(v.item) else v


def _read_job(path: str) -> str:
    """A job file's text, read at most to the CLI's limit (a path such as
    /dev/zero is not read until memory runs out); errors name the file."""
    most = _native.MAX_INPUT_BYTES
    with open(path, "rb") as f:
        data = f.read(most + 1)
    if len(data) > most:
        raise SsdlabError(f"{path}: larger than {most >> 20} MiB, not a job file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SsdlabError(f"{path}: not UTF-8 text: {e}") from None


def _refuse_include(text: str, path: Optional[str]) -> None:
    """A swept job file must hold all its text: the point sends the text,
    not the file, so an ``include`` would be looked up on the worker and
    left out of the point's key (an edit of the included file would not
    run again)."""
    for n, line in enumerate(text.splitlines(), 1):
        code = re.split(r"[;#]", line, maxsplit=1)[0].strip()
        if code == "include" or code.startswith(("include ", "include\t")):
            where = f"{path}:{n}" if path else f"job text, line {n}"
            raise SsdlabError(f"{where}: include: a swept job file must hold its own text (inline it)")


def _check_setting(k: str) -> None:
    if k in PARAMS or k in STUDY_POINT or k == "labels":
        return
    prefix, _, rest = k.partition(".")
    if prefix in ("device", "host", "job") and rest:
        return
    raise ValueError(
        f"sweep: unknown setting '{k}' (known: {', '.join(PARAMS)}, device.<key>, "
        "host.<key>, job.<option>, labels)"
    )


def set_job_options(text: str, options: Mapping[str, Any]) -> str:
    """The job file with ``option=value`` added at the end of every section,
    where it overrides what the section (or ``[global]``) said."""
    if not options:
        return text
    extra = [f"{k}={_fio_value(v)}" for k, v in options.items()]
    out: List[str] = []
    in_section = False
    for line in text.splitlines():
        if line.strip().startswith("[") and in_section:
            out.extend(extra)
        in_section = in_section or line.strip().startswith("[")
        out.append(line)
    if in_section:
        out.extend(extra)
    return "\n".join(out) + "\n"


def _fio_value(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def native_params(point: Mapping[str, Any]) -> Dict[str, Any]:
    """A point's settings as the native module's parameters."""
    params: Dict[str, Any] = {"device_overrides": {}, "host_overrides": {}}
    job_options: Dict[str, Any] = {}
    for k, v in point.items():
        prefix, _, rest = k.partition(".")
        if k == "labels":
            continue
        if rest and prefix == "device":
            params["device_overrides"][rest] = v
        elif rest and prefix == "host":
            params["host_overrides"][rest] = v
        elif rest and prefix == "job":
            job_options[rest] = v
        elif k == "job":
            path, text = job_source(v)
            if path is not None:
                text = _read_job(path)
                params.setdefault("job_name", path)
            assert text is not None  # job_source gives text when no path
            _refuse_include(text, path)
            params["job"] = text
        elif k == "occupancy":
            params[k] = float(v)
            if not math.isfinite(params[k]):
                raise SsdlabError(f"occupancy: {v} is not a number in [0, 100]")
        elif k == "seed":
            params[k] = seed_of(v)
        elif k in ("host",) and v is not None:
            params[k] = os.fspath(v)
        else:
            params[k] = v
    if "job" not in params:
        raise ValueError("sweep: every point needs a job (a path or a job file's text)")
    params["job"] = set_job_options(params["job"], job_options)
    for prefix in ("device", "host"):
        overrides_of(prefix, params[f"{prefix}_overrides"])
    return params


def resolve(point: Mapping[str, Any]) -> Tuple[str, str]:
    """A point's key and configuration (canonical JSON); raises
    ``SsdlabError`` on a bad setting, naming it."""
    return _native.resolve(json.dumps(native_params(point)))


def _keyed(i: int, point: Mapping[str, Any]) -> Tuple[str, str, str]:
    """A point's key, configuration and labels; an error names the point
    (its place in the grid and its labels)."""
    labels = json.dumps(point["labels"], sort_keys=True, default=str)
    if "study_config" in point:
        return point["key"], point["study_config"], labels
    try:
        key, config = resolve(point)
    except SsdlabError as e:
        raise SsdlabError(f"point {i} {labels}: {e}") from None
    return key, config, labels


def run_batch(configs: List[str]) -> List[str]:
    """Runs points on a worker: configurations in, figures (JSON) out."""
    from ssdlab import _native as native  # imported on the worker

    return native.run_configs(json.dumps({"configs": configs}))


#: What to tell a user whose environment lacks the sweep's dependencies.
DASK_EXTRA = "ssdlab.sweep runs on Dask, which is not installed: pip install 'ssdlab[dask]'"


def require_dask() -> None:
    """Raise ImportError, saying how to install the extra, unless the
    sweep's dependencies (distributed, tqdm) can be imported."""
    try:
        import distributed  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as e:
        raise ImportError(DASK_EXTRA) from e


@contextmanager
def dask_client(client: Any, workers: Optional[int]) -> Iterator[Any]:
    """The client to run on: the one given, one connected to an address, or
    a new ``LocalCluster`` of ``workers`` single-threaded processes (closed
    afterwards)."""
    if client is not None and not isinstance(client, str):
        yield client
        return
    import logging

    from distributed import Client, LocalCluster

    if isinstance(client, str):
        c = Client(client)
        try:
            yield c
        finally:
            c.close()
        return
    n = workers or os.cpu_count() or 1
    with LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster, Client(cluster) as c:
        yield c


def execute(
    items: Sequence[Tuple[str, str, str]],
    store: Union[Store, MemoryStore],
    client: Any = None,
    workers: Optional[int] = None,
    batch_size: Optional[int] = None,
    progress: bool = True,
    on_done: Optional[Callable[[str, str], None]] = None,
) -> Tuple[Dict[str, str], int]:
    """Figures (JSON) by key for ``(key, config, labels)`` items: the stored
    ones read, the missing ones run on Dask in batches and stored as each
    batch returns. Returns them and how many were computed."""
    unique: Dict[str, Tuple[str, str]] = {}
    for key, config, labels in items:
        unique.setdefault(key, (config, labels))
    found = store.figures(unique)
    for key, figures in found.items():
        if on_done:
            on_done(key, figures)
    missing = [k for k in unique if k not in found]
    if not missing:
        return found, 0
    with dask_client(client, workers) as c:
        slots = sum(c.nthreads().values()) or 1
        size = batch_size or max(1, math.ceil(len(missing) / (slots * 4)))
        # Dealt round-robin: the points come longest first (the CLI sorts
        # them by its cost model), so consecutive slices would put the
        # longest together in the first batch and leave one worker with it.
        count = math.ceil(len(missing) / size)
        batches = [missing[i::count] for i in range(count)]
        futures = {
            c.submit(run_batch, [unique[k][0] for k in b], pure=False): b for b in batches
        }
        from distributed import as_completed

        bar = _bar(len(missing), progress)
        try:
            for fut in as_completed(futures):
                batch = futures[fut]
                figures = fut.result()
                store.write(
                    [
                        {"key": k, "config": unique[k][0], "figures": f, "labels": unique[k][1]}
                        for k, f in zip(batch, figures)
                    ]
                )
                for k, f in zip(batch, figures):
                    found[k] = f
                    if on_done:
                        on_done(k, f)
                bar.update(len(batch))
        finally:
            bar.close()
    return found, len(missing)


def _bar(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="point", desc="ssdlab sweep", disable=not enabled)


def sweep(
    base: Optional[Mapping[str, Any]] = None,
    grid: Optional[Grid] = None,
    *,
    client: Any = None,
    store: Union[str, "os.PathLike[str]", Store, None] = None,
    workers: Optional[int] = None,
    batch_size: Optional[int] = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Run every point of ``expand(base, grid)`` on a Dask cluster.

    Needs the ``dask`` extra (``pip install 'ssdlab[dask]'``); without it
    the call raises ImportError saying so.

    Parameters
    ----------
    base : mapping, optional
        Settings every point shares (see :func:`expand`).
    grid : mapping of setting to values, or list of settings, optional
        What varies (see :func:`expand`).
    client : distributed.Client or str, optional
        A client, or a scheduler address (``"tcp://host:8786"``); None
        starts a ``LocalCluster`` of ``workers`` single-threaded processes.
    store : str, os.PathLike or Store, optional
        A results store (a directory): points already there are not run
        again, and every point computed is written there as its batch
        returns, so an interrupted sweep resumes. None keeps the results in
        memory for this call only; nothing is written to disk.
    workers : int, optional
        Processes of the ``LocalCluster`` (default: the CPU count).
    batch_size : int, optional
        Points per task sent to a worker (default: about four batches per
        worker thread).
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per point, in the grid's order: the point's labels (the
        settings the grid varies, and ``labels``), ``key``, and its figures
        (``bw_mbs``, ``iops``, ``waf``, ``gc_invocations``,
        ``gc_pages_moved``, ``erases``, ``sim_seconds``, and
        ``"<job>.<figure>"`` per job). ``df.attrs["computed"]`` and
        ``df.attrs["stored"]`` say how many points ran and how many came
        from the store.

    Raises
    ------
    SsdlabError
        When a point's settings are bad (before anything runs).
    ImportError
        When the ``dask`` extra is not installed.
    """
    for name, value in (("workers", workers), ("batch_size", batch_size)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ValueError(f"{name}: {value!r} is not a positive integer")
    require_dask()
    points = expand(base, grid)
    keyed = [_keyed(i, p) for i, p in enumerate(points)]
    st: Union[Store, MemoryStore]
    if store is None:
        st = MemoryStore()
    elif isinstance(store, Store):
        st = store
    else:
        st = Store(store)
    found, computed = execute(keyed, st, client, workers, batch_size, progress)
    rows = []
    for p, (key, _, _) in zip(points, keyed):
        rows.append({**p["labels"], "key": key, **_columns(p, json.loads(found[key]))})
    df: pd.DataFrame = pd.DataFrame(rows)
    df.attrs["computed"] = computed
    df.attrs["stored"] = len({k for k, _, _ in keyed}) - computed
    return df


def _columns(point: Mapping[str, Any], result: Any) -> Dict[str, Any]:
    """A point's result as columns: a K2 point's figures flattened; a study
    point's row as its fields, or its rows (a list) in ``rows``."""
    if "study_config" not in point:
        return flatten_figures(result)
    return dict(result) if isinstance(result, dict) else {"rows": result}
