"""One simulation at a time: ``run`` (an fio job file) and ``replay`` (a block
trace), the catalogue of presets and schedulers, and the ``Result`` they give
(``rtflash_run`` is in _rtflash.py)."""

from __future__ import annotations

import json
import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import pandas as pd

from . import _native
from ._native import SsdlabError

JobArg = Union[str, "os.PathLike[str]"]

#: Per-job figures, in the order of ``Result.jobs``' columns.
JOB_FIGURES: Tuple[str, ...] = (
    "bw_mbs",
    "read_bw_mbs",
    "write_bw_mbs",
    "iops",
    "ios",
    "clat_mean_us",
    "clat_p50_us",
    "clat_p99_us",
    "clat_p999_us",
    "clat_max_us",
    "read_clat_p999_us",
    "write_clat_p999_us",
)

#: Device-level figures of a point.
DEVICE_FIGURES: Tuple[str, ...] = (
    "bw_mbs",
    "iops",
    "waf",
    "gc_invocations",
    "gc_pages_moved",
    "erases",
    "sim_seconds",
)


@dataclass
class Result:
    """What one run reported. ``run`` and ``replay`` return a ``Result``;
    ``rtflash_run`` returns an ``RtflashResult``, a ``Result`` of the same
    four attributes (see its documentation for what they hold there).

    Attributes
    ----------
    report : dict
        The run's JSON report: fio's (``--output-format json``) with
        ssdlab's extras (GC, write amplification, host counters) under
        ``"ssdlab"``.
    text : str
        fio's normal text report.
    figures : dict
        The device figures (``bw_mbs``, ``iops``, ``waf``,
        ``gc_invocations``, ``gc_pages_moved``, ``erases``,
        ``sim_seconds``), ``per_second`` (the totals of each simulated
        second, counted from the run's start), ``gauges`` (the scheduler's
        state per second, such as k2-adaptive's ``k2_bound``) and ``jobs``
        (the per-job figures, a list of dicts).
    jobs : pandas.DataFrame
        One row per job (column ``job``, its name) and its figures
        (``JOB_FIGURES``): bandwidth in MB/s (10^6 bytes) in all and per
        direction, IOPS, I/Os, completion latency (reads and writes
        together) mean, p50, p99, p99.9 and max in microseconds, and p99.9
        per direction. Built from ``figures``, so ``==`` compares
        ``report``, ``text`` and ``figures`` only (fio's report holds the
        wall-clock time of the run: compare two runs' ``figures``).
    """

    report: Dict[str, Any]
    text: str
    figures: Dict[str, Any]
    jobs: pd.DataFrame = field(repr=False, compare=False)

    @classmethod
    def _of(cls, out: Tuple[str, str, str]) -> "Result":
        report_json, text, figures_json = out
        figures = json.loads(figures_json)
        jobs = pd.DataFrame(
            [{"job": j["name"], **{k: j[k] for k in JOB_FIGURES}} for j in figures["jobs"]],
            columns=["job", *JOB_FIGURES],
        )
        return cls(report=json.loads(report_json), text=text, figures=figures, jobs=jobs)

    def __repr__(self) -> str:
        f = self.figures
        return (
            f"<ssdlab.Result {len(self.jobs)} job(s), {f['bw_mbs']:.1f} MB/s, "
            f"WAF {f['waf']:.2f}, {f['sim_seconds']:.3f} simulated s>"
        )


