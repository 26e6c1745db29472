"""Checks a sweep of the K2 grid against ``reproduce k2``'s results.csv,
figure by figure (bit for bit): run the CLI first, then this with the same
plan.

    ssdlab reproduce k2 --quick --out out/k2
    .venv/bin/python python/examples/k2_check.py --results out/k2/results.csv [--plan quick]
"""

import argparse
import sys

import pandas as pd

import ssdlab


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True, help="results.csv of reproduce k2")
    ap.add_argument("--plan", default="quick", choices=["quick", "paper"])
    ap.add_argument("--store", default="ssdlab-store")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    df = ssdlab.sweep(grid=ssdlab.k2.grid(a.plan), store=a.store, workers=a.workers)
    ours = ssdlab.k2.figures(df)
    cli = pd.read_csv(a.results)
    compared = differ = 0
    for _, row in ours.iterrows():
        bound = cli["bound"].isna() if pd.isna(row["bound"]) else cli["bound"] == row["bound"]
        match = cli[(cli["op"] == row["op"]) & (cli["occupancy"] == row["state"]) & bound]
        if len(match) != 1:
            print(f"{row['op']} {row['state']} {row['bound']}: not in {a.results}")
            differ += 1
            continue
        for fig in ssdlab.k2.FIGURES:
            compared += 1
            if row[fig] != match.iloc[0][fig]:
                differ += 1
                print(f"{row['op']} {row['state']} {row['bound']} {fig}: "
                      f"sweep {row[fig]!r}, CLI {match.iloc[0][fig]!r}")
    print(f"{len(ours)} points, {compared} figures compared, {differ} differ "
          f"({df.attrs['computed']} points computed, {df.attrs['stored']} from the store)")
    return 1 if differ else 0


# Dask's worker processes re-import this file: run only as the program.
if __name__ == "__main__":
    sys.exit(main())
