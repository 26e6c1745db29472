"""``ssdlab.rtflash_run``: a real-time task set from Python, the same
object as ``ssdlab rtflash run --json``, on the chip model and on the SSD
model; bad input raises the CLI's message."""

from __future__ import annotations

import json
import subprocess

import pytest

import ssdlab


def test_the_case_study_meets_its_deadlines_on_both_models(root):
    case = root / "examples" / "rtflash" / "case-study.toml"
    for model in ("chips", "ssd"):
        r = ssdlab.rtflash_run(case, model=model, duration=2)
        assert isinstance(r, ssdlab.RtflashResult) and isinstance(r, ssdlab.Result)
        assert r.figures["model"] == model and r.figures["schedulable"]
        assert r.figures["gc_copied_pages"] == r.report["gc_copied_pages"]
        assert list(r.jobs["job"]) == ["big1", "big2", "small1", "small2"]
        assert list(r.jobs.columns) == ["job", *ssdlab._rtflash.TASK_FIGURES]
        assert (r.jobs["jobs"] >= 16).all()
        assert (r.jobs["read_requests"] >= r.jobs["jobs"]).all()
        assert (r.jobs[["read_misses", "write_misses"]] == 0).all().all()
        assert (r.jobs["max_response_us"] <= r.jobs["deadline_us"]).all()
        assert r.figures["nrt"]["mb_per_s"] > 0
        assert "analysis: schedulable" in r.text and "big1" in r.text
        assert "schedulable=True" in repr(r)


def test_python_and_the_cli_give_the_same_object(root, ssdlab_bin):
    case = root / "examples" / "rtflash" / "case-study.toml"
    args = ["--approach", "full-isolation", "--nrt", "background", "--chip-order", "fifo",
            "--model", "ssd", "--duration", "2", "--seed", "3"]
    cli = subprocess.run([str(ssdlab_bin), "rtflash", "run", str(case), *args, "--json"],
                         check=True, capture_output=True, text=True).stdout
    py = ssdlab.rtflash_run(case, approach="full-isolation", nrt="background",
                            chip_order="fifo", model="ssd", duration=2, seed=3)
    assert py.report == json.loads(cli)
    assert list(py.jobs["job"]) == [t["name"] for t in py.report["tasks"]]
    first = py.report["tasks"][0]
    assert py.jobs.iloc[0]["max_response_us"] == first["max_response_ns"] / 1e3
    assert py.jobs.iloc[0]["write_requests"] == first["write_requests"]


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"approach": "global", "chip_order": "fifo", "duration": 1.5, "seed": 2},
        {"approach": "full-isolation", "nrt": "background", "model": "ssd", "duration": 1},
    ],
)
def test_the_text_is_the_clis_text_report(root, ssdlab_bin, settings):
    case = str(root / "examples" / "rtflash" / "case-study.toml")
    settings = {"duration": 1, **settings}
    args = [a for k, v in settings.items() for a in (f"--{k.replace('_', '-')}", str(v))]
    cli = subprocess.run([str(ssdlab_bin), "rtflash", "run", case, *args],
                         check=True, capture_output=True, text=True).stdout
    py = ssdlab.rtflash_run(case, **settings)
    assert py.text == cli


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"approach": "nosuch"}, "approach"),
        ({"nrt": "idle"}, "nrt: 'idle' is not one of tbs, background"),
        ({"model": "disk"}, "model"),
        ({"duration": 0}, "duration"),
    ],
)
def test_bad_settings_raise_the_clis_message(root, settings, message):
    case = root / "examples" / "rtflash" / "case-study.toml"
    with pytest.raises(ssdlab.SsdlabError, match=message):
        ssdlab.rtflash_run(case, **settings)


def test_the_ssd_model_needs_a_preset_and_a_missing_file_is_named(root, tmp_path):
    with pytest.raises(ssdlab.SsdlabError, match="preset"):
        ssdlab.rtflash_run(root / "examples" / "rtflash" / "read-mostly.toml", model="ssd")
    with pytest.raises(ssdlab.SsdlabError, match="nosuch.toml"):
        ssdlab.rtflash_run(tmp_path / "nosuch.toml")