def sim_params(
    *,
    device: str = "consumer-tlc-250g",
    scheduler: str = "none",
    occupancy: float = 0.0,
    precondition: str = "auto",
    seed: int = 1,
    host: Optional[JobArg] = None,
    gc: Optional[str] = None,
    device_overrides: Optional[Mapping[str, Any]] = None,
    host_overrides: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """The device, host and run settings as the native module takes them."""
    occupancy = float(occupancy)
    if not math.isfinite(occupancy):
        raise SsdlabError(f"occupancy: {occupancy} is not a number in [0, 100]")
    return {
        "device": str(device),
        "scheduler": scheduler,
        "occupancy": occupancy,
        "precondition": precondition,
        "seed": seed_of(seed),
        "host": None if host is None else os.fspath(host),
        "gc": gc,
        "device_overrides": overrides_of("device", device_overrides),
        "host_overrides": overrides_of("host", host_overrides),
    }


def seed_of(seed: Any) -> int:
    """A seed: a whole number in [0, 2^64) (2.7 is not rounded to 2)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) < 2**64:
        raise SsdlabError(f"seed: {seed!r} is not a whole number in [0, 2^64)")
    return int(seed)


def overrides_of(prefix: str, given: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """Preset or host keys and their values; a number that is not finite
    is an error naming its key (JSON cannot carry it)."""
    out = dict(given or {})
    for k, v in out.items():
        if isinstance(v, float) and not math.isfinite(v):
            raise SsdlabError(f"{prefix}.{k}: {v} is not a finite number")
    return out


def job_source(job: JobArg) -> Tuple[Optional[str], Optional[str]]:
    """A job given as a path or as text: (path, None) or (None, text).

    A path-like object is a path; a string with a newline is a job file's
    text; any other string is a path."""
    if isinstance(job, os.PathLike):
        return os.fspath(job), None
    if isinstance(job, str):
        return (None, job) if "\n" in job else (job, None)
    raise TypeError(f"job: a path or a job file's text, not {type(job).__name__}")


def run(
    job: JobArg,
    *,
    device: str = "consumer-tlc-250g",
    scheduler: str = "none",
    occupancy: float = 0.0,
    precondition: str = "auto",
    seed: int = 1,
    host: Optional[JobArg] = None,
    gc: Optional[str] = None,
    device_overrides: Optional[Mapping[str, Any]] = None,
    host_overrides: Optional[Mapping[str, Any]] = None,
    ignore_unknown: bool = False,
) -> Result:
    """Run an fio job file on the simulated SSD, as ``ssdlab run`` does.

    Parameters
    ----------
    job : str or os.PathLike
        The job file: a path, or the file's text (a string with a newline).
    device : str, default "consumer-tlc-250g"
        A preset name (``ssdlab.presets()``) or a preset TOML file.
    scheduler : str, default "none"
        An I/O scheduler spec such as ``"k2:max_inflight=8"``
        (``ssdlab.schedulers()``).
    occupancy : float, default 0.0
        Percent of the logical space holding data before the run.
    precondition : str, default "auto"
        How that data is laid down: ``auto``, ``fill``, ``steady``,
        ``rested``, ``aged[:N]``, ``pts`` or ``random``.
    seed : int, default 1
        The run's seed, a whole number in [0, 2^64).
    host : str or os.PathLike, optional
        A host TOML file, or ``"k2-study"`` (the K2 study's host); default:
        the preset's host.
    gc : str, optional
        A GC scheme: ``pbgc``, ``bbgc`` or ``on-demand``.
    device_overrides, host_overrides : mapping, optional
        Dotted preset or host keys and their values, for example
        ``{"gc.free_block_threshold": 0.05}``.
    ignore_unknown : bool, default False
        Skip fio options ssdlab does not know instead of refusing the file.

    Returns
    -------
    Result
        fio's report (JSON as a dict, and text), the device figures and the
        per-job figures as a DataFrame.

    Raises
    ------
    SsdlabError
        On bad input, with the CLI's message (``file:line: field: message``).
    """
    path, text = job_source(job)
    params = sim_params(
        device=device,
        scheduler=scheduler,
        occupancy=occupancy,
        precondition=precondition,
        seed=seed,
        host=host,
        gc=gc,
        device_overrides=device_overrides,
        host_overrides=host_overrides,
    )
    params["job"] = text or ""
    params["job_name"] = "<job>"
    request = {"params": params, "job_path": path, "ignore_unknown": ignore_unknown}
    return Result._of(_native.run_job(json.dumps(request)))


def replay(
    trace: JobArg,
    *,
    format: Optional[str] = None,
    qd: Optional[int] = None,
    time_scale: float = 1.0,
    loop_write: Optional[str] = None,
    skip_bad_lines: bool = False,
    trace_device: Optional[str] = None,
    device: str = "consumer-tlc-250g",
    scheduler: str = "none",
    occupancy: float = 0.0,
    precondition: str = "auto",
    seed: int = 1,
    host: Optional[JobArg] = None,
    gc: Optional[str] = None,
    device_overrides: Optional[Mapping[str, Any]] = None,
    host_overrides: Optional[Mapping[str, Any]] = None,
) -> Result:
    """Replay a block trace through the host path and device, as
    ``ssdlab replay`` does.

    Parameters
    ----------
    trace : str or os.PathLike
        The trace file.
    format : str, optional
        ``blkparse``, ``msr``, ``spc``, ``mqsim`` or ``fio-iolog``; detected
        from the first lines when None.
    qd : int, optional
        Closed loop at this depth; None replays open loop at the recorded
        times.
    time_scale : float, default 1.0
        Recorded times are divided by this.
    loop_write : str, optional
        Replay the trace again until this much (``"4g"``) has been written.
    skip_bad_lines : bool, default False
        Skip malformed lines (counted in the report) instead of stopping.
    trace_device : str, optional
        Keep one device of a multi-device trace (MSR DiskNumber, SPC ASU,
        blkparse ``maj,min``).
    device, scheduler, occupancy, precondition, seed, host, gc,
    device_overrides, host_overrides
        As for :func:`run`.

    Returns
    -------
    Result
        As for :func:`run`.

    Raises
    ------
    SsdlabError
        On bad input, with the CLI's message.
    """
    params = sim_params(
        device=device,
        scheduler=scheduler,
        occupancy=occupancy,
        precondition=precondition,
        seed=seed,
        host=host,
        gc=gc,
        device_overrides=device_overrides,
        host_overrides=host_overrides,
    )
    request = {
        "params": params,
        "trace": os.fspath(trace),
        "format": format,
        "qd": qd,
        "time_scale": float(time_scale),
        "loop_write": loop_write,
        "skip_bad_lines": skip_bad_lines,
        "trace_device": trace_device,
    }
    return Result._of(_native.replay(json.dumps(request)))


def presets() -> Dict[str, str]:
    """The built-in device presets.

    Returns
    -------
    dict of str to str
        Each preset's name (what ``device=`` takes) and its description.

    Raises
    ------
    SsdlabError
        If a built-in preset does not load (a broken build).
    """
    return dict(_native.presets())


def schedulers() -> Dict[str, Dict[str, Any]]:
    """The I/O schedulers a ``scheduler=`` spec may name.

    Returns
    -------
    dict of str to dict
        Each scheduler's name and ``{"help": str, "tunables": list}``; a
        tunable is a dict of its ``name``, ``kind`` (``bool``, ``int``,
        ``duration``, ``size``, ``choice``), ``min``, ``max``, ``default``,
        ``unit`` (durations in ns, sizes in bytes), ``choices`` (the names
        of a ``choice``, whose values are their indices; empty otherwise)
        and ``help``. The catalogue is the build's: nothing is read,
        nothing raises.
    """
    return {
        s["name"]: {"help": s["help"], "tunables": s["tunables"]}
        for s in json.loads(_native.schedulers())
    }


def flatten_figures(figures: Mapping[str, Any]) -> Dict[str, Any]:
    """A point's figures as one flat row: the device figures, then
    ``"<job>.<figure>"`` per job, and ``jobs`` (the job names in order). A
    name several jobs share (fio's ``numjobs`` clones, or two sections of one
    name) is numbered from its second job on, ``a``, ``a#2``, ``a#3``, so
    that no job's figures overwrite another's."""
    row: Dict[str, Any] = {k: figures[k] for k in DEVICE_FIGURES}
    names: List[str] = []
    seen: Dict[str, int] = {}
    for j in figures["jobs"]:
        n = seen[j["name"]] = seen.get(j["name"], 0) + 1
        name = j["name"] if n == 1 else f"{j['name']}#{n}"
        names.append(name)
        for k in JOB_FIGURES:
            row[f"{name}.{k}"] = j[k]
    row["jobs"] = tuple(names)
    return row
