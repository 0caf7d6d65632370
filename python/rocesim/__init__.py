"""rocesim from Python: run scenarios, read their results as pandas DataFrames.

    >>> import rocesim
    >>> r = rocesim.run("scenarios/incast-16to1-hpcc.toml", overrides={"cc.algorithm": "dcqcn"})
    >>> r.summary["slowdown_p99"], len(r.fct)

The simulator is the same Rust code as the ``rocesim`` command (built into this
package); docs/python.md in the repository describes the API.
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
from typing import Any, Iterable, Mapping, Optional, Union

from . import _rocesim
from ._rocesim import InputError, SimulationError

__all__ = ["run", "load", "sweep", "Run", "InputError", "SimulationError"]
__version__ = _rocesim.__version__

PathLike = Union[str, os.PathLike]

# Column types of the run directory's CSV files (docs/models.md#outputs). Times are
# float64 because rocesim writes fractional nanoseconds when a time has picoseconds.
# A run with ``output.format = "parquet"`` writes fct.parquet, queue.parquet, pfc.parquet,
# link_util.parquet and flow_rates.parquet instead, with these types (read with pyarrow).
_DTYPES: dict[str, dict[str, str]] = {
    "fct": {
        "flow_id": "int64",
        "src": "int64",
        "dst": "int64",
        "size_bytes": "int64",
        "start_ns": "float64",
        "fct_ns": "float64",
        "ideal_fct_ns": "float64",
        "slowdown": "float64",
        "retx_bytes": "int64",
        "cnps": "int64",
        "timeouts": "int64",
        "dport": "int64",
        # Only on fabrics whose servers have several NICs.
        "src_nic": "int64",
        "dst_nic": "int64",
    },
    "queue": {"time_ns": "float64", "node": "int64", "port": "int64", "bytes": "int64"},
    "pfc": {
        "time_ns": "float64",
        "node": "int64",
        "port": "int64",
        "priority": "int64",
        "event": "str",
    },
}


class Run:
    """One run directory: ``summary`` (dict) and ``fct``, ``queue``, ``pfc``
    (pandas DataFrames, read when first used).

    A run made with ``out=None`` lives in a temporary directory that is removed
    when this object is garbage-collected; ``Run.dir`` names it.
    """

    def __init__(self, run_dir: PathLike, _keep_alive: Any = None):
        self.dir = pathlib.Path(run_dir)
        self._keep_alive = _keep_alive  # a TemporaryDirectory, for out=None
        self._frames: dict[str, Any] = {}
        self._summary: Optional[dict] = None
        if not (self.dir / "summary.json").is_file():
            raise InputError(f"{self.dir}: not a run directory (it has no summary.json)")

    def __repr__(self) -> str:
        return f"Run({str(self.dir)!r})"

    @property
    def name(self) -> str:
        """The experiment's name (the scenario's ``name``, else its file stem)."""
        try:
            return self.scenario_dict().get("name") or self.dir.name
        except ImportError:  # no tomllib before Python 3.11
            return self.dir.name

    @property
    def summary(self) -> dict:
        """summary.json: headline numbers (slowdown percentiles, PFC, drops, ...)."""
        if self._summary is None:
            with open(self.dir / "summary.json", encoding="utf-8") as f:
                self._summary = json.load(f)
        return self._summary

    @property
    def scenario(self) -> str:
        """The effective scenario (overrides and seed applied), as TOML text."""
        return (self.dir / "scenario.toml").read_text(encoding="utf-8")

    def scenario_dict(self) -> dict:
        """The effective scenario as a dict."""
        import tomllib  # Python >= 3.11

        return tomllib.loads(self.scenario)

    @property
    def fct(self):
        """fct.csv: one row per completed flow."""
        return self._frame("fct")

    @property
    def queue(self):
        """queue.csv: switch egress queue lengths over time."""
        return self._frame("queue")

    @property
    def pfc(self):
        """pfc.csv: every PFC pause, resume and timed-pause expiry."""
        return self._frame("pfc")

    def table(self, name: str):
        """Any table of the run directory (e.g. ``"queue_hist"``, ``"link_util"``) as a
        DataFrame, from NAME.parquet if the run wrote Parquet, else NAME.csv; fct,
        queue and pfc get their declared column types."""
        if name in _DTYPES:
            return self._frame(name)
        return self._read(name)

    def _frame(self, name: str):
        if name not in self._frames:
            self._frames[name] = self._read(name, _DTYPES[name])
        return self._frames[name]

    def _read(self, name: str, dtype: Optional[dict] = None):
        import pandas as pd

        parquet = self.dir / f"{name}.parquet"
        if parquet.is_file():
            df = pd.read_parquet(parquet)
            if dtype:
                df = df.astype({k: v for k, v in dtype.items() if k in df.columns})
            return df
        return pd.read_csv(self.dir / f"{name}.csv", dtype=dtype)

    def report(self, step: int = 5, dport: Optional[int] = None) -> pathlib.Path:
        """Writes report.html and figures/ into the run directory, as
        ``rocesim report RUN_DIR`` does, and returns report.html's path."""
        html, _text = _rocesim.report(str(self.dir), step, dport)
        return pathlib.Path(html)


