"""``rtflash_run``: a real-time task set allocated and simulated, as ``ssdlab
rtflash run`` does, and the ``RtflashResult`` it returns (a ``Result`` of
the same shape as every run's)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pandas as pd

from . import _native
from ._api import JobArg, Result, seed_of

#: Per-task figures of a real-time run, in the order of ``RtflashResult.jobs``'
#: columns (after ``job``, the task's name); times in microseconds.
TASK_FIGURES: Tuple[str, ...] = (
    "jobs",
    "read_requests",
    "read_misses",
    "write_requests",
    "write_misses",
    "max_response_us",
    "p999_response_us",
    "deadline_us",
    "worst_case_latency_us",
)


@dataclass(repr=False)
class RtflashResult(Result):
    """What one real-time run reported: a ``Result`` whose attributes hold
    the task set's figures.

    Attributes
    ----------
    report : dict
        The object ``ssdlab rtflash run --json`` prints, as a dict (times in
        nanoseconds).
    text : str
        The report ``ssdlab rtflash run`` prints without ``--json``,
        rendered in Python from ``report`` (the native module gives JSON
        only); a test checks it against the CLI's.
    figures : dict
        The run's own figures, ``report`` without its ``tasks``:
        ``approach``, ``nrt_service``, ``chip_order``, ``model``,
        ``schedulable`` and ``reason`` (the analysis' verdict),
        ``duration_ns``, ``nrt`` (``requests``, ``pages``, ``iops``,
        ``mb_per_s``, ``mean_response_ns``; None without NRT load),
        ``gc_rounds`` and ``gc_copied_pages``.
    jobs : pandas.DataFrame
        One row per real-time task (column ``job``, its name) and its
        figures (``TASK_FIGURES``): jobs released, read and write requests
        and deadline misses, maximum and p99.9 response, deadline and the
        analysis' worst-case latency bound (NaN when unbounded), in
        microseconds.
    """

    @classmethod
    def _of_report(cls, report: Dict[str, Any], tasks_file: str) -> "RtflashResult":
        figures = {k: v for k, v in report.items() if k != "tasks"}
        jobs = pd.DataFrame(
            [_task_row(t) for t in report["tasks"]], columns=["job", *TASK_FIGURES]
        )
        text = render_text(report, tasks_file)
        return cls(report=report, text=text, figures=figures, jobs=jobs)

    def __repr__(self) -> str:
        f = self.figures
        return (
            f"<ssdlab.RtflashResult {len(self.jobs)} real-time task(s), "
            f"{f['approach']}, schedulable={f['schedulable']}>"
        )


def rtflash_run(
    tasks: JobArg,
    *,
    approach: str = "clustering",
    nrt: str = "tbs",
    chip_order: str = "edf",
    model: str = "chips",
    duration: float = 10.0,
    seed: int = 1,
) -> RtflashResult:
    """Allocate a real-time task set and simulate it, as ``ssdlab rtflash
    run`` does (docs/rt-flash.md).

    Parameters
    ----------
    tasks : str or os.PathLike
        The task-set TOML file.
    approach : str, default "clustering"
        ``clustering`` (Clustering-BFD), ``global`` or ``full-isolation``.
    nrt : str, default "tbs"
        The NRT load through each cluster's Total Bandwidth Server (``tbs``)
        or in the ``background``.
    chip_order : str, default "edf"
        Dies serve by deadline (``edf``) or in arrival order (``fifo``, an
        ordinary SSD).
    model : str, default "chips"
        The analysis' chip model (``chips``) or the full SSD model of the
        task set's preset (``ssd``).
    duration : float, default 10.0
        Simulated seconds of real-time releases, in [0.001, 100000].
    seed : int, default 1
        The run's seed, a whole number in [0, 2^64).

    Returns
    -------
    RtflashResult
        A ``Result``: ``report`` is the object ``ssdlab rtflash run --json``
        prints; ``text`` the CLI's text report, rendered in Python;
        ``figures`` the verdict, NRT figures and GC rounds; ``jobs`` one row
        per real-time task.

    Raises
    ------
    SsdlabError
        On bad input, with the CLI's message (``nrt: 'idle' is not one of
        tbs, background``; a task-set file's ``file:line: field: message``).
    """
    tasks_file = os.fspath(tasks)
    request = {
        "tasks": tasks_file,
        "approach": approach,
        "nrt": nrt,
        "chip_order": chip_order,
        "model": model,
        "duration": float(duration),
        "seed": seed_of(seed),
    }
    out = _native.rtflash_run(json.dumps(request))
    return RtflashResult._of_report(json.loads(out), tasks_file)


def _us(ns: Optional[int]) -> Optional[float]:
    return None if ns is None else ns / 1e3


def _task_row(t: Mapping[str, Any]) -> Dict[str, Any]:
    return {
        "job": t["name"],
        **{k: t[k] for k in ("jobs", "read_requests", "read_misses", "write_requests",
                             "write_misses")},
        "max_response_us": _us(t["max_response_ns"]),
        "p999_response_us": _us(t["p999_response_ns"]),
        "deadline_us": _us(t["deadline_ns"]),
        "worst_case_latency_us": _us(t.get("worst_case_latency_ns")),
    }


def _ms(ns: int) -> str:
    """A time as the CLI prints it: ``12.598 ms`` (truncated to the µs)."""
    return f"{ns // 1_000_000}.{ns // 1_000 % 1_000:03} ms"


#: The CLI's name for the device simulated, by (model, chip order).
_ORDER = {
    ("chips", "edf"): "chips EDF",
    ("chips", "fifo"): "chips FIFO",
    ("ssd", "edf"): "SSD model, dies EDF",
    ("ssd", "fifo"): "SSD model, the preset's die order",
}

_ROW = "{:<10} {:>6} {:>12} {:>12} {:>11} {:>11} {:>11} {:>11}"


def render_text(report: Mapping[str, Any], tasks_file: str) -> str:
    """``ssdlab rtflash run``'s text report of a run (its ``--json`` object)."""
    service = "TBS" if report["nrt_service"] == "tbs" else "background"
    order = _ORDER[(report["model"], report["chip_order"])]
    reason = report["reason"]
    lines = [
        f"task set: {tasks_file}",
        f"approach: {report['approach']}, NRT served by {service}, {order}, "
        f"{report['duration_ns'] / 1e9:.1f} s simulated",
        "analysis: schedulable" if reason is None else f"analysis: unschedulable: {reason}",
        "",
        _ROW.format("task", "jobs", "read misses", "write misses", "deadline", "max resp",
                    "p99.9 resp", "WCL bound"),
    ]
    lines += [_task_line(t) for t in report["tasks"]]
    if report["nrt_service"] == "tbs":
        lines.append(
            "(the WCL bound is the RT busy period; with NRT through a TBS the server's "
            "work may push a job past it, and the guarantee is the deadline)"
        )
    lines += _nrt_lines(report.get("nrt"))
    lines.append(f"GC: {report['gc_rounds']} rounds, {report['gc_copied_pages']} pages copied")
    return "\n".join(lines) + "\n"


def _task_line(t: Mapping[str, Any]) -> str:
    bound = t.get("worst_case_latency_ns")
    return _ROW.format(
        t["name"],
        t["jobs"],
        f"{t['read_misses']}/{t['read_requests']}",
        f"{t['write_misses']}/{t['write_requests']}",
        _ms(t["deadline_ns"]),
        _ms(t["max_response_ns"]),
        _ms(t["p999_response_ns"]),
        "unbounded" if bound is None else _ms(bound),
    )


def _nrt_lines(nrt: Optional[Mapping[str, Any]]) -> List[str]:
    if nrt is None:
        return []
    return [
        "",
        f"NRT: {nrt['requests']} requests, {nrt['iops']:.0f} IOPS, {nrt['mb_per_s']:.2f} MB/s, "
        f"mean response {_ms(nrt['mean_response_ns'])}",
    ]
