#!/usr/bin/env bash
# Builds rocesim with profile-guided optimization (docs/performance.md,
# "Profile-guided build"): an instrumented build runs a training set of
# built-in scenarios (scripts/pgo-train.sh), then the compiler lays out and
# inlines the code by the branch and call counts it measured. The results are
# the same bytes as `cargo build --release` gives (scripts/pgo-ci-check.sh
# checks it); the run is faster. Installs rustup's llvm-tools component and
# cargo-pgo if missing.
#
# Usage: scripts/build-pgo.sh    (prints the optimized binary's path last)
set -euo pipefail
cd "$(dirname "$0")/.."
rustup component add llvm-tools >/dev/null
command -v cargo-pgo >/dev/null || cargo install cargo-pgo --locked --version 0.3.0
host=$(rustc -vV | sed -n 's/^host: //p')
# cargo-pgo builds for an explicit target, so its binaries live apart from
# target/release.
bin=target/$host/release/rocesim
cargo pgo build -- --bin rocesim >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash scripts/pgo-train.sh "$bin" "$work" >&2
cargo pgo optimize -- --bin rocesim >&2
"$bin" --version >&2
echo "$PWD/$bin"
