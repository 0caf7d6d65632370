#!/usr/bin/env bash
# The check of the profile-guided build (scripts/build-pgo.sh): it builds,
# and the optimized binary gives the same bytes as the plain release build
# REF_BIN on the 320-host fat-tree (with every recorder too), the HPCC incast
# and the six imported ns-3 reference runs. Without debug info (nobody
# profiles this binary), which builds faster; the code is the same. About 5
# minutes; not in .ci/run, which it took to 27 of its 30 minutes.
#
# Usage: scripts/pgo-ci-check.sh REF_BIN WORK_DIR
set -euo pipefail
ref=$1
work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
pgo=$(CARGO_PROFILE_RELEASE_DEBUG=0 bash "$root/scripts/build-pgo.sh" | tail -1)
bench=$("$pgo" bench --only incast-16to1-hpcc)
echo "$bench"
grep -q "^build: release, profile-guided" <<<"$bench" || {
    echo "$pgo does not report a profile-guided build"
    exit 1
}
ONLY='^(ns3-|fattree-fbhdp-30pct$|incast-16to1-hpcc$|recorders-fattree$)' \
    bash "$root/scripts/compare-outputs.sh" "$ref" "$pgo" "$work"
