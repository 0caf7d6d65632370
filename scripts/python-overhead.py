"""Overhead of rocesim.run() against `rocesim run` for the same scenario.

    target/python-venv/bin/python scripts/python-overhead.py [SCENARIO] [--repeat N] [--set k=v]...

Alternates CLI and Python runs (release builds of both: `cargo build --release`,
`pip install ./python`) and prints the median wall time of each: the CLI as a
whole process (`-q`, output directory reused), the Python call inside a process
that has imported rocesim once. docs/python.md quotes the numbers.
"""

import argparse
import pathlib
import statistics
import subprocess
import tempfile
import time

import rocesim

ROOT = pathlib.Path(__file__).resolve().parents[1]

p = argparse.ArgumentParser()
p.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios/incast-16to1-hpcc.toml"))
p.add_argument("--repeat", type=int, default=9)
p.add_argument("--set", action="append", default=[])
p.add_argument("--cli", default=str(ROOT / "target/release/rocesim"))
a = p.parse_args()

overrides = dict(s.split("=", 1) for s in a.set)
sets = [x for s in a.set for x in ("--set", s)]
tmp = pathlib.Path(tempfile.mkdtemp(prefix="rocesim-overhead-"))
cli, py, sim_cli, sim_py = [], [], [], []
for i in range(a.repeat + 1):
    t = time.perf_counter()
    subprocess.run([a.cli, "run", a.scenario, "-q", "--out", str(tmp / "cli"), *sets], check=True)
    dt_cli = time.perf_counter() - t
    t = time.perf_counter()
    r = rocesim.run(a.scenario, overrides=overrides, out=tmp / "py")
    dt_py = time.perf_counter() - t
    if i == 0:
        continue  # warm-up: page cache, first import of pandas
    cli.append(dt_cli)
    py.append(dt_py)
    sim_py.append(r.summary["wall_seconds"])
    sim_cli.append(rocesim.load(tmp / "cli").summary["wall_seconds"])

m_cli, m_py = statistics.median(cli), statistics.median(py)
print(f"{a.scenario} {' '.join(a.set)}: {a.repeat} runs each")
print(f"  rocesim run (process)   median {m_cli:.4f} s   simulation {statistics.median(sim_cli):.4f} s")
print(f"  rocesim.run() (call)    median {m_py:.4f} s   simulation {statistics.median(sim_py):.4f} s")
print(f"  overhead                {100 * (m_py - m_cli) / m_cli:+.1f} %")
