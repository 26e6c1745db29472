#!/usr/bin/env bash
# CI short fuzz run: every cargo-fuzz target for FUZZ_SECONDS (default 30)
# seconds, starting from its committed corpus (fuzz/corpus/<target>/, read
# only: new inputs go to a scratch directory) with its dictionary. Exits
# non-zero if any target crashes; the reproducer is left in
# fuzz/artifacts/<target>/. Needs the nightly toolchain (rustup); installs
# cargo-fuzz if it is missing. See docs/fuzzing.md.
set -euo pipefail

cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-30}"
targets=(fio_job trace preset sched_spec taskset postmark calibrate)

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

cargo +nightly fuzz build

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in "${targets[@]}"; do
    echo "== fuzz $t for ${secs}s"
    mkdir -p "$scratch/$t"
    # The fixed crashes' reproducers run first, with overflow checks on.
    extra=()
    if [[ -d "fuzz/regressions/$t" ]]; then extra=("fuzz/regressions/$t"); fi
    if ! cargo +nightly fuzz run "$t" "$scratch/$t" "fuzz/corpus/$t" "${extra[@]}" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        -dict="fuzz/dict/$t.dict" -print_final_stats=1; then
        failed+=("$t")
    fi
done

if ((${#failed[@]})); then
    echo "fuzz targets that crashed: ${failed[*]} (reproducers in fuzz/artifacts/)" >&2
    exit 1
fi
echo "all fuzz targets ran ${secs}s without a crash"
