"""The CLI's way onto a Dask cluster (``ssdlab reproduce k2 --dask ADDRESS``).

Reads one point a line on stdin, ``{"key": ..., "config": "<configuration
JSON>"}``, runs the points missing from the results store on the cluster (as
``ssdlab.sweep`` does, store and batches alike) and writes one line per point
on stdout, ``{"key": ..., "figures": "<figures JSON>"}``, as each is known.
Errors go to stderr with exit code 2 for bad input, 1 otherwise.

    python -m ssdlab._bridge --address tcp://host:8786 --store out/k2/store
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Tuple

from ._native import SsdlabError
from ._store import Store
from ._sweep import execute, require_dask


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m ssdlab._bridge")
    ap.add_argument("--address", required=True, help="Dask scheduler address")
    ap.add_argument("--store", required=True, help="results store directory")
    ap.add_argument("--batch-size", type=int, default=None)
    a = ap.parse_args(argv)
    try:
        require_dask()
    except ImportError as e:
        print(f"ssdlab: error: {e}", file=sys.stderr)
        return 2
    items: List[Tuple[str, str, str]] = []
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            p = json.loads(line)
            if not isinstance(p, dict):
                raise ValueError(f"a JSON object, not {type(p).__name__}")
            items.append((p["key"], p["config"], json.dumps(p.get("labels", {}), sort_keys=True)))
        except (ValueError, KeyError) as e:
            print(f"<stdin>:{n}: point: {e}", file=sys.stderr)
            return 2

    def emit(key: str, figures: str) -> None:
        sys.stdout.write(json.dumps({"key": key, "figures": figures}) + "\n")
        sys.stdout.flush()

    try:
        execute(items, Store(a.store), client=a.address, batch_size=a.batch_size, progress=False, on_done=emit)
    except SsdlabError as e:
        print(f"ssdlab: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
