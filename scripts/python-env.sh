#!/usr/bin/env bash
# Makes the project-local Python environment (.venv): the pinned test and
# runtime packages from PyPI, then the ssdlab wheel built from this
# repository by maturin (the release profile, or SSDLAB_CARGO_PROFILE:
# `make test` builds its wheel with the tests' test-release profile, sharing
# what cargo built for them in target/) and installed into it. Re-running
# it rebuilds and reinstalls the wheel only.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${SSDLAB_VENV:-.venv}
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
stamp="$venv/.requirements-installed"
if [ ! -f "$stamp" ] || [ python/requirements-test.txt -nt "$stamp" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r python/requirements-test.txt
  touch "$stamp"
fi
rm -rf target/wheels
"$venv/bin/maturin" build --profile "${SSDLAB_CARGO_PROFILE:-release}" --quiet --out target/wheels
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps target/wheels/ssdlab-*.whl
