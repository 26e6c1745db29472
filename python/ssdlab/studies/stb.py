"""The STB study (Kang, Park and Yoo 2011): five Postmark processes under
noop, deadline, IRBW-FIFO, IRBW-FIFO-RP and STB, on the hybrid FTL and on
page mapping; ``reproduce stb``'s points."""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from . import rows_of, study_grid

#: results.csv's columns.
COLUMNS = [
    "ftl", "scheduler", "lb_size", "transactions_per_s", "read_mb_s", "write_mb_s", "elapsed_s",
    "sync_write_avg_ms", "sync_write_max_ms", "async_write_avg_ms", "async_write_max_ms",
    "read_avg_ms", "read_max_ms", "create_avg_ms", "create_max_ms", "delete_avg_ms",
    "delete_max_ms", "read_op_avg_ms", "read_op_max_ms", "append_avg_ms", "append_max_ms",
    "waf", "erases", "full_merges", "partial_merges", "switch_merges",
]


def grid(plan: str = "quick", *, seed: int = 1) -> List[Dict[str, Any]]:
    """The study's ten points, labelled ``ftl`` and ``scheduler``."""
    return study_grid("stb", plan, seed)


def figures(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of results.csv from a sweep of ``grid`` points."""
    return rows_of(df, COLUMNS)