def load(run_dir: PathLike) -> Run:
    """The results of an earlier run (``rocesim run --out DIR`` or ``run(out=DIR)``)."""
    return Run(run_dir)


def _toml_value(v: Any) -> str:
    """A Python value as a TOML literal."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, (str, os.PathLike)):
        return json.dumps(os.fspath(v))  # a JSON string is a TOML basic string
    if isinstance(v, Mapping):
        items = ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items())
        return "{" + items + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise InputError(f"cannot write {type(v).__name__} value {v!r} as a scenario value")


def _override(key: str, value: Any) -> str:
    # A str goes in as the text after `=` in `--set key=value` (so "dcqcn" and
    # "100Gbps" work unquoted, exactly as on the command line); anything else
    # as its TOML literal.
    if isinstance(value, str):
        return f"{key}={value}"
    try:
        return f"{key}={_toml_value(value)}"
    except RecursionError:
        # As the CLI limits a key's depth, a value nested beyond Python's
        # recursion limit is bad input, not a crash.
        raise InputError(f"overrides: {key}: the value is nested too deep to be a scenario value") from None


_SEED_MAX = 2**63 - 1  # the scenario's seed is a TOML integer


def _check_seed(seed: Any, name: str = "seed") -> Optional[int]:
    """`seed` as the CLI's --seed takes it: an integer from 0 to 2**63 - 1."""
    if seed is None:
        return None
    ok = not isinstance(seed, bool) and hasattr(seed, "__index__")
    value = seed.__index__() if ok else None
    if value is None or not 0 <= value <= _SEED_MAX:
        raise InputError(
            f"{name}: {seed!r} is not valid (valid: an integer from 0 to {_SEED_MAX})"
        )
    return value


def _check_overrides(overrides: Any) -> Mapping[str, Any]:
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise InputError(
            f"overrides: a {type(overrides).__name__} is not valid (valid: a dict of "
            f'key: value, e.g. {{"cc.algorithm": "dcqcn"}})'
        )
    return overrides


def _json_default(v: Any) -> Any:
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    raise TypeError(f"{type(v).__name__} value {v!r} cannot be a scenario value")


def run(
    scenario: Union[PathLike, Mapping[str, Any]],
    overrides: Optional[Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    out: Optional[PathLike] = None,
) -> Run:
    """Runs a scenario and returns its results.

    scenario: a path (``str`` without a newline, or ``pathlib.Path``) to a
        scenario file; TOML text (a ``str`` with a newline); or a dict shaped like
        the TOML file. Relative paths inside text or a dict (topology or flow
        files, CDFs) resolve against the current directory; inside a file,
        against the file's directory, as for the CLI.
    overrides: ``{"cc.algorithm": "dcqcn", "workload.poisson.load": 0.5}``, applied
        exactly as ``--set key=value`` (unknown keys are errors).
    seed: as ``--seed``.
    out: the run directory; ``None`` runs into a temporary directory that lives
        as long as the returned :class:`Run`.

    Raises :class:`InputError` (a ``ValueError``) with the CLI's one-line message
    for bad input, :class:`SimulationError` when the simulation stops on a
    condition it detected (a PFC deadlock), ``OSError`` for I/O failures.
    The simulation runs without holding the GIL.
    """
    sets = [_override(str(k), v) for k, v in _check_overrides(overrides).items()]
    seed = _check_seed(seed)
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="rocesim-run-")
        out = keep.name
    out = os.fspath(out)
    kwargs: dict[str, Any] = dict(overrides=sets, seed=seed)
    if isinstance(scenario, Mapping):
        text = _rocesim.json_to_toml(json.dumps(scenario, default=_json_default))
        _rocesim.run(out, text=text, source="<dict>", base_dir=os.getcwd(), **kwargs)
    elif isinstance(scenario, str) and "\n" in scenario:
        _rocesim.run(out, text=scenario, source="<string>", base_dir=os.getcwd(), **kwargs)
    elif isinstance(scenario, (str, os.PathLike)):
        _rocesim.run(out, path=os.fspath(scenario), **kwargs)
    else:
        raise TypeError(
            f"scenario must be a path, TOML text or a dict, not {type(scenario).__name__}"
        )
    return Run(out, _keep_alive=keep)


