"""A small K2 sweep: the real-time job's p99.9 read latency against K2's
queue-length bound on the half-full drive, from a sweep on a LocalCluster, as
a table and a plot (docs/python.md walks through it).

    .venv/bin/python python/examples/k2_sweep.py [--runtime 10] [--out k2-sweep.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ssdlab  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=int, default=10, help="simulated seconds per point")
    ap.add_argument("--out", default="k2-sweep.png")
    ap.add_argument("--store", default="ssdlab-store")
    a = ap.parse_args()

    # The study's own points (none, K2-64 ... K2-1), random reads, half-full drive.
    grid = ssdlab.k2.grid("quick", ops=["randread"], states=["partial"], partial_runtime=a.runtime)
    df = ssdlab.sweep(grid=grid, store=a.store)
    k2 = ssdlab.k2.figures(df)
    print(k2[["bound", "rt_p999_us", "nrt_bw_mbs"]].to_string(index=False))
    print(f"{df.attrs['computed']} points computed, {df.attrs['stored']} from the store")

    bounded = k2.dropna(subset=["bound"]).sort_values("bound")
    none = k2[k2["bound"].isna()].iloc[0]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(bounded["bound"], bounded["rt_p999_us"], marker="o", label="K2")
    ax.axhline(none["rt_p999_us"], color="grey", linestyle="--", label="none")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("K2 bound (max_inflight)")
    ax.set_ylabel("RT p99.9 read latency (µs)")
    ax.set_title("Random reads, half-full drive")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"plot: {a.out}")


# Dask starts its worker processes by re-importing this file: the sweep must
# run only when the file is the program.
if __name__ == "__main__":
    main()
