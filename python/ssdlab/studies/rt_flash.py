"""The real-time flash study (Kim et al., DAC 2021): case studies,
worst-case latency parts, schedulability curves, NRT bandwidth and the
SSD-model check; ``reproduce rt-flash``'s points."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pandas as pd

from . import study_grid

#: results.csv's columns.
COLUMNS = ["part", "approach", "chips", "family", "demand", "task", "metric", "value"]


def grid(
    plan: str = "quick",
    *,
    seed: int = 1,
    sets: Optional[int] = None,
    check_sets: Optional[int] = None,
    seconds: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """The study's points, with ``reproduce rt-flash``'s overrides
    (``--sets``, ``--check-sets``, ``--seconds``), labelled with their
    ``part`` and, where they have one, ``approach``, ``family``, ``chips``
    and ``demand``."""
    return study_grid("rt-flash", plan, seed, sets=sets, check_sets=check_sets, seconds=seconds)


def figures(df: pd.DataFrame) -> pd.DataFrame:
    """The tidy rows of results.csv: every point's rows, in the grid's
    order."""
    rows = [r for rs in df["rows"] for r in rs]
    out: pd.DataFrame = pd.DataFrame(rows, columns=COLUMNS)
    return out
