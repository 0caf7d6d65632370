"""The Python package against the simulator: runs, DataFrames, errors, sweeps."""

import csv
import pathlib
import threading
import time

import pytest

import rocesim

REPO = pathlib.Path(__file__).resolve().parents[2]
INCAST = REPO / "scenarios" / "incast-16to1-hpcc.toml"
QUICKSTART = REPO / "scenarios" / "quickstart.toml"

SMALL = """
name = "small"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "1us"
[[workload.incast]]
fan_in = 2
receiver = 0
size = "100KB"
"""


@pytest.fixture(scope="module")
def incast():
    return rocesim.run(INCAST)


def test_an_incast_run_has_16_flows_whose_slowdowns_equal_fct_csv(incast):
    fct = incast.fct
    assert len(fct) == 16
    with open(incast.dir / "fct.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(fct["slowdown"]) == [float(r["slowdown"]) for r in rows]
    assert list(fct["flow_id"]) == [int(r["flow_id"]) for r in rows]
    assert incast.summary["flows_completed"] == 16


def test_dataframes_have_typed_columns(incast):
    fct, queue, pfc = incast.fct, incast.queue, incast.pfc
    assert str(fct["size_bytes"].dtype) == "int64"
    assert str(fct["fct_ns"].dtype) == "float64"
    assert str(fct["slowdown"].dtype) == "float64"
    assert str(queue["bytes"].dtype) == "int64"
    assert str(queue["time_ns"].dtype) == "float64"
    assert len(queue) > 0
    assert str(pfc["node"].dtype) == "int64"
    assert list(pfc.columns) == ["time_ns", "node", "port", "priority", "event"]


def test_a_run_without_out_lives_in_a_temporary_directory_while_referenced():
    r = rocesim.run(QUICKSTART)
    d = r.dir
    assert (d / "summary.json").is_file() and (d / "scenario.toml").is_file()
    del r
    import gc

    gc.collect()
    assert not d.exists()


def test_a_bad_key_in_overrides_raises_value_error_naming_the_key():
    with pytest.raises(ValueError, match="no_such_knob") as e:
        rocesim.run(QUICKSTART, overrides={"cc.no_such_knob": 1})
    assert isinstance(e.value, rocesim.InputError)
    assert "\n" not in str(e.value)


def test_a_bad_value_names_the_field_and_what_is_valid():
    with pytest.raises(ValueError, match="topology.delay") as e:
        rocesim.run(QUICKSTART, overrides={"topology.delay": "1 fortnight"})
    assert "unknown time unit" in str(e.value)


def test_a_missing_scenario_file_is_an_input_error(tmp_path):
    with pytest.raises(rocesim.InputError, match="no such scenario file"):
        rocesim.run(tmp_path / "nope.toml")


def test_overrides_and_seed_reach_the_effective_scenario(tmp_path):
    r = rocesim.run(
        QUICKSTART,
        overrides={"cc.algorithm": "dcqcn", "topology.rate": "40Gbps", "switch.pfc.enabled": True},
        seed=7,
        out=tmp_path / "x",
    )
    s = r.scenario_dict()
    assert s["cc"]["algorithm"] == "dcqcn"
    assert s["topology"]["rate"] == "40Gbps"
    assert s["seed"] == 7
    assert r.dir == tmp_path / "x"


def test_a_toml_string_scenario_runs():
    r = rocesim.run(SMALL)
    assert len(r.fct) == 2
    assert r.name == "small"


def test_a_dict_scenario_runs_and_equals_the_same_toml():
    scenario = {
        "name": "small",
        "topology": {"kind": "star", "hosts": 3, "rate": "100Gbps", "delay": "1us"},
        "workload": {"incast": [{"fan_in": 2, "receiver": 0, "size": "100KB"}]},
    }
    a = rocesim.run(scenario)
    b = rocesim.run(SMALL)
    assert list(a.fct["fct_ns"]) == list(b.fct["fct_ns"])


def test_a_dict_with_none_is_an_input_error():
    with pytest.raises(rocesim.InputError):
        rocesim.run({"topology": {"kind": "star", "hosts": None}})


def test_load_reads_a_run_directory_and_rejects_others(tmp_path):
    rocesim.run(SMALL, out=tmp_path / "r")
    r = rocesim.load(tmp_path / "r")
    assert r.summary["flows_completed"] == 2
    with pytest.raises(rocesim.InputError, match="not a run directory"):
        rocesim.load(tmp_path)


def test_report_writes_report_html_into_the_run_directory(tmp_path):
    r = rocesim.run(SMALL, out=tmp_path / "r")
    html = r.report()
    assert html == tmp_path / "r" / "report.html"
    assert html.read_text().lstrip().lower().startswith("<!doctype html")


def test_a_two_point_sweep_returns_two_rows(tmp_path):
    df = rocesim.sweep(QUICKSTART, {"cc.algorithm": ["hpcc", "dcqcn"]}, jobs=2, out=tmp_path)
    assert len(df) == 2
    assert list(df["cc.algorithm"]) == ["hpcc", "dcqcn"]
    assert list(df["error"]) == ["", ""]
    assert (df["flows_completed"] == 8).all()
    assert (tmp_path / "sweep.csv").is_file()
    for d in df["dir"]:
        assert (pathlib.Path(d) / "fct.csv").is_file()


@pytest.mark.parametrize(
    "axes, match",
    [
        ({"topology.rate": ["100Gbps", "fast"]}, "topology.rate"),
        ({"cc.no_such_knob": [1, 2]}, "no_such_knob"),
    ],
)
def test_a_sweep_key_or_value_the_base_rejects_raises_before_any_point_runs(axes, match, tmp_path):
    # As `rocesim sweep` refuses such a sweep file: one line, nothing written.
    out = tmp_path / "s"
    with pytest.raises(rocesim.InputError, match=match) as e:
        rocesim.sweep(SMALL, axes, out=out)
    assert "\n" not in str(e.value)
    assert not out.exists()


def test_a_sweep_run_again_resumes_and_skips_its_complete_points(tmp_path):
    axes = {"workload.incast[0].size": ["50KB", "100KB"]}
    first = rocesim.sweep(SMALL, axes, out=tmp_path)
    marks = {d: (pathlib.Path(d) / "fct.csv").stat().st_mtime_ns for d in first["dir"]}
    again = rocesim.sweep(SMALL, axes, out=tmp_path)
    assert list(again["point"]) == list(first["point"])
    assert list(again["status"]) == ["ok", "ok"]
    for d, t in marks.items():
        assert (pathlib.Path(d) / "fct.csv").stat().st_mtime_ns == t, "a complete point ran again"


def test_a_slurm_sweep_writes_a_job_array_and_runs_nothing(tmp_path):
    script, job = rocesim.sweep(
        QUICKSTART,
        {"cc.algorithm": ["hpcc", "dcqcn", "timely"]},
        out=tmp_path,
        slurm={"partition": "batch", "time": "30", "bin": "/opt/rocesim/bin/rocesim"},
    )
    assert job is None
    text = script.read_text()
    assert "#SBATCH --array=0-2" in text and "#SBATCH --partition=batch" in text
    assert "/opt/rocesim/bin/rocesim" in text
    assert not any(p.is_dir() for p in tmp_path.iterdir()), "no point ran"
    with pytest.raises(rocesim.InputError, match="partition"):
        rocesim.sweep(QUICKSTART, {"seed": [1]}, out=tmp_path / "bad", slurm={"partition": "a\nb", "bin": "x"})
    assert not (tmp_path / "bad").exists()


def test_the_gil_is_released_while_the_simulation_runs():
    stamps = []
    done = threading.Event()
    result = {}

    def work():
        t0 = time.perf_counter()
        result["run"] = rocesim.run(INCAST)
        result["seconds"] = time.perf_counter() - t0
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    # Holding the GIL would stall this loop for the whole run.
    assert result["seconds"] > 0.02
    assert max(gaps) < max(0.5 * result["seconds"], 0.02), (max(gaps), result["seconds"])


CLI = REPO / "target" / "release" / "rocesim"


@pytest.mark.skipif(not CLI.is_file(), reason="needs target/release/rocesim (cargo build --release)")
def test_a_run_writes_the_same_files_as_the_cli_with_the_same_set_and_seed(tmp_path):
    import subprocess

    sets = {"cc.algorithm": "dcqcn", "workload.incast[0].size": "200KB"}
    args = [x for k, v in sets.items() for x in ("--set", f"{k}={v}")]
    subprocess.run(
        [CLI, "run", QUICKSTART, "-q", "--seed", "5", "--out", tmp_path / "cli", *args], check=True
    )
    r = rocesim.run(QUICKSTART, overrides=sets, seed=5, out=tmp_path / "py")
    for name in ["fct.csv", "queue.csv", "pfc.csv", "scenario.toml", "queue_hist.csv"]:
        assert (r.dir / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    cli = subprocess.run(
        [CLI, "run", QUICKSTART, "-q", "--out", tmp_path / "bad", "--set", "cc.no_such_knob=1"],
        capture_output=True,
        text=True,
    )
    with pytest.raises(ValueError) as e:
        rocesim.run(QUICKSTART, overrides={"cc.no_such_knob": 1}, out=tmp_path / "bad")
    assert str(e.value) in cli.stderr


@pytest.mark.skipif(not CLI.is_file(), reason="needs target/release/rocesim (cargo build --release)")
def test_a_sweep_has_the_clis_point_ids_and_sweep_csv(tmp_path):
    import subprocess

    axes = {"cc.algorithm": ["hpcc", "dcqcn"], "workload.incast[0].size": ["100KB", "200KB"]}
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(
        f'base = "{QUICKSTART}"\n[axes]\n'
        '"cc.algorithm" = ["hpcc", "dcqcn"]\n"workload.incast[0].size" = ["100KB", "200KB"]\n'
    )
    subprocess.run([CLI, "sweep", sweep_file, "-q", "--jobs", "2", "--out", tmp_path / "cli"], check=True)
    df = rocesim.sweep(QUICKSTART, axes, jobs=2, out=tmp_path / "py")
    assert (tmp_path / "py" / "sweep.csv").read_bytes() == (tmp_path / "cli" / "sweep.csv").read_bytes()
    assert list(df["point"]) == sorted(p.name for p in (tmp_path / "cli").iterdir() if p.is_dir())


# Issue 42 item 9: arguments the CLI refuses raise InputError, before anything runs.


@pytest.mark.parametrize("seed", [1.5, True, -1, 2**64, "7"])
def test_a_seed_that_is_not_an_integer_in_range_is_an_input_error(seed):
    with pytest.raises(rocesim.InputError, match="seed: .* is not valid"):
        rocesim.run(QUICKSTART, seed=seed)


def test_overrides_that_are_not_a_dict_are_an_input_error():
    with pytest.raises(rocesim.InputError, match="overrides: a list is not valid"):
        rocesim.run(QUICKSTART, overrides=["cc.algorithm=dcqcn"])


@pytest.mark.parametrize("jobs", [0, -1, True, 1.5])
def test_sweep_jobs_below_1_is_an_input_error(jobs, tmp_path):
    with pytest.raises(rocesim.InputError, match="jobs: "):
        rocesim.sweep(QUICKSTART, {"seed": [1]}, jobs=jobs, out=tmp_path)


@pytest.mark.parametrize(
    "axes, match",
    [
        ({"seed": []}, 'axes: "seed" has no values'),
        ({"seed": 5}, 'axes: "seed" = 5 is not a list'),
        ({"seed": [1.5]}, 'axes: "seed": 1.5 is not valid'),
    ],
)
def test_sweep_axes_that_are_not_lists_of_values_are_input_errors(axes, match, tmp_path):
    with pytest.raises(rocesim.InputError, match=match):
        rocesim.sweep(QUICKSTART, axes, out=tmp_path)
    assert not (tmp_path / "sweep.csv").exists()


# Issue 42 item 21: the numbers docs/python.md shows are checked here, so they
# cannot go stale: its example runs as written (into a temporary directory) and
# must print exactly what the page says it prints.


def _doc_blocks(lang):
    import re

    text = (REPO / "docs" / "python.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_the_python_md_example_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    example = next(b for b in _doc_blocks("python") if "rocesim.sweep(" in b)
    shown = next(b for b in _doc_blocks("text") if "point" in b and "slowdown_p99" in b)
    monkeypatch.chdir(REPO)
    code = example.replace('"runs/incast-sweep', f'"{tmp_path}/incast-sweep')
    exec(compile(code, "docs/python.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_the_python_md_error_examples_are_the_messages_raised():
    block = next(b for b in _doc_blocks("text") if "rocesim.InputError:" in b)
    lines = block.splitlines()
    for call, shown in zip(lines[0::2], lines[1::2]):
        assert call.startswith(">>> ") and shown.startswith("rocesim.InputError: ")
        import os

        cwd = os.getcwd()
        os.chdir(REPO)
        try:
            with pytest.raises(rocesim.InputError) as e:
                eval(call[4:], {"rocesim": rocesim})
        finally:
            os.chdir(cwd)
        assert f"rocesim.InputError: {e.value}" == shown


# Issue 42: the Python entry points fuzzed. Random overrides, seeds, axes and
# scenario dicts (a fixed seed: the same cases every run) must each run or
# raise InputError (bad input) or SimulationError, never another exception,
# a crash of the interpreter or a hang.

_KEYS = [
    "cc.algorithm", "cc.hpcc.eta", "topology.rate", "topology.delay", "topology.hosts",
    "workload.incast[0].size", "workload.incast[0].fan_in", "workload.incast[7].size",
    "switch.ecn.kmin", "switch.pfc.enabled", "nic.mtu", "seed", "name", "stop",
    "output.queue_interval", "switch.load_balancing", "cc", "", ".", "a..b", "x[99999999999]",
]


def _fuzz_value(r, depth=0):
    kinds = [
        lambda: r.choice([0, 1, -1, 2**63, 2**64, -(2**70), 7]),
        lambda: r.choice([0.0, -0.5, 1e308, float("inf"), float("nan"), 1.5]),
        lambda: r.choice([True, False, None]),
        lambda: r.choice(["", "hpcc", "100Gbps", "1us", "10KB", "fast", "a\nb", "\u00e9\u4e2d", "x" * 5000]),
        lambda: [] if depth > 2 else [_fuzz_value(r, depth + 1) for _ in range(r.randrange(3))],
        lambda: {} if depth > 2 else {r.choice(_KEYS) or "k": _fuzz_value(r, depth + 1)},
    ]
    return r.choice(kinds)()


def _expected(call):
    try:
        call()
    except (rocesim.InputError, rocesim.SimulationError):
        pass


def test_fuzzed_run_overrides_and_seeds_raise_input_errors_or_run(tmp_path):
    import random

    r = random.Random(42)
    for i in range(150):
        overrides = {r.choice(_KEYS): _fuzz_value(r) for _ in range(r.randrange(1, 3))}
        seed = r.choice([None, 1, _fuzz_value(r)])
        _expected(lambda: rocesim.run(SMALL, overrides=overrides, seed=seed, out=tmp_path / f"r{i}"))


def test_fuzzed_sweep_axes_raise_input_errors_or_run(tmp_path):
    import random

    r = random.Random(7)
    for i in range(60):
        axes = {r.choice(_KEYS): [_fuzz_value(r) for _ in range(r.randrange(1, 3))]}
        if r.random() < 0.3:
            axes = _fuzz_value(r)
        jobs = r.choice([1, 2, 0, -3, 1.5, None])
        _expected(lambda: rocesim.sweep(SMALL, axes, jobs=jobs, out=tmp_path / f"s{i}"))


def test_fuzzed_scenario_dicts_raise_input_errors_or_run(tmp_path):
    import random
    import tomllib

    base = tomllib.loads(SMALL)
    r = random.Random(3)
    for i in range(100):
        scenario = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
        section = r.choice(list(scenario) + ["cc", "switch", "nic", "junk"])
        if isinstance(scenario.get(section), dict) and r.random() < 0.7:
            scenario[section][r.choice(["rate", "delay", "hosts", "kind", "algorithm", "x"])] = _fuzz_value(r)
        else:
            scenario[section] = _fuzz_value(r)
        _expected(lambda: rocesim.run(scenario, out=tmp_path / f"d{i}"))


def test_a_key_or_value_thousands_of_levels_deep_is_an_input_error_not_a_crash():
    # Issue 42 item 1: through Python a 10,000-part key killed the interpreter.
    with pytest.raises(rocesim.InputError, match="parts"):
        rocesim.run(QUICKSTART, overrides={".".join(["a"] * 10000): 1})
    deep = 1
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(rocesim.InputError, match="nested too deep"):
        rocesim.run(QUICKSTART, overrides={"cc.algorithm": deep})


def test_a_parquet_run_gives_the_same_frames_as_a_csv_run(tmp_path):
    # output.format = "parquet": the same rows and column types, read from .parquet.
    sets = {"output.link_utilization": "5us"}
    csv = rocesim.run(INCAST, overrides=sets, out=tmp_path / "csv")
    pq = rocesim.run(INCAST, overrides={**sets, "output.format": "parquet"}, out=tmp_path / "pq")
    for name in ["fct", "queue", "pfc", "link_util"]:
        assert (pq.dir / f"{name}.parquet").is_file() and not (pq.dir / f"{name}.csv").exists()
        a, b = csv.table(name), pq.table(name)
        assert len(a) > 0 or name == "pfc", name
        assert list(a.columns) == list(b.columns), name
        assert list(a.dtypes) == list(b.dtypes) or name == "link_util", name
        assert a.astype(b.dtypes.to_dict()).equals(b), name
    assert csv.summary == pq.summary