def sweep(
    base: Union[PathLike, Mapping[str, Any]],
    axes: Mapping[str, Iterable[Any]],
    jobs: int = 1,
    out: Optional[PathLike] = None,
    seed: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
    slurm: Optional[Mapping[str, Any]] = None,
):
    """Runs the full grid over ``axes`` on the ``base`` scenario with the code of
    ``rocesim sweep`` and returns a DataFrame with one row per point: ``point``
    (the CLI's point id), ``status``, the axis values, the numbers of
    summary.json, ``error`` (empty when the point ran) and ``dir``.

    base: as ``scenario`` in :func:`run`. A dict or TOML text is written to
        ``out/base.toml``: relative paths in it resolve against ``out``.
    axes: ``{"cc.algorithm": ["hpcc", "dcqcn"], "workload.poisson.load": [0.3, 0.5]}``;
        keys are override keys as in :func:`run` (``"seed"`` is the run's seed);
        the first axis varies slowest.
    jobs: points run at once (each simulation releases the GIL).
    out: the sweep directory: ``out/<point id>/`` per point, ``out/sweep.csv``,
        ``out/sweep.json``; a sweep run again into it resumes (complete points
        are skipped). ``None`` makes a new temporary directory that is *not*
        removed (its path is in ``df.attrs["dir"]``).
    seed, overrides: as in :func:`run`, for every point (an axis wins).
    slurm: ``{"partition": .., "time": .., "cpus_per_task": .., "submit": False}``
        runs nothing and writes ``out/sweep.sbatch``, a Slurm job array whose
        tasks run the ``rocesim`` command on PATH (or ``"bin"``); returns
        ``(script path, job id or None)``. Then ``rocesim sweep collect out``.

    Every key and value is checked before any point runs, as ``rocesim sweep``
    checks a sweep file: a bad one raises :class:`InputError`. A point that
    fails while it runs is recorded with its error and the others go on.
    """
    # Checked before any point runs, as the CLI checks a sweep file.
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"jobs: {jobs!r} is not valid (valid: an integer >= 1)")
    overrides = _check_overrides(overrides)
    seed = _check_seed(seed)
    if not isinstance(axes, Mapping) or not axes:
        raise InputError(
            'axes: not valid (valid: a non-empty dict of key: list of values, e.g. '
            '{"cc.algorithm": ["hpcc", "dcqcn"]})'
        )
    grid = []
    for k, v in axes.items():
        if isinstance(v, (str, bytes, Mapping)) or not hasattr(v, "__iter__"):
            raise InputError(f'axes: "{k}" = {v!r} is not a list of values (e.g. [1, 2])')
        values = list(v)
        if not values:
            raise InputError(f'axes: "{k}" has no values (valid: a non-empty list)')
        if k == "seed":
            values = [_check_seed(x, name='axes: "seed"') for x in values]
        grid.append([k, values])
    fixed = [[k, v] for k, v in overrides.items()]
    if seed is not None and "seed" not in axes:
        fixed.append(["seed", seed])
    slurm_json = None
    if slurm is not None:
        if not isinstance(slurm, Mapping):
            raise InputError(
                f"slurm: a {type(slurm).__name__} is not valid (valid: a dict, e.g. "
                '{"partition": "batch", "time": "30"})'
            )
        slurm = dict(slurm)
        if "bin" not in slurm:
            import shutil

            found = shutil.which("rocesim")
            if found is None:
                raise InputError(
                    'slurm: the array tasks run the rocesim command, which is not on PATH '
                    '(cargo install --path . or give slurm={"bin": "/path/to/rocesim"})'
                )
            slurm["bin"] = found
        slurm_json = json.dumps(slurm, default=_json_default)
    kwargs: dict[str, Any] = {}
    if isinstance(base, Mapping):
        kwargs["base_text"] = _rocesim.json_to_toml(json.dumps(base, default=_json_default))
    elif isinstance(base, str) and "\n" in base:
        kwargs["base_text"] = base
    elif isinstance(base, (str, os.PathLike)):
        kwargs["base_path"] = os.fspath(base)
    else:
        raise TypeError(f"base must be a path, TOML text or a dict, not {type(base).__name__}")
    root = pathlib.Path(out) if out is not None else pathlib.Path(tempfile.mkdtemp(prefix="rocesim-sweep-"))
    path, job = _rocesim.sweep(
        os.fspath(root),
        json.dumps(fixed, default=_json_default),
        json.dumps(grid, default=_json_default),
        jobs=jobs,
        slurm=slurm_json,
        **kwargs,
    )
    if slurm is not None:
        return pathlib.Path(path), job
    import pandas as pd

    names = [k for k, _ in grid]
    text_columns = ["point", "status", *names]
    df = pd.read_csv(path, dtype={k: str for k in text_columns})
    df[text_columns] = df[text_columns].fillna("")
    points = json.loads((root / "sweep.json").read_text())["points"]
    df["error"] = [p.get("error", "") for p in points]
    df["dir"] = [str(root / p["id"]) for p in points]
    for k, values in grid:
        # The CSV holds each value as text: give the axes their values back.
        by_text: dict[str, Any] = {}
        for v in values:
            by_text.setdefault(_plain(v), v)
        df[k] = [by_text[x] for x in df[k]]
    df.attrs["dir"] = str(root)
    return df


def _plain(v: Any) -> str:
    """A value as sweep.csv writes it (strings bare, numbers and booleans as TOML)."""
    if isinstance(v, str):
        return v
    return _rocesim.json_to_toml(json.dumps({"v": v}, default=_json_default)).split("=", 1)[1].strip()
