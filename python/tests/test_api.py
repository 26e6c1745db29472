"""The one-run API: run, replay, presets, schedulers, errors, and that a run
from Python reports what the CLI reports."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import ssdlab


def test_run_returns_the_report_and_per_job_figures(small_job):
    r = ssdlab.run(small_job, device="mqsim-64g", scheduler="k2:max_inflight=4", seed=3)
    assert [j["jobname"] for j in r.report["jobs"]] == ["rt", "bg"]
    assert list(r.jobs["job"]) == ["rt", "bg"]
    rt = r.jobs.set_index("job").loc["rt"]
    assert rt["ios"] > 0 and rt["clat_p999_us"] >= rt["clat_p50_us"] > 0
    assert rt["write_bw_mbs"] == 0
    assert r.figures["bw_mbs"] == pytest.approx(r.jobs["bw_mbs"].sum())
    assert "ssdlab" in r.report and "rt" in r.text
    assert "WAF" in repr(r)


def test_the_same_inputs_give_the_same_figures(small_job):
    a = ssdlab.run(small_job, device="mqsim-64g", seed=5)
    b = ssdlab.run(small_job, device="mqsim-64g", seed=5)
    assert a.figures == b.figures


def test_a_job_file_path_and_its_text_run_alike(tmp_path, small_job):
    path = tmp_path / "small.fio"
    path.write_text(small_job)
    by_path = ssdlab.run(path, device="mqsim-64g")
    by_name = ssdlab.run(str(path), device="mqsim-64g")
    by_text = ssdlab.run(small_job, device="mqsim-64g")
    assert by_path.figures == by_text.figures == by_name.figures


def test_overrides_reach_the_device(small_job):
    # Half full, so that the reads find data on flash.
    base = ssdlab.run(small_job, device="mqsim-64g", occupancy=50)
    slow = ssdlab.run(
        small_job, device="mqsim-64g", occupancy=50, device_overrides={"timing.read_ns": 300_000}
    )
    rt = lambda r: r.jobs.set_index("job").loc["rt", "clat_mean_us"]  # noqa: E731
    assert rt(slow) > rt(base) + 100


def test_chip_clusters_can_be_set_from_python(root):
    # The reader of examples/clusters on chips of its own: its tail is a
    # flash read, no longer a neighbour's program (docs/python.md).
    job = (root / "examples/clusters/neighbours.fio").read_text()
    job = job.replace("runtime=20s", "runtime=1s")
    clusters = [
        {"chips": [0, 1], "from": 0.0, "to": 0.25},
        {"chips": [2, 3], "from": 0.25, "to": 0.5},
    ]
    p999 = lambda r: r.jobs.set_index("job").loc["reader", "clat_p999_us"]  # noqa: E731
    shared = ssdlab.run(job, occupancy=50)
    isolated = ssdlab.run(
        job,
        occupancy=50,
        device_overrides={"ftl.allocation": "clusters", "ftl.clusters": clusters},
    )
    assert p999(isolated) * 5 < p999(shared)
    with pytest.raises(ssdlab.SsdlabError, match="chip 9 does not exist"):
        ssdlab.run(
            job,
            device_overrides={
                "ftl.allocation": "clusters",
                "ftl.clusters": [{"chips": [9], "from": 0.0, "to": 0.1}],
            },
        )


def test_catalogues():
    assert {"mqsim-64g", "seed004", "consumer-tlc-250g"} <= set(ssdlab.presets())
    s = ssdlab.schedulers()
    assert {"none", "mq-deadline", "kyber", "k2", "stb"} <= set(s)
    k2 = {t["name"]: t for t in s["k2"]["tunables"]}
    assert k2["max_inflight"]["kind"] == "int" and k2["max_inflight"]["min"] >= 1
    adaptive = {t["name"]: t for t in s["k2-adaptive"]["tunables"]}
    objective = adaptive["objective"]
    assert objective["kind"] == "choice"
    assert objective["choices"] == ["o1", "o2", "target"] and objective["default"] == 0
    assert {"bfq", "iolatency"} <= set(s)
    assert ssdlab.__version__.count(".") == 2


@pytest.mark.parametrize(
    "job, settings, message",
    [
        ("[j]\nrw=sideways\n", {}, "<job>:2: option 'rw': value 'sideways'"),
        (None, {"occupancy": 150}, "occupancy: 150"),
        (None, {"scheduler": "k2:max_inflight=0"}, "max_inflight"),
        (None, {"device": "no-such-drive"}, "not a preset"),
        (None, {"device_overrides": {"geometry.no_such_key": 1}}, "no_such_key"),
        (None, {"precondition": "soaked"}, "unknown preconditioning 'soaked'"),
        (None, {"seed": -1}, "seed: -1 is not a whole number"),
        (None, {"seed": 2.7}, "seed: 2.7 is not a whole number"),
        (None, {"device_overrides": {"gc.soft_threshold": float("inf")}},
         "device.gc.soft_threshold: inf is not a finite number"),
    ],
)
def test_bad_input_raises_the_clis_message(small_job, job, settings, message):
    settings = {"device": "mqsim-64g", **settings}
    with pytest.raises(ssdlab.SsdlabError, match=None) as e:
        ssdlab.run(job or small_job, **settings)
    assert message in str(e.value)
    assert isinstance(e.value, ValueError)


def test_a_missing_job_file_names_it():
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run("/no/such/job.fio")
    assert "/no/such/job.fio" in str(e.value)


def _simulated(report: dict) -> dict:
    """The report without fio's wall-clock fields."""
    out = {k: v for k, v in report.items() if k not in ("time", "timestamp", "timestamp_ms")}
    return out


