"""The K2 study three ways: ``reproduce k2`` on local threads, ``reproduce k2
--dask`` on a LocalCluster started apart from the CLI, and ``ssdlab.sweep``
of ``ssdlab.k2.grid`` reading the store the CLI wrote: the same figures."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import ssdlab

#: A small grid: random writes, both device states, 1 s per point.
ARGS = ["--op", "randwrite", "--partial-runtime", "1", "--full-runtime", "1"]


@pytest.fixture(scope="module")
def local_results(tmp_path_factory, ssdlab_bin):
    out = tmp_path_factory.mktemp("k2-local")
    subprocess.run([str(ssdlab_bin), "reproduce", "k2", *ARGS, "--out", str(out)], check=True,
                   capture_output=True)
    return out


@pytest.fixture(scope="module")
def dask_results(tmp_path_factory, ssdlab_bin, cluster_client):
    out = tmp_path_factory.mktemp("k2-dask")
    address = cluster_client.scheduler.address
    run = subprocess.run(
        [str(ssdlab_bin), "reproduce", "k2", *ARGS, "--out", str(out), "--dask", address,
         "--python", sys.executable],
        check=True, capture_output=True, text=True,
    )
    assert "16 repetitions computed" in run.stdout, run.stdout
    return out


def test_reproduce_k2_on_dask_writes_the_same_results(local_results, dask_results):
    local = (local_results / "results.csv").read_bytes()
    assert (dask_results / "results.csv").read_bytes() == local
    assert len(ssdlab.load(dask_results / "store")) == 16


def test_a_k2_sweep_reads_the_clis_store_and_gives_its_figures(dask_results, cluster_client):
    grid = ssdlab.k2.grid("quick", ops=["randwrite"], partial_runtime=1, full_runtime=1)
    assert len(grid) == 16
    df = ssdlab.sweep(grid=grid, client=cluster_client, store=dask_results / "store",
                      progress=False)
    assert df.attrs == {"computed": 0, "stored": 16}
    ours = ssdlab.k2.figures(df)
    cli = pd.read_csv(dask_results / "results.csv")
    for _, row in ours.iterrows():
        bound = cli["bound"].isna() if pd.isna(row["bound"]) else cli["bound"] == row["bound"]
        match = cli[(cli["op"] == row["op"]) & (cli["occupancy"] == row["state"]) & bound]
        assert len(match) == 1
        for fig in ssdlab.k2.FIGURES:
            assert row[fig] == match.iloc[0][fig], (fig, row["state"], row["bound"])


def test_the_k2_grid_is_checked():
    with pytest.raises(ssdlab.SsdlabError, match="unknown 'sideways'"):
        ssdlab.k2.grid(ops=["sideways"])
    with pytest.raises(ValueError, match="plan"):
        ssdlab.k2.grid("slow")
    # The CLI's ranges: a million repetitions would not fit in memory.
    with pytest.raises(ssdlab.SsdlabError, match="reps: 1000000 is outside 1..=100"):
        ssdlab.k2.grid(reps=10**6)
    with pytest.raises(ssdlab.SsdlabError, match="partial_runtime: 0"):
        ssdlab.k2.grid(partial_runtime=0)
    with pytest.raises(ssdlab.SsdlabError, match="states: unknown 'half'"):
        ssdlab.k2.grid(states=["half"])
    with pytest.raises(ssdlab.SsdlabError, match="full_precondition: unknown preconditioning 'worn'"):
        ssdlab.k2.grid(full_precondition="worn")
    with pytest.raises(ssdlab.SsdlabError, match="'auto' is 'steady' on a full drive"):
        ssdlab.k2.grid(full_precondition="auto")
    # The full drive's history, as `reproduce k2 --full-precondition`.
    aged = ssdlab.k2.grid(full_precondition="aged:3")
    assert {p["precondition"] for p in aged if p["labels"]["state"] == "full"} == {"aged:3"}
    assert {p["precondition"] for p in aged if p["labels"]["state"] == "partial"} == {"fill"}
    paper = ssdlab.k2.grid("paper")
    assert len(paper) == 4 * 2 * 8 * 5
    assert {p["labels"]["rep"] for p in paper} == set(range(5))


def test_the_bridge_refuses_a_point_that_is_not_an_object(tmp_path):
    for line, needle in (("[1, 2]", "a JSON object, not list"), ("{}", "'key'"), ("nope", "point")):
        run = subprocess.run(
            [sys.executable, "-m", "ssdlab._bridge", "--address", "tcp://127.0.0.1:1",
             "--store", str(tmp_path)],
            input=line + "\n", capture_output=True, text=True,
        )
        assert run.returncode == 2, run.stderr
        assert "<stdin>:1: point:" in run.stderr and needle in run.stderr, run.stderr
