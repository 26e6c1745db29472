"""The results store: one row per point, keyed by the hash of the point's full
configuration (the key of the CLI's study cache), in Parquet shards.

A shard is written under a temporary name, flushed to disk and renamed, so a
reader never sees a shard being written; pages carry checksums that are
verified on reading, and a shard that does not read back whole (cut short by a
crash or a full disk) is skipped with a warning and its points count as
missing, to be computed again. Shard names are hashes of the keys they hold,
so the same sweep writes the same files."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ._api import flatten_figures

#: The columns of every shard.
SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("config", pa.string()),
        ("figures", pa.string()),
        ("labels", pa.string()),
    ]
)


class Store:
    """A directory of Parquet shards (``<path>/shards/part-*.parquet``)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]):
        self.path = Path(path)
        self.shards = self.path / "shards"
        self.shards.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"<ssdlab.Store {self.path}>"

    def shard_files(self) -> List[Path]:
        return sorted(self.shards.glob("part-*.parquet"))

    def rows(self) -> List[Dict[str, str]]:
        """Every row of every whole shard, the first of each key kept."""
        seen: Dict[str, Dict[str, str]] = {}
        for shard in self.shard_files():
            try:
                table = pq.read_table(shard, schema=SCHEMA, page_checksum_verification=True)
            except (OSError, pa.ArrowException) as e:
                warnings.warn(f"ssdlab store: {shard}: not read ({e}); its points count as missing")
                continue
            for row in table.to_pylist():
                seen.setdefault(row["key"], row)
        return list(seen.values())

    def figures(self, keys: Iterable[str]) -> Dict[str, str]:
        """The stored figures (JSON) of those keys that are in the store."""
        wanted = set(keys)
        return {r["key"]: r["figures"] for r in self.rows() if r["key"] in wanted}

    def write(self, rows: List[Mapping[str, str]]) -> Path:
        """Writes one shard of rows (``key``, ``config``, ``figures``,
        ``labels``), atomically."""
        digest = hashlib.sha256("\n".join(r["key"] for r in rows).encode()).hexdigest()[:24]
        final = self.shards / f"part-{digest}.parquet"
        tmp = self.shards / f".tmp-{digest}-{os.getpid()}.parquet"
        table = pa.Table.from_pylist([{k: r[k] for k in SCHEMA.names} for r in rows], schema=SCHEMA)
        with open(tmp, "wb") as f:
            pq.write_table(table, f, write_page_checksum=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        return final

    def load(self) -> pd.DataFrame:
        """One row per stored point: its labels, its parameters (from the
        configuration), ``key``, and its figures flattened (``bw_mbs``,
        ``waf``, ..., ``"<job>.clat_p999_us"``, ...)."""
        frame: pd.DataFrame = pd.DataFrame([_frame_row(r) for r in self.rows()])
        return frame


class MemoryStore:
    """A results store held in memory for one sweep: what ``sweep`` uses when
    no store is given, so that nothing is written to disk unasked."""

    def __init__(self) -> None:
        self._figures: Dict[str, str] = {}

    def __repr__(self) -> str:
        return f"<ssdlab.MemoryStore {len(self._figures)} point(s)>"

    def figures(self, keys: Iterable[str]) -> Dict[str, str]:
        """The figures (JSON) of those keys that are held."""
        return {k: self._figures[k] for k in keys if k in self._figures}

    def write(self, rows: List[Mapping[str, str]]) -> None:
        """Holds the rows' figures by key (the first of a key is kept)."""
        for r in rows:
            self._figures.setdefault(r["key"], r["figures"])


def _frame_row(r: Mapping[str, str]) -> Dict[str, Any]:
    config = json.loads(r["config"])
    row: Dict[str, Any] = dict(json.loads(r["labels"]))
    row.update(
        {
            "device": config["device"]["name"],
            "scheduler": config["scheduler"],
            # The percent the user gave: 0.29 × 100 is 28.999999999999996.
            "occupancy": round(config["occupancy"] * 100.0, 9),
            "precondition": config["precondition"],
            "seed": config["seed"],
            "key": r["key"],
        }
    )
    row.update(flatten_figures(json.loads(r["figures"])))
    return row


def load(store: Union[str, "os.PathLike[str]", Store]) -> pd.DataFrame:
    """Every point of a results store as one DataFrame.

    Parameters
    ----------
    store : str, os.PathLike or Store
        The store's directory (what ``sweep(store=...)`` was given), or a
        ``Store``.

    Returns
    -------
    pandas.DataFrame
        One row per stored point: its labels, its parameters (``device``,
        ``scheduler``, ``occupancy`` in percent, ``precondition``,
        ``seed``), ``key``, and its figures flattened (``bw_mbs``, ``waf``,
        ..., ``"<job>.clat_p999_us"``, ..., and ``jobs``). A shard that
        does not read back whole is skipped with a warning.

    Raises
    ------
    FileNotFoundError
        When the path holds no store (a misspelt path would otherwise
        create an empty one).
    """
    if not isinstance(store, Store):
        if not (Path(store) / "shards").is_dir():
            raise FileNotFoundError(f"{os.fspath(store)}: no results store here (no shards/)")
        store = Store(store)
    return store.load()
