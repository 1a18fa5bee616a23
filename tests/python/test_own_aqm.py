"""AQMs written as Python classes (`queue = { type = "python", class = ... }`).

The tutorial's classes (docs/examples, shown in docs/own-aqm.md) against the built-ins:
a Python Drop Tail with a 30-packet limit gives the built-in `droptail` (limit 30), and
the Python RED of Fig. 2 (Floyd & Jacobson 1993) gives the built-in `red`, summary for
summary (links and flows), drawing from the same generator (`q.rng`). Then the bad
classes: each stops the run with an error naming the class, the method, the simulated
time and the flow, and leaves nothing in `--out`."""

from __future__ import annotations

import copy
import shutil
import sys
from pathlib import Path

import pytest

from aqmlab import Scenario, _native, aqm, cli, simulate
from aqmlab.base import load_toml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
BENCH = ROOT / "scenarios" / "bench_dumbbell_15mbps.toml"
CATALOGUE = ROOT / "python" / "aqmlab" / "scenarios" / "floyd1993_fig3.toml"


@pytest.fixture(autouse=True)
def examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def as_python(table: dict, cls: str) -> dict:
    """The same queue keys, run by the Python class `cls` ("module:Class")."""
    t = {k: v for k, v in table.items() if k != "type"}
    return {"type": "python", "class": cls, **t}


def replace_queues(data: dict, kind: str, cls: str) -> int:
    """Every queue table of type `kind` in `data` run by `cls` instead; how many."""
    n = 0
    for link in data["link"]:
        for key in ("queue", "queue_ab", "queue_ba"):
            if link.get(key, {}).get("type") == kind:
                link[key] = as_python(link[key], cls)
                n += 1
    return n


def same_results(a: dict, b: dict) -> None:
    """Links and flows equal, bit for bit, but for the queue's `type`. (The count of
    events may differ: a class with `dequeue` runs in a queue that holds its packets,
    which takes an event per packet where the FIFO path computes departures.)"""
    assert a["flows"] == b["flows"]
    assert a["links"].keys() == b["links"].keys()
    for d in a["links"]:
        la = {k: v for k, v in a["links"][d].items() if k != "queue_type"}
        lb = {k: v for k, v in b["links"][d].items() if k != "queue_type"}
        assert la == lb, d


def test_python_droptail_gives_the_builtin_droptail():
    data = load_toml((ROOT / "python/aqmlab/scenarios/dumbbell_10mbps.toml").read_text())
    data["duration"], data["warmup"] = "40s", "10s"
    bottleneck = data["link"][0]
    bottleneck["queue_ab"] = {"type": "droptail", "limit": 30}
    builtin = simulate(copy.deepcopy(data), progress=False).summary
    assert replace_queues(data, "droptail", "droptail_aqm:DropTail") >= 1
    mine = simulate(data, progress=False).summary
    assert {l["queue_type"] for l in mine["links"].values()} == {"python"}
    same_results(builtin, mine)
    # (the buffer overflowed: the comparison is not of runs without drops)
    assert max(l["overflow_drops"] for l in builtin["links"].values()) > 100


@pytest.mark.parametrize("path", [BENCH, CATALOGUE], ids=["bench_15mbps", "floyd1993_fig3"])
def test_python_red_gives_the_builtin_red(path):
    data = load_toml(path.read_text())
    builtin = simulate(copy.deepcopy(data), progress=False).summary
    assert replace_queues(data, "red", "red_aqm:Red") >= 1
    mine = simulate(data, progress=False).summary
    same_results(builtin, mine)
    red = [l for l in builtin["links"].values() if l["queue_type"] == "red"]
    # (RED decided: early drops, drawn from the generator, and an average kept)
    assert sum(l["early_drops"] for l in red) > 10
    assert max(l["mean_avg"] for l in red) > 1.0


def test_rng_is_the_builtin_stream():
    """`q.rng` draws what the built-in RED draws for the same queue seed: with
    min_th = max_th - tiny and max_p = 1 every arrival above min_th is a coin flip
    against p_a, so equal verdicts over many arrivals need the same numbers."""
    table = {"limit": 1000, "min_th": 1, "max_th": 3, "w_q": 1.0, "max_p": 0.5, "seed": 7}
    builtin = aqm.Queue({"type": "red", **table})
    mine = aqm.Queue(as_python({"type": "red", **table}, "red_aqm:Red"))
    va, vb = [], []
    for i in range(400):
        t = i * 1e-3
        va.append(builtin.enqueue(t, 1000, 0))
        vb.append(mine.enqueue(t, 1000, 0))
        if i % 2:
            builtin.dequeue(t)
            mine.dequeue(t)
    assert va == vb
    assert 20 < va.count("drop_early") < 380


def test_queue_runs_a_python_class():
    q = aqm.Queue({"type": "python", "class": "droptail_aqm:DropTail", "limit": 3})
    got = [q.enqueue(0.001 * i, 1500, 0) for i in range(5)]
    assert got == ["enqueue"] * 3 + ["drop_forced"] * 2
    assert q.dequeue(0.01) == (1500, 0)


BAD = """
class Raises:
    def __init__(self, **params):
        self.n = 0
    def enqueue(self, now, pkt, q):
        self.n += 1
        if self.n == 50:
            raise ZeroDivisionError("on purpose")
        return "enqueue"

class Maybe:
    def enqueue(self, now, pkt, q):
        return "maybe" if q.packets > 2 else "enqueue"

class Nothing:
    def enqueue(self, now, pkt, q):
        pass

class MarksNotEct:
    def enqueue(self, now, pkt, q):
        return "mark"

class NoEnqueue:
    def dequeue(self, now, pkt, q):
        return "send"

class BadDequeue:
    def enqueue(self, now, pkt, q):
        return "enqueue"
    def dequeue(self, now, pkt, q):
        return "enqueue"
"""

