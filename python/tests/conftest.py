"""Shared fixtures: the repository, the CLI binary, a small job, and one
two-worker LocalCluster for the whole session."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ssdlab._sweep import dask_client
from ssdlab.bench import TRIVIAL_JOB

ROOT = Path(__file__).resolve().parents[2]

#: A job that runs in milliseconds: a real-time reader beside a writer.
SMALL_JOB = TRIVIAL_JOB.replace("runtime=2ms", "runtime=5ms")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def ssdlab_bin() -> Path:
    """The CLI, built if it is not (cargo does nothing when it is fresh),
    with the Cargo profile in SSDLAB_CARGO_PROFILE (``make test``: the
    tests' test-release profile, which it has already built)."""
    given = os.environ.get("SSDLAB_BIN")
    if given:
        return Path(given)
    profile = os.environ.get("SSDLAB_CARGO_PROFILE", "release")
    subprocess.run(
        ["cargo", "build", "--profile", profile, "--quiet", "-p", "ssdlab-cli"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (target if target.is_absolute() else ROOT / target) / profile / "ssdlab"


@pytest.fixture()
def small_job() -> str:
    return SMALL_JOB


@pytest.fixture(scope="session")
def cluster_client():
    """A two-worker LocalCluster, made as ``sweep`` makes its own."""
    with dask_client(None, 2) as client:
        yield client
