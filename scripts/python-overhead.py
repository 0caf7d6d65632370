"""Overhead of rocesim.run() against `rocesim run` for the same scenario.

    target/python-venv/bin/python scripts/python-overhead.py [SCENARIO] [--repeat N] [--set k=v]...

Alternates CLI and Python runs (release builds of both: `cargo build --release`,
`pip install ./python`) and prints the median wall time of each: the CLI as a
whole process (`-q`, output directory reused), the Python call inside a process
that has imported rocesim once. docs/python.md quotes the numbers.
"""

import argparse
import pathlib
import resource
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


def children_cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


cli, py, sim_cli, sim_py, cpu_cli, cpu_py = [], [], [], [], [], []
for i in range(a.repeat + 1):
    t, c = time.perf_counter(), children_cpu()
    subprocess.run([a.cli, "run", a.scenario, "-q", "--out", str(tmp / "cli"), *sets], check=True)
    dt_cli, dc_cli = time.perf_counter() - t, children_cpu() - c
    t, c = time.perf_counter(), time.process_time()
    r = rocesim.run(a.scenario, overrides=overrides, out=tmp / "py")
    dt_py, dc_py = time.perf_counter() - t, time.process_time() - c
    if i == 0:
        continue  # warm-up: page cache, first import of pandas
    cli.append(dt_cli)
    py.append(dt_py)
    cpu_cli.append(dc_cli)
    cpu_py.append(dc_py)
    sim_py.append(r.summary["wall_seconds"])
    sim_cli.append(rocesim.load(tmp / "cli").summary["wall_seconds"])

med = statistics.median
m_cli, m_py, c_cli, c_py = med(cli), med(py), med(cpu_cli), med(cpu_py)
print(f"{a.scenario} {' '.join(a.set)}: {a.repeat} runs each, medians")
print("                        wall      CPU       simulation (summary.json wall_seconds)")
print(f"  rocesim run (process) {m_cli:.4f} s  {c_cli:.4f} s  {med(sim_cli):.4f} s")
print(f"  rocesim.run() (call)  {m_py:.4f} s  {c_py:.4f} s  {med(sim_py):.4f} s")
print(f"  overhead              {100 * (m_py - m_cli) / m_cli:+.1f} %   {100 * (c_py - c_cli) / c_cli:+.1f} %")
