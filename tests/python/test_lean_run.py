"""A lean `aqmlab run`: neither pandas nor pyarrow nor numpy on its path, the same files
as through pandas (loaded in pandas and polars), and threads "auto" for a one-off run."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aqmlab import Scenario, _native, _tables, cli, simulate
from aqmlab import run as run_module
from aqmlab._tables import write_records
from aqmlab.sim import Result
from aqmlab.sweeps.testing import to_toml

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "python" / "aqmlab" / "scenarios"


HEAVY = ("pandas", "pyarrow", "numpy")


def test_aqmlab_run_imports_no_pandas_pyarrow_or_numpy(tmp_path):
    """The whole command, in a fresh interpreter: pandas, pyarrow and numpy are never
    imported (the extension writes the Parquet files)."""
    out = tmp_path / "out"
    code = (
        "import sys; from aqmlab.cli import main; "
        f"rc = main(['run', {str(SCENARIOS / 'dumbbell_10mbps.toml')!r}, '--out', {str(out)!r}, "
        "'--duration', '25s']); "
        f"print(rc, sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "0 []", r.stdout
    assert "r1->r2" in r.stdout  # the link table was printed
    assert {p.name for p in out.iterdir()} == {"summary.json", "flows.parquet", "links.parquet"}


def _pandas_files(summary):
    """flows and links as the pandas path wrote them (the reference)."""
    flows = pd.DataFrame(summary["flows"])
    links = [dict(v, link=k) for k, v in summary["links"].items()]
    links.sort(key=lambda r: r["index"])
    df = pd.DataFrame(links)
    if "drop_run_hist" in df:
        df = df.drop(columns=["drop_run_hist"])
    if len(df):
        df = df[["link"] + [c for c in df.columns if c != "link"]]
    return {"flows": flows, "links": df}


def _same_parquet(path: Path, ref: pd.DataFrame, tmp: Path) -> None:
    ref_path = tmp / ("ref-" + path.name)
    ref.to_parquet(ref_path, index=False)
    got, want = pq.read_table(path), pq.read_table(ref_path)
    assert got.schema.remove_metadata() == want.schema.remove_metadata()
    assert got.equals(want)
    pd.testing.assert_frame_equal(pd.read_parquet(path), pd.read_parquet(ref_path))


MIXED = {
    "duration": "6s",
    "warmup": "1s",
    "link": [
        {"a": "s", "b": "r", "rate": "10Mbps", "delay": "5ms"},
        {
            "a": "r",
            "b": "k",
            "rate": "2Mbps",
            "delay": "10ms",
            "queue": {"type": "red", "limit": 60, "min_th": 5, "max_th": 15},
        },
    ],
    "flow": [
        {"type": "tcp", "src": "s", "dst": "k", "count": 2},
        {"type": "cbr", "src": "s", "dst": "k", "rate": "300kbps"},
        {"type": "web", "src": "s", "dst": "k", "arrival_rate": 2.0, "max_transfers": 3},
    ],
}


@pytest.mark.parametrize(
    "name", ["MIXED", "dumbbell_10mbps.toml", "floyd1993_fig3.toml", "bonald2000_tcp.toml"]
)
def test_the_files_are_those_pandas_wrote(tmp_path, name):
    """flows.parquet and links.parquet: the columns, types and values of the pandas path,
    in pyarrow and pandas."""
    sc = Scenario(MIXED) if name == "MIXED" else Scenario.from_file(SCENARIOS / name)
    d = sc.to_dict()
    d.pop("trace", None)
    d.update(duration=min(float(sc.normalized()["duration"]), 30.0), warmup=0)
    res = simulate(d, progress=False)
    out = res.to_dir(tmp_path / "out")
    ref = _pandas_files(res.summary)
    _same_parquet(out / "flows.parquet", ref["flows"], tmp_path)
    _same_parquet(out / "links.parquet", ref["links"], tmp_path)
    assert json.loads((out / "summary.json").read_text()) == json.loads(json.dumps(res.summary))
    # and the DataFrames a user asks for are those of the files
    pd.testing.assert_frame_equal(res.flows, ref["flows"])
    pd.testing.assert_frame_equal(res.links, ref["links"])


COUNTING_AQM = """
class Counting:
    def __init__(self, limit):
        self.limit, self.seen = limit, 0

    def enqueue(self, now, pkt, q):
        self.seen += 1
        return "drop_overflow" if q.packets >= self.limit else "enqueue"

    def stats(self):
        return {"seen": float(self.seen)}
