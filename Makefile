# The README's test command: `make test` runs every test, cargo's and then
# pytest's (against the wheel built from this tree into the project's .venv by
# scripts/python-env.sh), and fails if either failed.
.PHONY: test test-rust test-python python-env

test:
	@status=0; $(MAKE) --no-print-directory test-rust || status=1; \
	$(MAKE) --no-print-directory test-python || status=1; exit $$status

# The test-release profile (Cargo.toml) is release without link-time
# optimisation or debug info: the same figures, minutes less linking.
test-rust:
	cargo test --workspace --profile test-release

python-env:
	SSDLAB_CARGO_PROFILE=test-release scripts/python-env.sh

# mypy --strict on the package, then pytest; the target fails if either does.
test-python: python-env
	@status=0; .venv/bin/python -m mypy --strict --cache-dir=/dev/null python/ssdlab || status=1; \
	SSDLAB_CARGO_PROFILE=test-release .venv/bin/python -m pytest python/tests -q -p no:cacheprovider || status=1; \
	exit $$status
