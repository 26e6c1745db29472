"""Sweeps: on a two-worker LocalCluster, into the results store; resuming,
a killed sweep, a truncated shard, and agreement with ``run``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

import ssdlab
from ssdlab._sweep import set_job_options

GRID = {"scheduler": ["none", "k2:max_inflight=2"], "seed": [1, 2, 3]}


def _base(job):
    return {"job": job, "device": "mqsim-64g"}


def test_a_sweep_runs_every_point_in_grid_order(tmp_path, small_job, cluster_client):
    df = ssdlab.sweep(_base(small_job), GRID, client=cluster_client, store=tmp_path, progress=False)
    assert list(zip(df["scheduler"], df["seed"])) == [
        (s, n) for s in GRID["scheduler"] for n in GRID["seed"]
    ]
    assert df.attrs == {"computed": 6, "stored": 0}
    assert df["key"].is_unique
    assert (df["rt.ios"] > 0).all()


def test_a_sweep_point_is_the_run_of_its_settings(tmp_path, small_job, cluster_client):
    df = ssdlab.sweep(
        _base(small_job),
        [{"scheduler": "kyber", "occupancy": 30, "seed": 9, "job.iodepth": 4}],
        client=cluster_client,
        store=tmp_path,
        progress=False,
    )
    job = set_job_options(small_job, {"iodepth": 4})
    r = ssdlab.run(job, device="mqsim-64g", scheduler="kyber", occupancy=30, seed=9)
    row = df.iloc[0]
    for _, j in r.jobs.iterrows():
        for fig in ("bw_mbs", "iops", "clat_p999_us", "clat_mean_us"):
            assert row[f"{j['job']}.{fig}"] == j[fig]
    assert row["waf"] == r.figures["waf"]
    assert "iodepth=4" in job.split("[bg]")[1]


def test_a_sweep_resumes_with_only_the_missing_points(tmp_path, small_job, cluster_client):
    half = {"scheduler": ["none"], "seed": [1, 2, 3]}
    first = ssdlab.sweep(_base(small_job), half, client=cluster_client, store=tmp_path, progress=False)
    whole = ssdlab.sweep(_base(small_job), GRID, client=cluster_client, store=tmp_path, progress=False)
    assert first.attrs["computed"] == 3
    assert whole.attrs == {"computed": 3, "stored": 3}
    again = ssdlab.sweep(_base(small_job), GRID, client=cluster_client, store=tmp_path, progress=False)
    assert again.attrs == {"computed": 0, "stored": 6}
    assert again.drop(columns=[]).equals(whole)
    stored = ssdlab.load(tmp_path)
    assert len(stored) == 6 and set(stored["key"]) == set(whole["key"])
    assert set(stored["scheduler"]) == {"none", "k2:max_inflight=2"}


KILLED = """
import sys, ssdlab
grid = {"seed": list(range(1, 41))}
ssdlab.sweep({"job": sys.argv[2], "device": "mqsim-64g"}, grid, store=sys.argv[1],
             workers=1, batch_size=1, progress=False)
