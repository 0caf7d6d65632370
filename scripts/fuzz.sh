#!/usr/bin/env bash
# Fuzzes every input parser for a bounded time each (issue 17; examples/fuzz.rs).
# Prints per target: executions, seconds, failures. A failing input is saved
# under target/fuzz-crashes/TARGET/ (replay: cargo run --release --example fuzz
# -- TARGET --replay FILE) and should become a regression test.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 30)] [TARGET...]
# Exit 0 when no target failed, 1 otherwise.
set -uo pipefail
secs=${1:-30}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --example fuzz --quiet || exit 1
bin=target/release/examples/fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <("$bin" --list)
fi
status=0
for t in "${targets[@]}"; do
    if ! "$bin" "$t" "$secs"; then
        echo "fuzz: $t FAILED" >&2
        status=1
    fi
done
exit $status
