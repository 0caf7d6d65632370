#!/usr/bin/env bash
# Soak benchmark (not run in CI; README.md, Development): the 320-host HPCC
# fat-tree at 50 % load (FB_Hadoop sizes) for 100 ms of arrivals, with every
# recorder on (queue.csv, link utilization and flow rates every 10 us, latency of
# all flows, queue histograms, the ns-3 files). Samples the process every second:
# resident memory (VmRSS, and the peak VmHWM), output bytes on disk, simulated
# time reached, and output bytes per simulated ms.
#
#   scripts/soak.sh [OUT_DIR] [extra rocesim run flags...]
#
# Prints one line a second and a closing summary; SOAK_DURATION (default "100ms")
# sets the arrivals, SOAK_LOAD (default 0.5) the load. Ctrl-C stops the run (its
# temporary files are removed) and still prints the summary.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ROCESIM:-$root/target/release/rocesim}
out=${1:-$root/runs/soak}
shift || true
duration=${SOAK_DURATION:-100ms}
load=${SOAK_LOAD:-0.5}
[ -x "$bin" ] || { echo "soak: build first: cargo build --release" >&2; exit 2; }
if [ -e "$out" ]; then echo "soak: $out exists; remove it or name another directory" >&2; exit 2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/soak.toml" <<EOF
name = "soak"
seed = 1
[topology]
kind = "hpcc-fat-tree"
[switch]
buffer = "32MB"
[cc]
algorithm = "hpcc"
[[workload.poisson]]
cdf = "fb-hadoop"
load = $load
duration = "$duration"
[output]
queue_interval = "10us"
link_utilization = "10us"
flow_rates = { flows = "all", interval = "10us" }
latency = { flows = "all" }
fct_format = "ns3"
EOF

"$bin" run "$work/soak.toml" --out "$out" --max-sim-time 10s --max-output 1000GB "$@" \
    >"$work/stdout" 2>"$work/stderr" &
pid=$!
trap 'kill -INT $pid 2>/dev/null' INT
start=$(date +%s)
peak=0
printf '%6s %10s %10s %12s %12s %14s\n' wall_s rss_MB hwm_MB out_MB sim_ms MB_per_sim_ms
while kill -0 $pid 2>/dev/null; do
    sleep 1
    [ -r /proc/$pid/status ] || break
    rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
    hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null)
    [ -n "$rss" ] && [ -n "$hwm" ] || break
    [ "$hwm" -gt "$peak" ] && peak=$hwm
    bytes=$(du -sb "$out" 2>/dev/null | cut -f1)
    # Simulated time reached: the last whole row of queue.csv (sampled every
    # 10 us) being written.
    q=$(ls "$out"/.queue.csv.*.tmp 2>/dev/null | head -1)
    sim=0
    [ -n "$q" ] && sim=$(tail -c 4096 "$q" 2>/dev/null | tail -n 2 | head -n 1 | cut -d, -f1)
    awk -v w=$(( $(date +%s) - start )) -v r="$rss" -v h="$hwm" -v b="${bytes:-0}" -v t="${sim:-0}" \
        'BEGIN { s = t / 1e6; printf "%6d %10.1f %10.1f %12.1f %12.3f %14s\n", w, r / 1024, h / 1024, b / 1e6, s, (s > 0 ? sprintf("%.2f", b / 1e6 / s) : "-") }'
done
wait $pid
rc=$?
echo "soak: exit $rc after $(( $(date +%s) - start )) s; peak RSS $(( peak / 1024 )) MB"
tail -n 3 "$work/stderr" | tr '\r' '\n' | grep -v '^$' | tail -n 2
[ -d "$out" ] && du -sh "$out"/* 2>/dev/null
exit $rc
