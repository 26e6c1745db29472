#!/usr/bin/env python3
"""Each study's plan on a LocalCluster of one worker and of two, side by side
in one run: wall time, CPU time (this process's children: the CLI, the
bridge and the workers) and points. Prints a Markdown table (docs/cluster.md).

    .venv/bin/python scripts/cluster-bench.py [--plan quick] [--study k2 ...]

Every run starts from an empty output directory, so every point is computed.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

STUDIES = ["k2", "gc-ondemand", "rt-flash", "stb"]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def one(ssdlab: str, study: str, plan: str, workers: int, scratch: Path) -> tuple[float, float, int]:
    out = scratch / f"{study}-{workers}"
    shutil.rmtree(out, ignore_errors=True)
    cpu0 = children_cpu()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster):
            t0 = time.perf_counter()
            subprocess.run(
                [ssdlab, "reproduce", study, f"--{plan}", "--out", str(out), "--dask",
                 cluster.scheduler_address, "--python", sys.executable],
                check=True, stdout=subprocess.DEVNULL,
            )
            wall = time.perf_counter() - t0
    points = len(list((out / "cache").glob("*.json")))
    return wall, children_cpu() - cpu0, points


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ssdlab", default="target/release/ssdlab")
    ap.add_argument("--plan", default="quick", choices=["quick", "paper"])
    ap.add_argument("--study", action="append", choices=STUDIES)
    a = ap.parse_args()
    print("| study | plan | points | 1 worker: wall / CPU (s) | 2 workers: wall / CPU (s) | speed-up |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="ssdlab-cluster-bench-") as tmp:
        for study in a.study or STUDIES:
            w1, c1, n = one(a.ssdlab, study, a.plan, 1, Path(tmp))
            w2, c2, _ = one(a.ssdlab, study, a.plan, 2, Path(tmp))
            print(f"| {study} | {a.plan} | {n} | {w1:.0f} / {c1:.0f} | {w2:.0f} / {c2:.0f} | {w1 / w2:.2f}× |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
