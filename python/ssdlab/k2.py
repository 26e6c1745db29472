"""The K2 queue-length-bound study (Park and Lee) as sweep points, and its
figures from a sweep's rows: what ``ssdlab reproduce k2`` runs and reports,
so a sweep on a cluster gives the CLI's numbers point for point.

    >>> df = ssdlab.sweep(grid=ssdlab.k2.grid("quick", ops=["randread"]))
    >>> ssdlab.k2.figures(df)
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from . import _native

#: The study's columns (results.csv of ``reproduce k2``, per repetition).
FIGURES = (
    "rt_p999_us",
    "rt_p99_us",
    "rt_mean_us",
    "total_bw_mbs",
    "nrt_bw_mbs",
    "waf",
    "gc_invocations",
    "gc_pages_moved",
    "erases",
)


def grid(
    plan: str = "quick",
    *,
    ops: Sequence[str] = (),
    states: Sequence[str] = (),
    partial_runtime: Optional[int] = None,
    full_runtime: Optional[int] = None,
    reps: Optional[int] = None,
    device: str = "consumer-tlc-250g",
    seed: int = 1,
    full_precondition: str = "fill",
) -> List[Dict[str, Any]]:
    """The study's points (``plan``: ``"quick"`` or ``"paper"``), with the
    same overrides as ``reproduce k2`` (``--op``, ``--occupancy``,
    ``--partial-runtime``, ``--full-runtime``, ``--reps``,
    ``--full-precondition``), each labelled
    with ``op``, ``state`` (partial, full), ``bound`` (None for ``none``)
    and ``rep``."""
    if plan not in ("quick", "paper"):
        raise ValueError(f"plan: 'quick' or 'paper', not '{plan}'")
    request = {
        "paper": plan == "paper",
        "partial_runtime": partial_runtime,
        "full_runtime": full_runtime,
        "reps": reps,
        "ops": list(ops),
        "occupancies": list(states),
        "device": device,
        "seed": seed,
        "full_precondition": full_precondition,
    }
    points: List[Dict[str, Any]] = json.loads(_native.k2_points(json.dumps(request)))
    return points


def figures(df: pd.DataFrame) -> pd.DataFrame:
    """The study's figures of each row of a sweep of ``grid`` points: the
    RT job's (``rt``) completion latency and the bandwidth of all jobs and of
    the three background jobs, computed as the CLI computes them."""
    out = []
    for _, row in df.iterrows():
        out.append(
            {
                "op": row["op"],
                "state": row["state"],
                "bound": None if pd.isna(row["bound"]) else int(row["bound"]),
                "rep": row["rep"],
                "rt_p999_us": row["rt.clat_p999_us"],
                "rt_p99_us": row["rt.clat_p99_us"],
                "rt_mean_us": row["rt.clat_mean_us"],
                "total_bw_mbs": row["bw_mbs"],
                # Summed in job order, as the CLI sums them.
                "nrt_bw_mbs": sum(row[f"{j}.bw_mbs"] for j in row["jobs"] if j != "rt"),
                "waf": row["waf"],
                "gc_invocations": row["gc_invocations"],
                "gc_pages_moved": row["gc_pages_moved"],
                "erases": row["erases"],
            }
        )
    df_out: pd.DataFrame = pd.DataFrame(out)
    df_out["bound"] = df_out["bound"].astype("Int64")
    return df_out
