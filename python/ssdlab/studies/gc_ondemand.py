"""The on-demand GC study (Lee, Choi and Hong 2023): six synthetic
application profiles under PBGC, BBGC and on-demand GC. ``grid`` gives the
ladder of ``reproduce gc-ondemand``'s load sweep (every profile and scheme
at every load); the bisections and the headline load depend on results, so
the CLI adds those points itself (to the same cache and store)."""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from . import rows_of, study_grid

#: results.csv's columns but ``headline`` (which the CLI's rule sets).
COLUMNS = [
    "profile", "scheme", "avg_read_ms", "max_read_ms", "avg_write_ms", "max_write_ms",
    "p999_read_ms", "p999_write_ms", "waf", "gc_invocations", "victims_ge70_invalid_pct",
    "victims_ge90_invalid_pct", "load_mbs", "offered_mbs", "served_mbs", "bounded",
    "read_wait_gc_copy_us", "read_wait_gc_erase_us", "read_wait_host_us", "read_wait_other_us",
    "write_wait_gc_copy_us", "write_wait_gc_erase_us", "write_wait_host_us",
    "write_wait_other_us",
]


def grid(plan: str = "quick", *, seed: int = 1) -> List[Dict[str, Any]]:
    """The ladder's points, labelled ``profile``, ``scheme``, ``load_mbs``."""
    return study_grid("gc-ondemand", plan, seed)


def figures(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run, results.csv's columns (but ``headline``)."""
    return rows_of(df, COLUMNS)
