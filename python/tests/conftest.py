"""Shared fixtures: the repository, the CLI binary, a small job, and one
two-worker LocalCluster for the whole session."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A job that runs in milliseconds: a real-time reader beside a writer.
SMALL_JOB = """[global]
ioengine=libaio
direct=1
bs=4k
runtime=5ms
time_based=1
size=64m
[rt]
rw=randread
iodepth=1
[bg]
rw=randwrite
iodepth=8
"""


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def ssdlab_bin() -> Path:
    """The CLI, built if it is not (cargo does nothing when it is fresh)."""
    given = os.environ.get("SSDLAB_BIN")
    if given:
        return Path(given)
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "ssdlab-cli"], cwd=ROOT, check=True
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (target if target.is_absolute() else ROOT / target) / "release" / "ssdlab"


@pytest.fixture()
def small_job() -> str:
    return SMALL_JOB


@pytest.fixture(scope="session")
def cluster_client():
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster, Client(cluster) as client:
        yield client