SCENARIO = """
duration = "5s"
[[link]]
a = "s"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "r"
b = "k"
rate = "2Mbps"
delay = "10ms"
queue = {{ type = "python", class = "{cls}"{params} }}
[[flow]]
type = "tcp"
src = "s"
dst = "k"
max_window = 100
"""


@pytest.mark.parametrize(
    "cls, status, words",
    [
        ("bad_aqm:Raises", 1, ["bad_aqm:Raises.enqueue", "ZeroDivisionError: on purpose"]),
        ("bad_aqm:Maybe", 1, ["bad_aqm:Maybe.enqueue", "returned 'maybe'"]),
        ("bad_aqm:Nothing", 1, ["bad_aqm:Nothing.enqueue", "returned None"]),
        ("bad_aqm:MarksNotEct", 1, ["bad_aqm:MarksNotEct.enqueue", "not ECN-capable"]),
        ("bad_aqm:BadDequeue", 1, ["bad_aqm:BadDequeue.dequeue", "returned 'enqueue'"]),
        ("bad_aqm:NoEnqueue", 2, ["link[1].queue.class", "bad_aqm:NoEnqueue", "enqueue"]),
        ("bad_aqm:Absent", 2, ["link[1].queue.class", "has no `Absent`"]),
        ("no_such_aqm:Red", 2, ["link[1].queue.class", "no module `no_such_aqm`"]),
    ],
)
def test_a_bad_class_stops_the_run_naming_it(tmp_path, capsys, cls, status, words):
    (tmp_path / "bad_aqm.py").write_text(BAD)
    scenario = tmp_path / "bad.toml"
    scenario.write_text(SCENARIO.format(cls=cls, params=""))
    out = tmp_path / "out"
    try:
        rc = cli.main(["run", str(scenario), "--out", str(out), "--quiet", "--no-progress"])
    finally:
        sys.modules.pop("bad_aqm", None)
    err = capsys.readouterr().err
    assert rc == status, err
    for w in words:
        assert w in err, err
    if status == 1:
        # the packet path: the time and the flow
        assert "at simulated time" in err and "flow 0" in err, err
    assert not out.exists() or not any(out.iterdir())


def test_failure_keeps_the_python_exception_as_its_cause(tmp_path, monkeypatch):
    (tmp_path / "bad_aqm2.py").write_text(BAD)
    monkeypatch.syspath_prepend(str(tmp_path))
    data = load_toml(SCENARIO.format(cls="bad_aqm2:Raises", params=""))
    with pytest.raises(_native.ExternalAqmError) as e:
        simulate(data, progress=False)
    assert isinstance(e.value.__cause__, ZeroDivisionError)


def test_module_beside_the_scenario_file(tmp_path):
    shutil.copy(EXAMPLES / "droptail_aqm.py", tmp_path / "beside_aqm.py")
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(cls="beside_aqm:DropTail", params=", limit = 10"))
    res = simulate(Scenario.from_file(scenario), progress=False)
    assert res.summary["links"]["r->k"]["queue_type"] == "python"
    assert res.summary["links"]["r->k"]["overflow_drops"] > 0


def test_compare_and_evaluate_take_a_python_class(tmp_path, compare_and_evaluate):
    """`--aqm-file` names a class beside it: `aqmlab compare` and `aqmlab evaluate` (on
    its Dask workers) give the Python Drop Tail the built-in's figures."""
    import pandas as pd

    shutil.copy(EXAMPLES / "droptail_aqm.py", tmp_path / "tail_aqm.py")
    mine = tmp_path / "mine.toml"
    mine.write_text(
        '[queue.tail]\ntype = "droptail"\nlimit = 30\n'
        '[queue.tail_py]\ntype = "python"\nclass = "tail_aqm:DropTail"\nlimit = 30\n'
    )
    rows, by = compare_and_evaluate(mine)
    assert list(rows["type"]) == ["droptail", "python"]
    figures = rows.drop(columns=["type"])
    assert figures.loc["tail"].equals(figures.loc["tail_py"])
    assert figures.loc["tail", "drop_rate"] > 0
    assert set(by) == {"tail", "tail_py"}
    pd.testing.assert_frame_equal(by["tail"], by["tail_py"], check_exact=True)


def test_the_page_shows_the_tested_classes():
    page = (ROOT / "docs" / "own-aqm.md").read_text()
    assert (EXAMPLES / "red_aqm.py").read_text() in page
    assert "docs/own-aqm.md" in (ROOT / "README.md").read_text()[:2000]


def test_new_aqm_scaffolds_a_class_its_test_and_scenario(tmp_path, capsys, monkeypatch):
    assert cli.main(["new-aqm", "my_tail", "--dir", str(tmp_path)]) == 0
    made = tmp_path / "my_tail"
    assert sorted(p.name for p in made.iterdir()) == [
        "my_tail.py",
        "scenario.toml",
        "test_my_tail.py",
    ]
    out = tmp_path / "out"
    rc = cli.main(
        ["run", str(made / "scenario.toml"), "--out", str(out), "--quiet", "--no-progress"]
    )
    assert rc == 0 and (out / "summary.json").exists()
    monkeypatch.syspath_prepend(str(made))
    import test_my_tail

    test_my_tail.test_my_tail_runs_as_drop_tail()
    sys.modules.pop("test_my_tail", None)
    sys.modules.pop("my_tail", None)
    # a second time, or a bad name: refused, nothing changed
    assert cli.main(["new-aqm", "my_tail", "--dir", str(tmp_path)]) == 2
    assert cli.main(["new-aqm", "My-Tail", "--dir", str(tmp_path)]) == 2
    assert "NAME" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_tail", "out"]
