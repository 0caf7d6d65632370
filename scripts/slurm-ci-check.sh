#!/usr/bin/env bash
# Runs one sweep twice, locally and through a real (single-node) Slurm cluster,
# and checks that both give the same bytes.
#
# Usage: scripts/slurm-ci-check.sh ROCESIM_BIN SWEEP.toml [WORK_DIR]
#
#   1. rocesim sweep SWEEP --out WORK/local --jobs 2
#   2. scripts/slurm-local.sh start
#   3. rocesim sweep SWEEP --slurm --out WORK/slurm      (writes WORK/slurm/sweep.sbatch)
#   4. scripts/slurm-local.sh run WORK/slurm/sweep.sbatch
#   5. rocesim sweep collect WORK/slurm
#   6. sweep.csv and every point's files byte-identical (except $SKIP_FILES)
#   7. scripts/slurm-local.sh stop (also on failure, when this script started it)
#
# Exit 0 when identical, non-zero otherwise. Needs root (see slurm-local.sh).
# SLURM_CI_MASK_WALL=1 compares summary.json with wall_seconds,
# events_per_second and packets_per_second masked (default: byte for byte).
set -euo pipefail

[ $# -ge 2 ] || {
    echo "usage: $0 ROCESIM_BIN SWEEP.toml [WORK_DIR]" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "$1")
sweep=$(realpath "$2")
work=${3:-$(mktemp -d /tmp/rocesim-slurm-check.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")
local_dir=$work/local
slurm_dir=$work/slurm
# Files in a point's directory that may differ between two runs (wall-clock).
SKIP_FILES=(timing.json)
slurm_local=$here/slurm-local.sh

say() { echo "slurm-ci-check: $*" >&2; }

# The batch script runs `rocesim`: make this binary the one it finds, in case
# the script names it by name rather than by absolute path.
PATH="$(dirname "$bin"):$PATH"
export PATH

started=0
cleanup() {
    local rc=$?
    if [ $started = 1 ]; then
        bash "$slurm_local" stop || true
    fi
    if [ $rc != 0 ]; then
        say "FAILED (exit $rc); work directory kept: $work"
        # The array tasks' own output, when a task failed.
        find "$slurm_dir" -maxdepth 2 -name '*.out' 2>/dev/null | sort | head -n 20 |
            while read -r f; do
                echo "----- $f" >&2
                tail -n 20 "$f" >&2
            done || true
    fi
    exit $rc
}
trap cleanup EXIT

rm -rf "$local_dir" "$slurm_dir"

# ---- the rocesim-specific lines (adjust here if the CLI changes) ----------
say "local sweep -> $local_dir"
t0=$SECONDS
"$bin" sweep "$sweep" --out "$local_dir" --jobs 2
say "local sweep took $((SECONDS - t0))s"

# Leave a cluster running if it was up before this script (someone else's).
bash "$slurm_local" is-up || started=1
bash "$slurm_local" start

say "writing the sbatch script -> $slurm_dir/sweep.sbatch"
"$bin" sweep "$sweep" --slurm --out "$slurm_dir"
[ -f "$slurm_dir/sweep.sbatch" ] || {
    say "no $slurm_dir/sweep.sbatch"
    exit 1
}
t0=$SECONDS
(cd "$slurm_dir" && bash "$slurm_local" run "$slurm_dir/sweep.sbatch")
say "Slurm job array took $((SECONDS - t0))s"
"$bin" sweep collect "$slurm_dir"
# ---------------------------------------------------------------------------

# ---- compare ----
fail=0
if cmp "$local_dir/sweep.csv" "$slurm_dir/sweep.csv"; then
    say "sweep.csv identical ($(($(wc -l <"$local_dir/sweep.csv") - 1)) point rows)"
else
    diff "$local_dir/sweep.csv" "$slurm_dir/sweep.csv" | head -n 20 >&2 || true
    fail=1
fi

# A point is a directory holding a scenario.toml.
points() { (cd "$1" && find . -mindepth 2 -maxdepth 2 -name scenario.toml -printf '%h\n' | sed 's|^\./||' | sort); }
points_a=$(points "$local_dir")
points_b=$(points "$slurm_dir")
if [ "$points_a" != "$points_b" ]; then
    say "the two sweeps have different points:"
    diff <(echo "$points_a") <(echo "$points_b") >&2 || true
    fail=1
fi
[ -n "$points_a" ] || {
    say "no point directories (*/scenario.toml) in $local_dir"
    fail=1
}

WALL_FIELDS="wall_seconds|events_per_second|packets_per_second"
strip_wall() { sed -E "s/\"($WALL_FIELDS)\": [0-9.e+-]+/\"\1\": X/" "$1"; }
excl=()
for f in "${SKIP_FILES[@]}"; do excl+=(--exclude="$f"); done
# SLURM_CI_MASK_WALL=1: compare summary.json with its wall-clock fields masked,
# for as long as a sweep's points still carry them (see the hint below).
mask=${SLURM_CI_MASK_WALL:-0}
[ "$mask" = 1 ] && excl+=(--exclude=summary.json)
same_point() {
    diff -rq "${excl[@]}" "$local_dir/$1" "$slurm_dir/$1" >&2 || return 1
    [ "$mask" = 1 ] || return 0
    local a=$local_dir/$1/summary.json b=$slurm_dir/$1/summary.json
    [ -f "$a" ] || [ -f "$b" ] || return 0
    cmp <(strip_wall "$a") <(strip_wall "$b") >&2 || {
        say "$1/summary.json differs (wall-clock fields masked)"
        return 1
    }
}
n=0
for p in $points_a; do
    [ -d "$slurm_dir/$p" ] || continue
    if same_point "$p"; then
        n=$((n + 1))
    else
        fail=1
        # summary.json of `rocesim run` has wall-clock fields; a sweep must
        # keep them out of its point files (e.g. in timing.json) for this check.
        a=$local_dir/$p/summary.json
        b=$slurm_dir/$p/summary.json
        if [ -f "$a" ] && [ -f "$b" ] && ! cmp -s "$a" "$b" &&
            cmp -s <(strip_wall "$a") <(strip_wall "$b"); then
            say "$p/summary.json differs only in wall-clock fields ($WALL_FIELDS);" \
                "move them to timing.json or set SLURM_CI_MASK_WALL=1"
        fi
    fi
done
say "$n point directories identical (all files but ${SKIP_FILES[*]}$([ "$mask" = 1 ] && echo "; summary.json with wall-clock fields masked"))"

if [ $fail != 0 ]; then
    say "local and Slurm results differ"
    exit 1
fi
if [ "$mask" = 1 ]; then
    say "local and Slurm sweeps give identical bytes (but summary.json's wall-clock fields)"
else
    say "local and Slurm sweeps give identical bytes"
fi