def test_python_and_the_cli_report_the_same(tmp_path, small_job, ssdlab_bin):
    path = tmp_path / "small.fio"
    path.write_text(small_job)
    cli = subprocess.run(
        [str(ssdlab_bin), "run", str(path), "--device", "mqsim-64g", "--scheduler", "kyber",
         "--occupancy", "30", "--seed", "9", "--output-format", "json"],
        check=True, capture_output=True, text=True,
    )
    py = ssdlab.run(path, device="mqsim-64g", scheduler="kyber", occupancy=30, seed=9)
    assert _simulated(json.loads(cli.stdout)) == _simulated(py.report)


def test_replay_matches_the_cli(root, ssdlab_bin):
    trace = root / "crates/ssdlab-trace/tests/data/sample.msr.csv"
    py = ssdlab.replay(trace, device="mqsim-64g", qd=4)
    cli = subprocess.run(
        [str(ssdlab_bin), "replay", str(trace), "--device", "mqsim-64g", "--qd", "4",
         "--output-format", "json"],
        check=True, capture_output=True, text=True,
    )
    assert _simulated(json.loads(cli.stdout)) == _simulated(py.report)
    assert py.jobs["ios"].sum() > 0
    with pytest.raises(ssdlab.SsdlabError, match="--qd"):
        ssdlab.replay(trace, device="mqsim-64g", qd=0)


def test_the_documented_k2_example_runs(tmp_path, root):
    import subprocess as sp
    import sys

    run = sp.run(
        [sys.executable, str(root / "python/examples/k2_sweep.py"), "--runtime", "1",
         "--out", str(tmp_path / "k2.png"), "--store", str(tmp_path / "store")],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    )
    assert "8 points computed" in run.stdout, run.stdout
    assert (tmp_path / "k2.png").stat().st_size > 10_000


def test_errors_survive_pickling_as_a_dask_worker_sends_them():
    import pickle

    e = pickle.loads(pickle.dumps(ssdlab.SsdlabError("f.fio:2: option 'rw': bad")))
    assert isinstance(e, ssdlab.SsdlabError) and str(e) == "f.fio:2: option 'rw': bad"


