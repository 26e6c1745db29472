"""Every study on the cluster: ``reproduce gc-ondemand|rt-flash|stb --dask``
on the session's two-worker LocalCluster writes results.csv byte for byte as
the run on local threads does, and a second run finds every point in its
cache."""

from __future__ import annotations

import re
import subprocess
import sys

import pandas as pd
import pytest

import ssdlab

#: A small plan of each study.
STUDIES = {
    "gc-ondemand": ["--offered-mbs", "40", "--requests", "2000", "--write-volume", "0.05"],
    "rt-flash": ["--sets", "4", "--check-sets", "1", "--seconds", "1"],
    "stb": [],
}


#: The same plans as ``ssdlab.studies`` grids (gc-ondemand's small plan is a
#: single load, not its ladder).
GRIDS = {
    "rt-flash": lambda: ssdlab.studies.rt_flash.grid("quick", sets=4, check_sets=1, seconds=1),
    "stb": lambda: ssdlab.studies.stb.grid("quick"),
}


def reproduce(ssdlab_bin, study, out, *extra):
    return subprocess.run(
        [str(ssdlab_bin), "reproduce", study, *STUDIES[study], "--out", str(out), *extra],
        check=True, capture_output=True, text=True,
    )


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_a_study_on_dask_writes_the_same_results(study, tmp_path, ssdlab_bin, cluster_client):
    local, remote = tmp_path / "local", tmp_path / "dask"
    reproduce(ssdlab_bin, study, local)
    address = cluster_client.scheduler.address
    ran = reproduce(ssdlab_bin, study, remote, "--dask", address, "--python", sys.executable)
    assert (remote / "results.csv").read_bytes() == (local / "results.csv").read_bytes(), ran.stdout
    # The store holds what the cluster ran; the cache, every point.
    assert (remote / "store").is_dir()
    cached = len(list((remote / "cache").glob("*.json")))
    assert cached == len(list((local / "cache").glob("*.json"))) and cached > 0
    again = reproduce(ssdlab_bin, study, remote, "--dask", address, "--python", sys.executable)
    assert re.search(r"\(0 (points )?computed", again.stdout), again.stdout
    if study in GRIDS:
        # The Python grid is the CLI's points, key for key.
        keys = {p["key"] for p in GRIDS[study]()}
        assert keys == {f.stem for f in (local / "cache").glob("*.json")}


def test_a_sweep_of_the_stb_grid_reads_the_clis_store_and_gives_its_rows(
    tmp_path, ssdlab_bin, cluster_client
):
    out = tmp_path / "stb"
    reproduce(ssdlab_bin, "stb", out, "--dask", cluster_client.scheduler.address,
              "--python", sys.executable)
    df = ssdlab.sweep(grid=ssdlab.studies.stb.grid("quick"), client=cluster_client,
                      store=out / "store", progress=False)
    assert df.attrs == {"computed": 0, "stored": 10}
    ours = ssdlab.studies.stb.figures(df)
    cli = pd.read_csv(out / "results.csv")
    pd.testing.assert_frame_equal(ours, cli, check_dtype=False, rtol=1e-12)


def test_a_grid_names_its_plan_and_study():
    assert len(ssdlab.studies.gc_ondemand.grid("quick")) == 6 * 3 * 7
    with pytest.raises(ssdlab.SsdlabError, match="quick' or 'paper'"):
        ssdlab.studies.stb.grid("slow")
    with pytest.raises(ssdlab.SsdlabError, match="unknown 'k3'"):
        ssdlab.studies.study_grid("k3", "quick", 1)


JOB = "[w]\nrw=randwrite\nbs=4k\niodepth=32\nioengine=libaio\ndirect=1\nsize=64m\nruntime=50ms\ntime_based=1\n"
TARGETS = """device = "seed004"
[[param]]
key = "timing.program_ns"
min = 100000
max = 600000
start = 450000
[[target]]
job = "w.fio"
metric = "bw_mbs"
value = 60
"""


def test_calibrate_on_dask_fits_the_same_preset(tmp_path, ssdlab_bin, cluster_client):
    (tmp_path / "w.fio").write_text(JOB)
    (tmp_path / "targets.toml").write_text(TARGETS)

    def calibrate(out, *extra):
        return subprocess.run(
            [str(ssdlab_bin), "calibrate", str(tmp_path / "targets.toml"), "--max-iters", "6",
             "--out", str(out), *extra],
            check=True, capture_output=True, text=True,
        )

    local = calibrate(tmp_path / "local")
    remote = calibrate(tmp_path / "dask", "--dask", cluster_client.scheduler.address,
                       "--python", sys.executable)
    for name in ("fitted.toml", "residuals.md"):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "local" / name).read_text()
    # The same keys, residuals and runs computed; only the paths differ.
    assert remote.stdout.replace("/dask/", "/local/") == local.stdout
    assert (tmp_path / "dask" / "store").is_dir()
