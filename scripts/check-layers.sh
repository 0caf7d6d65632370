#!/usr/bin/env bash
# Checks that the crate's top-level modules form one-way layers with no cycles,
# that src/scenario and src/sim have no file-level cycles, and that code outside
# src/scenario names only the scenario facade. The layers, the allow-list and the
# facade are data in tests/integration/module_layers.rs.
#
#   scripts/check-layers.sh         this tree
#   scripts/check-layers.sh DIR     another tree's src/ (e.g. from `git archive`)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
    ROCESIM_LAYERS_SRC="$(cd "$1" && pwd)"
    export ROCESIM_LAYERS_SRC
fi
exec cargo test --release --test integration module_layers -- --nocapture --test-threads 1
