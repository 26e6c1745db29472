"""One simulation at a time: ``run`` (an fio job file) and ``replay`` (a block
trace), the catalogue of presets and schedulers, and the ``Result`` they give."""

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
    """What one simulation reported.

    ``report``: fio's JSON report (``--output-format json``) as a dict, with
    ssdlab's extras (GC, write amplification, host counters) under
    ``"ssdlab"``. ``text``: fio's normal text report. ``figures``: the device
    figures (``waf``, ``gc_invocations``, ``erases``, ``bw_mbs``, ...) and the
    per-second totals. ``jobs``: one row per job: bandwidth in MB/s (10^6
    bytes), IOPS, completion latency (reads and writes together) mean, p50,
    p99, p99.9 and max in microseconds, and p99.9 per direction.
    """

    report: Dict[str, Any]
    text: str
    figures: Dict[str, Any]
    jobs: pd.DataFrame = field(repr=False)

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
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
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


def run(job: JobArg, *, ignore_unknown: bool = False, **settings: Any) -> Result:
    """Runs an fio job file (a path, or its text) on the simulated SSD.

    Settings are those of ``ssdlab run``: ``device`` (a preset name or TOML
    file), ``scheduler`` (a spec such as ``"k2:max_inflight=8"``),
    ``occupancy`` (percent), ``precondition`` (``auto``, ``fill``, ``steady``,
    ``aged[:N]``, ``pts``, ``random``), ``seed``, ``host`` (a host TOML file, or ``"k2-study"``: the K2 study's host), ``gc``
    (``pbgc``, ``bbgc``, ``on-demand``), and ``device_overrides`` /
    ``host_overrides`` (dotted preset keys to values, e.g.
    ``{"gc.free_block_threshold": 0.05}``). Raises ``SsdlabError`` on bad
    input, with the CLI's message."""
    path, text = job_source(job)
    params = sim_params(**settings)
    params["job"] = text or ""
    params["job_name"] = "<job>"
    return Result._of(_native.run_job(json.dumps(params), path, ignore_unknown))


def replay(
    trace: JobArg,
    *,
    format: Optional[str] = None,
    qd: Optional[int] = None,
    time_scale: float = 1.0,
    loop_write: Optional[str] = None,
    skip_bad_lines: bool = False,
    trace_device: Optional[str] = None,
    **settings: Any,
) -> Result:
    """Replays a block trace (blkparse, msr, spc, mqsim, fio-iolog; detected
    when ``format`` is None) as ``ssdlab replay`` does: open loop at the
    recorded times divided by ``time_scale``, or closed loop at depth ``qd``.
    The other settings are ``run``'s."""
    params = sim_params(**settings)
    return Result._of(
        _native.replay(
            json.dumps(params),
            os.fspath(trace),
            format,
            qd,
            float(time_scale),
            loop_write,
            skip_bad_lines,
            trace_device,
        )
    )


def rtflash_run(
    tasks: Union[str, "os.PathLike[str]"],
    *,
    approach: str = "clustering",
    nrt: str = "tbs",
    chip_order: str = "edf",
    model: str = "chips",
    duration: float = 10.0,
    seed: int = 1,
) -> Dict[str, Any]:
    """Allocates a real-time task set (a TOML file, docs/rt-flash.md) with
    ``approach`` (clustering, global, full-isolation) and simulates it for
    ``duration`` seconds, NRT through a TBS or in the ``background``, on
    the analysis' ``chips`` or on the ``ssd`` model of its preset, with
    ``edf`` or ``fifo`` (ordinary) dies. Returns ``ssdlab rtflash run
    --json``'s object: per task its jobs, read and write deadline misses,
    max and p99.9 response beside the analysis' bound; the NRT figures."""
    out = _native.rtflash_run(
        os.fspath(tasks), approach, nrt, chip_order, model, float(duration), seed_of(seed)
    )
    return json.loads(out)


def presets() -> Dict[str, str]:
    """The built-in device presets: name to description."""
    return dict(_native.presets())


def schedulers() -> Dict[str, Dict[str, Any]]:
    """The I/O schedulers: name to ``{"help", "tunables"}``, each tunable with
    its kind, range, default and unit (durations in ns, sizes in bytes)."""
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