"""


def _files_both_ways(tmp_path: Path, text: str) -> tuple[bool, Path, Path]:
    """A run of the TOML `text`, its files written by the extension from the summary
    it holds (into rust/, if it takes them) and from summary()'s dict (into python/)."""
    sim = _native.Simulation(text, None, {}, {})
    sim.run_until(sim.duration)
    rust, python = tmp_path / "rust", tmp_path / "python"
    rust.mkdir()
    written = sim.write_files(str(rust), _tables.large_strings())
    Result(sim.summary(), {}).to_dir(python)
    return written, rust, python


RUN_FILES = ["summary.json", "flows.parquet", "links.parquet"]


@pytest.mark.parametrize(
    "name",
    [
        "MIXED",
        "MIXED+ns2",
        "dumbbell_10mbps.toml",
        "dumbbell_10mbps_fq_codel.toml",
        "zheng2008.toml",
    ],
)
def test_the_files_from_the_summary_in_rust_are_those_of_its_dict(tmp_path, name):
    """Simulation.write_files writes summary.json, flows.parquet and links.parquet with
    the bytes Result.to_dir writes from the same run's summary() (web mice and open-loop
    flows with their missing values, a profile's keys, FQ-CoDel, many flows)."""
    if name.startswith("MIXED"):
        d = dict(MIXED, profile="ns2") if name == "MIXED+ns2" else MIXED
        text = to_toml(d)
    else:
        d = Scenario.from_file(SCENARIOS / name).to_dict()
        d.pop("trace", None)
        d.update(duration=min(float(Scenario(d).normalized()["duration"]), 20.0), warmup=0)
        text = to_toml(d)
    written, rust, python = _files_both_ways(tmp_path, text)
    assert written
    for f in RUN_FILES:
        assert (rust / f).read_bytes() == (python / f).read_bytes(), f
    assert sorted(p.name for p in rust.iterdir()) == sorted(RUN_FILES)


def test_tables_whose_types_pandas_decides_are_left_to_python(tmp_path, monkeypatch):
    """A Python queue's stats (a dict in each link row) make a column whose type pandas
    decides: write_files writes nothing and says so; aqmlab run writes the files through
    Python (pandas), those of Result.to_dir."""
    (tmp_path / "counting_aqm.py").write_text(COUNTING_AQM)
    monkeypatch.syspath_prepend(str(tmp_path))
    d = dict(MIXED)
    d["link"] = [
        MIXED["link"][0],
        dict(
            MIXED["link"][1],
            queue={"type": "python", "class": "counting_aqm:Counting", "limit": 30},
        ),
    ]
    text = to_toml(d)
    written, rust, python = _files_both_ways(tmp_path, text)
    assert not written and list(rust.iterdir()) == []
    links = pd.read_parquet(python / "links.parquet")
    assert links["aqm_stats"].notna().any()
    out = tmp_path / "cli"
    run_module.run_to_dir(text, out, progress=False)
    for f in RUN_FILES[1:]:
        assert (out / f).read_bytes() == (python / f).read_bytes(), f


