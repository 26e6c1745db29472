"""Every study on the cluster: ``reproduce gc-ondemand|rt-flash|stb --dask``
on the session's two-worker LocalCluster writes results.csv byte for byte as
the run on local threads does, and a second run finds every point in its
cache."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

#: A small plan of each study.
STUDIES = {
    "gc-ondemand": ["--offered-mbs", "40", "--requests", "2000", "--write-volume", "0.05"],
    "rt-flash": ["--sets", "4", "--check-sets", "1", "--seconds", "1"],
    "stb": [],
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