"""


def test_a_killed_sweep_keeps_what_it_finished(tmp_path, small_job, cluster_client):
    store = tmp_path / "store"
    job = small_job.replace("runtime=5ms", "runtime=40ms")
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(store), job])
    shards = store / "shards"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(shards.glob("part-*.parquet"))) < 3:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    done = len(ssdlab.load(store))
    assert 3 <= done < 40, done
    df = ssdlab.sweep({"job": job, "device": "mqsim-64g"}, {"seed": list(range(1, 41))},
                      client=cluster_client, store=store, progress=False)
    assert df.attrs == {"computed": 40 - done, "stored": done}
    # A shard the kill cut short stays a temporary file, never read as data:
    # the store holds the 40 points, each once.
    stored = ssdlab.load(store)
    assert len(stored) == 40 and stored["key"].is_unique


def test_a_truncated_shard_is_never_read_as_data(tmp_path, small_job, cluster_client):
    grid = {"seed": [1, 2, 3, 4]}
    first = ssdlab.sweep(_base(small_job), grid, client=cluster_client, store=tmp_path,
                         batch_size=2, progress=False)
    shards = sorted((tmp_path / "shards").glob("part-*.parquet"))
    assert len(shards) == 2
    data = shards[0].read_bytes()
    shards[0].write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning, match="not read"):
        stored = ssdlab.load(tmp_path)
    assert len(stored) == 2
    with pytest.warns(UserWarning, match="not read"):
        again = ssdlab.sweep(_base(small_job), grid, client=cluster_client, store=tmp_path,
                             batch_size=2, progress=False)
    assert again.attrs == {"computed": 2, "stored": 2}
    assert again.equals(first)


def test_settings_are_checked_before_anything_runs(tmp_path, small_job, cluster_client):
    with pytest.raises(ValueError, match="unknown setting 'schedular'"):
        ssdlab.sweep(_base(small_job), {"schedular": ["none"]}, client=cluster_client,
                     store=tmp_path, progress=False)
    with pytest.raises(ssdlab.SsdlabError, match="max_inflight"):
        ssdlab.sweep(_base(small_job), {"scheduler": ["none", "k2:max_inflight=0"]},
                     client=cluster_client, store=tmp_path, progress=False)
    with pytest.raises(ssdlab.SsdlabError, match="no_such_key"):
        ssdlab.sweep(_base(small_job), {"device.gc.no_such_key": [1]},
                     client=cluster_client, store=tmp_path, progress=False)
    assert not list((tmp_path / "shards").glob("*"))


def test_job_options_land_in_every_section():
    text = "[global]\nbs=4k\n[a]\nrw=read\n[b]\nrw=write\niodepth=2\n"
    out = set_job_options(text, {"iodepth": 8, "time_based": True})
    sections = out.split("[")
    assert all("iodepth=8\ntime_based=1" in s for s in sections[1:])
    assert set_job_options(text, {}) == text
    assert textwrap.dedent(out).count("iodepth=8") == 3


def test_numpy_and_pandas_values_make_a_grid():
    import numpy as np
    import pandas as pd

    from ssdlab import expand

    points = expand({"job": "x.fio", "occupancy": np.float64(50)},
                    {"seed": np.arange(1, 3), "scheduler": pd.Series(["none", "kyber"])})
    assert [(p["seed"], p["scheduler"]) for p in points] == [
        (1, "none"), (1, "kyber"), (2, "none"), (2, "kyber")
    ]
    assert all(type(p["seed"]) is int and type(p["occupancy"]) is float for p in points)
    with pytest.raises(ValueError, match="'seed' takes a list"):
        expand({"job": "x.fio"}, {"seed": 3})
    with pytest.raises(ValueError, match="'device' takes a list"):
        expand({"job": "x.fio"}, {"device": "mqsim-64g"})


def test_inputs_that_would_run_wrongly_are_refused(tmp_path, small_job):
    # Refused before any cluster starts: no client is given.
    with pytest.raises(ValueError, match="'seed' is a set"):
        ssdlab.expand({"job": small_job}, {"seed": {1, 2}})
    for name, value in (("batch_size", 0), ("batch_size", -1), ("batch_size", 2.0),
                        ("workers", 0), ("workers", True)):
        with pytest.raises(ValueError, match=name):
            ssdlab.sweep(_base(small_job), GRID, store=tmp_path, progress=False,
                         **{name: value})
    # An include would be read on the worker and left out of the key.
    job = tmp_path / "with-include.fio"
    job.write_text("[a]\nrw=read\ninclude common.fio ; shared options\n")
    with pytest.raises(ssdlab.SsdlabError, match="with-include.fio:3: include"):
        ssdlab.sweep({"job": str(job)}, None, store=tmp_path, progress=False)
    assert not list((tmp_path / "shards").glob("*"))
    # A point whose job does not fit its device fails before any runs,
    # naming the point.
    with pytest.raises(ssdlab.SsdlabError, match=r'point 1 \{"device": "mlc-sata-8g"\}: ftl.mapping'):
        ssdlab.sweep({"job": small_job}, {"device": ["mqsim-64g", "mlc-sata-8g"]},
                     store=tmp_path, progress=False)
    assert not list((tmp_path / "shards").glob("*"))
    # Values JSON would carry wrongly or blame on no setting.
    for grid, needle in (({"seed": [-1]}, "seed: -1"), ({"seed": [2.7]}, "seed: 2.7"),
                         ({"device.gc.soft_threshold": [float("nan")]},
                          "device.gc.soft_threshold: nan")):
        with pytest.raises(ssdlab.SsdlabError, match=needle):
            ssdlab.sweep(_base(small_job), grid, store=tmp_path, progress=False)
    with pytest.raises(ssdlab.SsdlabError, match="/dev/zero: larger than 64 MiB"):
        ssdlab.sweep({"job": "/dev/zero"}, None, store=tmp_path, progress=False)
    # A misspelt store is not an empty one.
    with pytest.raises(FileNotFoundError, match="no results store"):
        ssdlab.load(tmp_path / "no-such-store")


def test_a_stored_occupancy_is_the_percent_given():
    from ssdlab._store import _frame_row

    config = {"device": {"name": "seed004"}, "scheduler": "none", "occupancy": 0.29,
              "precondition": "auto", "seed": 1}
    from ssdlab._api import DEVICE_FIGURES

    figures = {**{k: 0 for k in DEVICE_FIGURES}, "jobs": []}
    row = _frame_row({"config": json.dumps(config), "labels": "{}", "key": "k",
                      "figures": json.dumps(figures)})
    assert row["occupancy"] == 29.0


def test_jobs_of_one_name_keep_their_own_figures():
    from ssdlab._api import DEVICE_FIGURES, JOB_FIGURES, flatten_figures

    def job(name, bw):
        return {"name": name, **{k: 0 for k in JOB_FIGURES}, "bw_mbs": bw}

    figures = {**{k: 0 for k in DEVICE_FIGURES}, "jobs": [job("a", 1), job("a", 2), job("b", 3)]}
    row = flatten_figures(figures)
    assert row["jobs"] == ("a", "a#2", "b")
    assert (row["a.bw_mbs"], row["a#2.bw_mbs"], row["b.bw_mbs"]) == (1, 2, 3)


def test_without_a_store_nothing_is_written(tmp_path, small_job, cluster_client, monkeypatch):
    monkeypatch.chdir(tmp_path)
    df = ssdlab.sweep(_base(small_job), GRID, client=cluster_client, progress=False)
    assert len(df) == 6 and df.attrs["computed"] == 6
    assert list(tmp_path.iterdir()) == []


def test_without_the_dask_extra_a_sweep_says_how_to_install_it(small_job, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'ssdlab\[dask\]'"):
        ssdlab.sweep(_base(small_job), GRID, progress=False)
