#!/usr/bin/env bash
# Runs a fixed set of scenarios with two rocesim binaries and compares every
# output file byte for byte (summary.json without its wall-clock fields).
# Used to show that a refactoring changes no result.
#
# Usage: scripts/compare-outputs.sh REF_BIN NEW_BIN [WORK_DIR]
# NEW_ARGS (environment) is added to the new binary's runs, e.g.
# NEW_ARGS="--threads 3" compares a parallel run with a sequential one.
# NEW_PREFIX (environment) goes before the new binary, e.g.
# NEW_PREFIX="mpirun --oversubscribe -np 2" NEW_ARGS=--mpi compares MPI ranks.
# ONLY (environment), an extended regular expression, keeps the cases whose
# name matches it, e.g. ONLY='^ns3-' for the imported ns-3 reference runs.
# REF_FROM (environment), the WORK_DIR of an earlier comparison with the same
# REF_BIN: its reference runs (and imported scenarios) are used instead of
# running REF_BIN again.
# SAME_EVENTS=0 (environment) leaves out summary.json's count of events
# handled, for a change that skips events that do nothing.
# Exit 0 when every file is identical, 1 otherwise (the differing files are listed).
set -uo pipefail
ref=$1
new=$2
work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/scen"
# Where the reference runs and the imported scenarios are (or go).
from=${REF_FROM:-$work}
refs=$from/ref

cases=()
for f in "$root"/scenarios/*.toml; do
    cases+=("$(basename "$f" .toml)|$f|")
done
# Every recorder on for one fabric run and one incast.
cases+=("recorders-fattree|$root/scenarios/fattree-fbhdp-30pct.toml|--set output.link_utilization=\"10us\" --set output.flow_rates.flows=[0,1,2,3]")
cases+=("recorders-incast|$root/scenarios/incast-16to1-dcqcn.toml|--set output.link_utilization=\"5us\" --set output.flow_rates.flows=\"all\"")
# The same with the streamed tables in Parquet (output.format).
cases+=("recorders-parquet|$root/scenarios/incast-16to1-dcqcn.toml|--set output.link_utilization=\"5us\" --set output.flow_rates.flows=\"all\" --set output.format=\"parquet\"")
# Collectives and dependency graphs (docs/ai-workloads.md): three jobs with
# background traffic, a public Chakra trace, and the 64-rank ring all-reduce at 16 MB.
cases+=("ai-jobs|$root/scenarios/ai/jobs-k4-background.toml|")
cases+=("ai-chakra|$root/scenarios/ai/chakra-ring-8.toml|")
cases+=("ai-ring64|$root/scenarios/ai/ring-allreduce-64.toml|--set 'workload.collective[0].size=\"16MB\"'")
# The HPCC ns-3 simulator's reference runs, imported.
for c in "$root"/data/ns3-reference/*/config.txt; do
    name=$(basename "$(dirname "$c")")
    [ -z "${REF_FROM:-}" ] && "$ref" import-ns3 "$c" --out "$from/scen/$name.toml" 2>/dev/null
    cases+=("ns3-$name|$from/scen/$name.toml|--fct-format ns3")
done

# timing.json measures the machine; older binaries kept its keys in summary.json.
# Older binaries also kept the engine's peaks (now in timing.json) in summary.json.
strip() {
    local counted='wall_seconds|events_per_second|packets_per_second'
    [ "${SAME_EVENTS:-1}" = 0 ] && counted="$counted|events"
    sed -E "s/\"($counted)\": [0-9.e+-]+/\"\\1\": X/g; /\"peak_(packets_in_flight|pending_events)\"/d" "$1"
}

fail=0
ran=0
for c in "${cases[@]}"; do
    IFS='|' read -r name file extra <<<"$c"
    if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then
        continue
    fi
    ran=$((ran + 1))
    for side in ref new; do
        [ $side = ref ] && [ -n "${REF_FROM:-}" ] && continue
        bin=$ref; more=""; prefix=""
        [ $side = new ] && bin=$new && more=${NEW_ARGS:-} && prefix=${NEW_PREFIX:-}
        rm -rf "$work/$side/$name"
        eval "$prefix \"$bin\" run \"$file\" --out \"$work/$side/$name\" -q $extra $more" >"$work/$side-$name.log" 2>&1
        echo $? >"$work/$side/$name.rc" 2>/dev/null || { mkdir -p "$work/$side"; echo $? >"$work/$side/$name.rc"; }
    done
    if ! cmp -s "$refs/$name.rc" "$work/new/$name.rc"; then
        echo "DIFF $name: exit codes $(cat "$refs/$name.rc") vs $(cat "$work/new/$name.rc")"
        fail=1
        continue
    fi
    for f in $(cd "$refs/$name" 2>/dev/null && find . -type f | sort); do
        a="$refs/$name/$f"
        b="$work/new/$name/$f"
        if [ "$(basename "$f")" = timing.json ]; then
            continue
        elif [ "$(basename "$f")" = summary.json ]; then
            if ! diff -q <(strip "$a") <(strip "$b") >/dev/null; then echo "DIFF $name/$f"; fail=1; fi
        elif ! cmp -s "$a" "$b"; then
            echo "DIFF $name/$f"
            fail=1
        fi
    done
    extra_files=$(diff <(cd "$refs/$name" 2>/dev/null && find . -type f ! -name timing.json | sort) <(cd "$work/new/$name" 2>/dev/null && find . -type f ! -name timing.json | sort))
    if [ -n "$extra_files" ]; then echo "DIFF $name: file lists differ: $extra_files"; fail=1; fi
done
if [ $ran = 0 ]; then
    echo "no case matches ONLY=$ONLY"
    exit 1
fi
[ $fail = 0 ] && echo "identical: $ran runs"
exit $fail
