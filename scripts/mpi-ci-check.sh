#!/usr/bin/env bash
# One run across MPI ranks (docs/parallel.md) gives the same bytes as a run on
# one thread. Installs OpenMPI and libclang (Debian's packages), builds rocesim
# with the `mpi` feature (its binary kept in WORK_DIR), lints it, then compares:
#   - every shipped scenario, the all-recorder runs and the imported ns-3
#     reference runs on 2 ranks (scripts/compare-outputs.sh);
#   - the fat-tree, the deadlock ring, three AI jobs and the all-recorder fat-tree on 4 ranks
#     (oversubscribed: this machine has 2 cores).
# Usage: scripts/mpi-ci-check.sh REF_BIN WORK_DIR
# REF_FROM (environment): an earlier scripts/compare-outputs.sh WORK_DIR with
# REF_BIN whose sequential runs the 2-rank comparison uses.
set -euo pipefail
ref=$1
work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""
[ "$(id -u)" != 0 ] && sudo=sudo
if ! command -v mpirun >/dev/null || ! dpkg -s libclang-dev libopenmpi-dev >/dev/null 2>&1; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi
cd "$root"
mkdir -p "$work"
# The MPI build shares target/ with the plain one (the dependencies it shares
# are built once), so it replaces target/release/rocesim: keep REF_BIN aside
# and put it back after.
cp "$ref" "$work/rocesim-ref"
cargo clippy --all-targets --features mpi -- -D warnings
# The packet wire format's tests run in every build's `cargo test`
# (src/sim/parallel/wire.rs is built without MPI too).
cargo build --release --features mpi
cp target/release/rocesim "$work/rocesim-mpi"
# Cargo hard-links target/release/rocesim to its build: unlink before copying
# back, so that the MPI build itself is left as it is.
rm -f "$ref"
cp "$work/rocesim-ref" "$ref"
ref=$work/rocesim-ref
bin=$work/rocesim-mpi
# OpenMPI refuses root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NEW_PREFIX="mpirun --oversubscribe -np 2" NEW_ARGS=--mpi \
    bash scripts/compare-outputs.sh "$ref" "$bin" "$work/np2"
fail=0
strip() { sed -E 's/"(wall_seconds|events_per_second|packets_per_second)": [0-9.e+-]+/"\1": X/' "$1"; }
for c in "fattree|scenarios/fattree-fbhdp-30pct.toml|" \
         "ring|scenarios/pfc-deadlock-ring.toml|" \
         "ai-jobs|scenarios/ai/jobs-k4-background.toml|" \
         "recorders|scenarios/fattree-fbhdp-30pct.toml|--set output.link_utilization=\"10us\" --set output.flow_rates.flows=[0,1,2,3] --set output.queue_interval=\"1us\""; do
    IFS='|' read -r name file extra <<<"$c"
    rm -rf "$work/np4/$name" "$work/np4/$name.ref"
    mkdir -p "$work/np4"
    set +e
    eval "\"$ref\" run $file --out \"$work/np4/$name.ref\" -q $extra" >/dev/null 2>&1
    a=$?
    eval "mpirun --oversubscribe -np 4 $bin run $file --out \"$work/np4/$name\" -q --mpi $extra" >"$work/np4/$name.log" 2>&1
    b=$?
    set -e
    if [ $a != $b ]; then echo "DIFF np4 $name: exit codes $a vs $b"; fail=1; continue; fi
    for f in $(cd "$work/np4/$name.ref" && ls); do
        [ "$f" = timing.json ] && continue
        if [ "$f" = summary.json ]; then
            diff -q <(strip "$work/np4/$name.ref/$f") <(strip "$work/np4/$name/$f") >/dev/null || { echo "DIFF np4 $name/$f"; fail=1; }
        elif ! cmp -s "$work/np4/$name.ref/$f" "$work/np4/$name/$f"; then
            echo "DIFF np4 $name/$f"; fail=1
        fi
    done
done
[ $fail = 0 ] && echo "identical on 4 ranks: 4 runs"
exit $fail