def test_a_point_without_a_job_or_a_number_is_refused():
    from ssdlab import _native

    with pytest.raises(ssdlab.SsdlabError, match="defines no job"):
        _native.resolve("{}")
    with pytest.raises(ssdlab.SsdlabError, match="occupancy"):
        ssdlab.run("[j]\nrw=read\n", occupancy=float("nan"))


def test_the_signatures_name_every_setting_with_its_type():
    import inspect

    settings = ("device", "scheduler", "occupancy", "precondition", "seed", "host", "gc",
                "device_overrides", "host_overrides")
    for fn in (ssdlab.run, ssdlab.replay):
        params = inspect.signature(fn).parameters
        for name in settings:
            p = params[name]
            assert p.kind is inspect.Parameter.KEYWORD_ONLY, (fn.__name__, name)
            assert p.annotation is not inspect.Parameter.empty, (fn.__name__, name)
            assert name in (fn.__doc__ or ""), (fn.__name__, name)
        assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for fn in (ssdlab.run, ssdlab.replay, ssdlab.rtflash_run, ssdlab.sweep):
        for name, p in list(inspect.signature(fn).parameters.items())[1:]:
            assert p.annotation is not inspect.Parameter.empty, (fn.__name__, name)
            assert f"{name} :" in (fn.__doc__ or "") or name in settings, (fn.__name__, name)
        for section in ("Parameters\n", "Returns\n", "Raises\n"):
            assert section in (fn.__doc__ or ""), (fn.__name__, section)


WITHOUT_DASK = """
import sys
for name in ("distributed", "dask", "tqdm"):
    sys.modules[name] = None  # import fails, as when the extra is not installed
import ssdlab
r = ssdlab.run(sys.argv[1], device="seed004")
assert list(r.jobs["job"]) == ["rt", "bg"], r.jobs
try:
    ssdlab.sweep({"job": sys.argv[1]}, progress=False)
except ImportError as e:
    print(e)
"""


def test_without_the_dask_extra_a_run_runs_and_a_sweep_says_what_to_install(small_job):
    import sys

    out = subprocess.run([sys.executable, "-c", WITHOUT_DASK, small_job],
                         check=True, capture_output=True, text=True).stdout
    assert "pip install 'ssdlab[dask]'" in out


def test_pip_install_without_the_extra_in_a_fresh_environment(small_job, tmp_path):
    """The wheel `make test` built, installed with pip into a new virtual
    environment with its own dependencies only: distributed is not there,
    `ssdlab.run` runs and `ssdlab.sweep` says how to install the extra."""
    import glob
    import venv

    wheels = glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "target", "wheels",
                                    "ssdlab-*.whl"))
    assert wheels, "no wheel in target/wheels: scripts/python-env.sh builds it"
    env_dir = tmp_path / "fresh"
    venv.create(env_dir, with_pip=True)
    py = str(env_dir / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "--quiet", wheels[0]], check=True)
    missing = subprocess.run([py, "-c", "import distributed"], capture_output=True)
    assert missing.returncode != 0, "the fresh environment has distributed"
    script = WITHOUT_DASK.replace('sys.modules[name] = None', 'pass')
    out = subprocess.run([py, "-c", script, small_job], check=True, capture_output=True,
                         text=True).stdout
    assert "pip install 'ssdlab[dask]'" in out


def test_every_native_entry_point_takes_one_json_request():
    from ssdlab import _native

    for fn in (_native.run_job, _native.replay, _native.rtflash_run, _native.resolve,
               _native.run_configs, _native.k2_points):
        with pytest.raises(ssdlab.SsdlabError, match="unknown field `nosuch`"):
            fn('{"nosuch": 1}')
        with pytest.raises(ssdlab.SsdlabError, match="expected"):
            fn("not json")
    assert _native.run_configs('{"configs": []}') == []
