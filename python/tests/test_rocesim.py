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


def test_a_failing_sweep_point_is_recorded_and_the_others_run(tmp_path):
    df = rocesim.sweep(SMALL, {"topology.rate": ["100Gbps", "fast"]}, out=tmp_path)
    assert df["error"][0] == ""
    assert "topology.rate" in df["error"][1]
    assert df["flows_completed"][0] == 2


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
