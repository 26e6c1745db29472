"""Scheduling overhead of a sweep: the same trivial points run back to back in
this process, then as a sweep on a two-worker LocalCluster (started before the
clock starts, as a user's cluster is), side by side in one run.

    python -m ssdlab.bench [--points 200] [--workers 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from typing import List

from ._sweep import expand, resolve, run_batch, sweep

#: A point that runs in milliseconds on the smallest preset.
TRIVIAL_JOB = """[global]
ioengine=libaio
direct=1
bs=4k
runtime=2ms
time_based=1
size=64m
[rt]
rw=randread
iodepth=1
[bg]
rw=randwrite
iodepth=8
"""


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m ssdlab.bench")
    ap.add_argument("--points", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.points < 1 or a.workers < 1:
        print("ssdlab bench: --points and --workers must be at least 1", file=sys.stderr)
        return 2
    base = {"job": TRIVIAL_JOB, "device": "seed004"}
    grid = {"seed": list(range(1, a.points + 1))}

    t0 = time.perf_counter()
    configs = [resolve(p)[1] for p in expand(base, grid)]
    run_batch(configs)
    serial_s = time.perf_counter() - t0

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=a.workers, threads_per_worker=1, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.wait_for_workers(a.workers)
        with tempfile.TemporaryDirectory() as store:
            t0 = time.perf_counter()
            df = sweep(base, grid, client=client, store=store, progress=False)
            sweep_s = time.perf_counter() - t0
    assert df.attrs["computed"] == a.points
    result = {
        "points": a.points,
        "workers": a.workers,
        "back_to_back_s": round(serial_s, 3),
        "sweep_s": round(sweep_s, 3),
        "ratio": round(sweep_s / serial_s, 3),
    }
    if a.json:
        print(json.dumps(result))
    else:
        print(f"{a.points} trivial points: back to back in one process {serial_s:.3f} s; "
              f"sweep on a {a.workers}-worker LocalCluster {sweep_s:.3f} s "
              f"(ratio {sweep_s / serial_s:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
