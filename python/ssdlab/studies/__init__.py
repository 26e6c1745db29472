"""The GC, real-time flash and STB studies as sweep points, as
``ssdlab.k2`` is for the K2 study: ``grid(plan)`` gives the points
``ssdlab reproduce <study>`` runs (the same keys, so a sweep and the CLI
share a results store), ``figures(df)`` the study's rows from a sweep.

    >>> df = ssdlab.sweep(grid=ssdlab.studies.stb.grid("quick"))
    >>> ssdlab.studies.stb.figures(df)
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pandas as pd

from .. import _native


def study_grid(study: str, plan: str, seed: int, **overrides: Optional[int]) -> List[Dict[str, Any]]:
    """A study's points (``plan``: ``"quick"`` or ``"paper"``)."""
    request = {
        "study": study,
        "plan": plan,
        "seed": seed,
        "overrides": {k: v for k, v in overrides.items() if v is not None},
    }
    points: List[Dict[str, Any]] = json.loads(_native.study_grid(json.dumps(request)))
    return points


def rows_of(df: pd.DataFrame, columns: List[str]) -> pd.DataFrame:
    """A sweep's study rows (one per point), with the study's columns."""
    rows: pd.DataFrame = df[columns].reset_index(drop=True)
    return rows


from . import gc_ondemand, rt_flash, stb  # noqa: E402  (they use the helpers above)

__all__ = ["gc_ondemand", "rt_flash", "stb", "study_grid"]
