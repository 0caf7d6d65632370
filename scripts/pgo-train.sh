#!/usr/bin/env bash
# The training set of the profile-guided build (scripts/build-pgo.sh): short
# runs that between them use every congestion control, both NIC models, PFC,
# P-PFC, loss recovery and the default recorders, run by the instrumented
# binary BIN in WORK_DIR. Of the runs issue 16's speed is measured on, the
# built-in benchmark scenarios and the 1 ms HPCC reference run are here; the
# 10 ms fat-tree runs and the k = 12 fat-tree are not (docs/performance-log.md,
# bab21ae, marks which numbers are which).
#
# Usage: scripts/pgo-train.sh BIN WORK_DIR
set -euo pipefail
bin=$1
work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
"$bin" bench --full --repeat 1
for s in fattree-fbhdp-30pct leafspine-websearch multi-bottleneck-dcqcn \
    multi-bottleneck-timely multi-bottleneck-rcc dctcp-2to1 \
    ppfc-incast-16to1-ppfc lossy-irn-incast lossy-gbn-incast; do
    "$bin" run "$root/scenarios/$s.toml" --out "$work/$s" -q
done
# The ns3-hpcc profile: two of the HPCC ns-3 simulator's reference runs.
for r in fat_fbhdp_l30_100G_1ms_seed2_hp fat_fbhdp_l30_100G_1ms_seed2_dcqcn; do
    "$bin" import-ns3 "$root/data/ns3-reference/$r/config.txt" --out "$work/$r.toml" 2>/dev/null
    "$bin" run "$work/$r.toml" --out "$work/$r" -q --fct-format ns3
done