def test_the_files_load_in_polars(tmp_path):
    """polars reads flows.parquet and links.parquet as it reads the pandas path's files."""
    try:
        import polars
        import polars.testing
    except ImportError:
        pytest.skip(
            "polars is not installed: it is not in the test extra (about 180 MB installed, "
            "as much as pyarrow); pip install polars to run this half"
        )
    res = simulate(Scenario(MIXED), progress=False)
    out = res.to_dir(tmp_path / "out")
    for name, ref in _pandas_files(res.summary).items():
        ref.to_parquet(tmp_path / f"ref-{name}.parquet", index=False)
        got = polars.read_parquet(out / f"{name}.parquet")
        polars.testing.assert_frame_equal(
            got, polars.read_parquet(tmp_path / f"ref-{name}.parquet")
        )
        assert got.columns == list(ref.columns) and got.height == len(ref) > 0


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    # the summaries' integers are Rust i64/u64 counters; beyond int64 pandas and
    # pyarrow refuse differently, which no summary can reach
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)


# no timing checks (a loaded machine is no failure of the code): no deadline, and no
# health check on how long the examples take to generate
@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "c", "link"]), _VALUES, max_size=4),
        max_size=5,
    )
)
def test_any_records_give_the_pandas_file(tmp_path_factory, records):
    """For any records of numbers, booleans, strings and None, the file equals pandas' (or
    both ways refuse the same records)."""
    tmp = tmp_path_factory.mktemp("rec")
    try:
        df = pd.DataFrame(records)
        if "link" in df and len(df):
            df = df[["link"] + [c for c in df.columns if c != "link"]]
        df.to_parquet(tmp / "ref.parquet", index=False)
    except (pa.ArrowException, ValueError, OverflowError, TypeError) as e:
        with pytest.raises(type(e)):
            write_records(records, tmp / "got.parquet", first="link")
        return
    write_records(records, tmp / "got.parquet", first="link")
    got, want = pq.read_table(tmp / "got.parquet"), pq.read_table(tmp / "ref.parquet")
    assert got.schema.remove_metadata() == want.schema.remove_metadata()
    assert got.num_rows == want.num_rows
    for g, w in zip(got.columns, want.columns):
        gl, wl = g.to_pylist(), w.to_pylist()
        same = [
            x == y
            or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
            for x, y in zip(gl, wl)
        ]
        assert all(same), (gl, wl)


def test_threads_auto_takes_two_wherever_two_cores_may_be_used(monkeypatch):
    """auto: 2 with two cores or more in this process's affinity, whatever else runs
    (the simulator itself falls back to one thread where two are slower)."""
    for cores, want in [({0, 1}, 2), ({0, 1, 2, 3}, 2), ({0}, 1), ({3}, 1)]:
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, c=cores: c, raising=False)
        assert run_module.auto_threads() == want, cores


@pytest.mark.parametrize("chosen", [1, 2])
def test_aqmlab_run_defaults_to_auto_threads_with_the_same_results(tmp_path, monkeypatch, chosen):
    """Without --threads or a threads key the run takes auto_threads()'s choice; one or two
    threads, the summary is the same (less the wall time)."""
    seen = []
    monkeypatch.setattr(run_module, "auto_threads", lambda: seen.append(1) or chosen)
    sc = str(SCENARIOS / "dumbbell_10mbps.toml")
    assert cli.main(["run", sc, "--out", str(tmp_path / "a"), "--duration", "25s", "-q"]) == 0
    assert seen == [1]
    assert (
        cli.main(
            ["run", sc, "--out", str(tmp_path / "b"), "--duration", "25s", "-q", "--threads", "1"]
        )
        == 0
    )
    assert seen == [1]  # an explicit --threads is not overridden

    def summary(d):
        s = json.loads((tmp_path / d / "summary.json").read_text())
        s.pop("wall_seconds")
        s.pop("events")  # two threads stop their batches at window ends
        return s

    assert summary("a") == summary("b")


def test_version_is_read_only_when_asked(capsys):
    """--version prints the installed version on standard output; parsing any other
    command line does not read the package metadata."""
    import aqmlab

    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"aqmlab {aqmlab.__version__}\n"
    code = (
        "import sys; from aqmlab import cli; cli.build_parser('run'); "
        "print('importlib.metadata' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "False", r.stderr
