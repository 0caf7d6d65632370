#!/usr/bin/env python3
"""Predicts a parallel run's wall time on more cores (docs/parallel.md).

Usage: parallel-model.py [--flat] MEASURED_2T.json[,MORE_2T.json...] [SYNC_2T.json] COUNTS.json...

MEASURED_2T.json: timing.json of the scenario run on 2 threads, on a machine
with a core per thread. It gives the costs:
  c_w  seconds per event on the critical path (critical_seconds / critical_events)
  m    seconds of serial merge per window (merge_seconds / windows): what the
       dispatcher does between windows on its own (notes that cannot wait for
       the next window; the packets crossing partitions are handed over on the
       partitions' threads). It is serial, so a 2-thread run with as many
       partitions as the predicted run measures it directly: give such runs
       after a comma (MORE_2T.json, run.partitions = 16, 64, ...); each
       prediction uses the one with its number of partitions, or the nearest
  s    seconds per window outside the partitions' work and the merge: the
       dispatcher's serial work (samplers such as queue.csv, the previous
       window's notes it applies before it takes a partition, the survey of
       the partitions' heads) and one worker's synchronisation; like m, from
       the run with the predicted run's number of partitions, or the nearest
  h    seconds per hand-over level: the hand-overs' own cost measured in the
       run (handover_seconds / handovers in timing.json: from a window's
       posting to the woken thread seeing it, and from its finishing to its
       waker seeing it done)
  d    seconds per event of the one-at-a-time drain
SYNC_2T.json, only for a binary that did not measure the hand-overs (before
handover_seconds): timing.json of a 2-thread run without samplers; its per-window
time outside work and merge, less what the notes the dispatcher applies added
to the windows (filing_exposed_seconds: with a partition a thread they come
after the dispatcher's own, and lengthen a window only when that partition
and the notes take longer than the longest other thread), is the
synchronisation of one hand-over level, used as h (an upper bound: it holds
the dispatcher's serial work too). The hand-over is a binomial tree
(src/sim/parallel/crew.rs): a window reaches the last of P partitions after
ceil(log2 P) hand-overs and comes back through as many, so each further level
is assumed to add h (--flat: each further worker adds h, the dispatcher
handing a window to each in turn, as before the tree).
COUNTS.json: timing.json of the scenario on P threads (and any number of
partitions, run.partitions), on any machine: its counts (events,
critical_events = sum over windows of how long, in events, the threads took
to run the window's partitions taking them from the pool, crossed_packets,
windows, ordered_events) do not depend on the machine.

T(P) = c_w * critical_events(P)
       + windows * (m(partitions) + s(partitions) + (L(P) - 1) * h) + d * ordered_events(P)
L(P) = ceil(log2 P) (the tree), or P - 1 (--flat)
T(1) = c_w * events + d * 0 + windows * (s(1) - h)   (the same per-event cost)
"""
import json
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def outside(e):
    return (e["windowed_seconds"] - e["critical_seconds"] - e["merge_seconds"]) / max(e["windows"], 1)


def sync(e):
    """One hand-over level a window: the time outside the partitions' work
    and the merge, less what the notes the dispatcher applies added to the
    windows (once a window, however many levels; filing_exposed_seconds,
    or all of filing_seconds from a binary that did not measure it)."""
    filed = e.get("filing_exposed_seconds", e.get("filing_seconds", 0.0))
    return outside(e) - filed / max(e["windows"], 1)


def handover(e):
    """One hand-over level's own cost, if the run measured it."""
    if e.get("handovers"):
        return e["handover_seconds"] / e["handovers"]
    return None


def levels(p, flat):
    """Hand-overs on a window's way to the last partition."""
    return p - 1 if flat else (p - 1).bit_length()


def main():
    flat = "--flat" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--flat"]
    costs = [load(c)["engine"] for c in args[0].split(",")]
    e = costs[0]
    h = handover(e)
    if h is None:
        h = sync(load(args[1])["engine"])
        counts = args[2:]
        what = "sigma (no hand-over measured)"
    else:
        counts = args[1:]
        what = "h (measured hand-over)"
    c_w = e["critical_seconds"] / max(e["critical_events"], 1)
    d = e["ordered_seconds"] / max(e["ordered_events"], 1)
    merge = {c.get("partitions", c["threads"]): c["merge_seconds"] / max(c["windows"], 1) for c in costs}
    serial = {c.get("partitions", c["threads"]): outside(c) for c in costs}
    nearest = lambda parts: min(merge, key=lambda k: (abs(k - parts), k))
    print(f"c_w {c_w * 1e9:.0f} ns/event, {what} {h * 1e6:.2f} us/level, "
          f"d {d * 1e9:.0f} ns/event, merge "
          + ", ".join(f"{m * 1e6:.1f} us/window at {k}" for k, m in sorted(merge.items()))
          + ", s " + ", ".join(f"{v * 1e6:.1f} us/window at {k}" for k, v in sorted(serial.items())))
    print(f"{'P':>4} {'parts':>5} {'events':>11} {'critical':>11} {'balance':>7} {'cross/ev':>8} "
          f"{'windows':>7} {'T pred s':>9} {'speed-up':>8}")
    t1 = None
    for p in counts:
        g = load(p)["engine"]
        P = g["threads"]
        parts = len(g["part_events"])
        events = sum(g["part_events"])
        if P == 1:
            t = c_w * events + e["windows"] * max(serial[nearest(1)] - h, 0.0)
            t1 = t
            print(f"{P:>4} {parts:>5} {events:>11} {events:>11} {1.0:>7.2f} {0.0:>8.3f} {0:>7} "
                  f"{t:>9.2f} {1.0:>8.2f}")
            continue
        crit = g["critical_events"]
        k = nearest(parts)
        t = (c_w * crit
             + g["windows"] * (merge[k] + serial[k] + (levels(P, flat) - 1) * h)
             + d * g["ordered_events"])
        bal = events / P / crit if crit else 1.0
        cross = g["crossed_packets"] / max(events, 1)
        print(f"{P:>4} {parts:>5} {events:>11} {crit:>11} {bal:>7.2f} {cross:>8.3f} {g['windows']:>7} "
              f"{t:>9.2f} {t1 / t if t1 else float('nan'):>8.2f}")


if __name__ == "__main__":
    main()
