#!/usr/bin/env python3
"""Predicts a parallel run's wall time on more cores (docs/parallel.md).

Usage: parallel-model.py MEASURED_2T.json COUNTS_P1.json [COUNTS_P2.json ...]

MEASURED_2T.json is the timing.json of a 2-thread run on a machine with a core
per thread; it gives the costs:
  c_w  seconds per event on a partition's critical path (critical_seconds /
       critical_events),
  c_x  seconds of serial hand-over per crossing packet (merge_seconds /
       crossed_packets),
  s    seconds per window outside the partitions' work and the merge
       (synchronisation and the dispatcher's loop),
  d    seconds of the one-at-a-time drain per event.
Each COUNTS_P.json is the timing.json of the same scenario run with P threads
on any machine: its event counts (critical_events, windows, crossed_packets,
ordered_events) do not depend on the machine, only on the partitions.

Predicted T(P) = c_w * critical_events(P) + c_x * crossed(P)
               + windows(P) * s * (1 + (P - 2) * g) + d * ordered_events(P),
with g = 0.5: each further worker adds half the measured per-window
synchronisation (a flat barrier; an assumption, not measured on 2 cores).
"""
import json
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def main():
    m = load(sys.argv[1])
    e = m["engine"]
    c_w = e["critical_seconds"] / max(e["critical_events"], 1)
    c_x = e["merge_seconds"] / max(e["crossed_packets"], 1)
    s = (e["windowed_seconds"] - e["critical_seconds"] - e["merge_seconds"]) / max(e["windows"], 1)
    d = e["ordered_seconds"] / max(e["ordered_events"], 1) if e["ordered_events"] else 0.0
    print(f"costs from {sys.argv[1]}: c_w {c_w * 1e9:.1f} ns/event, c_x {c_x * 1e9:.1f} ns/crossing, "
          f"s {s * 1e6:.1f} us/window, d {d * 1e9:.1f} ns/event")
    print(f"{'P':>4} {'events':>12} {'critical':>12} {'balance':>8} {'x/100ev':>7} {'windows':>8} "
          f"{'T pred s':>9} {'speedup':>8}")
    base = None
    for p in sys.argv[2:]:
        t = load(p)
        g = t["engine"]
        P = g["threads"]
        events = sum(g["part_events"])
        crit = g["critical_events"]
        t_pred = (c_w * crit + c_x * g["crossed_packets"] + g["windows"] * s * (1 + (P - 2) * 0.5)
                  + d * g["ordered_events"])
        if P == 1:
            t_pred = c_w * events
        if base is None:
            base = (c_w * events, P)
        bal = (events / P) / crit * (g["windows"] > 0) if crit else 1.0
        cross = 100.0 * g["crossed_packets"] / max(events, 1)
        print(f"{P:>4} {events:>12} {crit:>12} {bal:>8.2f} {cross:>7.1f} {g['windows']:>8} "
              f"{t_pred:>9.2f} {base[0] / t_pred:>8.2f}")


if __name__ == "__main__":
    main()
