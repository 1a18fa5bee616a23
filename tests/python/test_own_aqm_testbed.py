"""Own AQMs on live traffic: `aqmlab testbed` with a Python class or a plugin at the
bottleneck. The gateway asks the class about every live packet (a class counting its
calls in the measurement window counts the gateway's arrivals, exactly); the tutorial's
Python RED and the RED plugin hold the queue between their thresholds as the built-in
`red` does (test_testbed_flows.py); a class that raises stops the run naming the class,
the method and the flow, and leaves nothing in the output directory (root and
`ip netns` needed; skipped otherwise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.testbed import plan, run_testbed
from aqmlab.testbed.testing import dumbbell, skip_reason, tcp_flows

_why = skip_reason()
pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(_why is not None, reason=_why or ""),
    pytest.mark.timeout(3600),
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
LINK, BACK = "r1->r2", "r2->r1"
RED = {"limit": 100, "min_th": 5, "max_th": 15}

COUNTING = '''
class CountingTail:
    """Drop Tail that counts the packets it is asked about in [count_from, count_to] ns."""

    def __init__(self, limit, count_from, count_to):
        self.limit, self.window = limit, (count_from, count_to)
        self.calls = self.in_window = 0

    def enqueue(self, now, pkt, q):
        self.calls += 1
        self.in_window += self.window[0] <= now <= self.window[1]
        return "drop_overflow" if q.packets >= self.limit else "enqueue"

    def stats(self):
        return {"calls": self.calls, "in_window": self.in_window}


class RaisesLater:
    def __init__(self, limit):
        self.n = 0

    def enqueue(self, now, pkt, q):
        self.n += 1
        if self.n > 200:
            raise ValueError("on purpose")
        return "enqueue"
'''


@pytest.fixture
def classes(tmp_path, monkeypatch):
    """The test's classes and the tutorial's, importable here (the gateway imports
    them through the PYTHONPATH the testbed gives it)."""
    (tmp_path / "live_aqm.py").write_text(COUNTING)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    return tmp_path


def test_the_gateway_asks_the_class_about_every_live_packet(classes, tmp_path):
    """One Reno flow at 10 Mb/s through a Python Drop Tail: in both directions the class
    was asked about as many packets in the window as the gateway counted arriving, and
    its stats() reached the summary."""
    warmup, duration = 1.0, 5.0
    table = {
        "type": "python",
        "class": "live_aqm:CountingTail",
        "limit": 100,
        "count_from": int(warmup * 1e9),
        "count_to": int(duration * 1e9),
    }
    sc = dumbbell(table, tcp_flows(1), duration=duration, warmup=warmup)
    # the gateway's clock, which the class reads, runs the plan's lead (the windows'
    # priming) before the scenario's time 0, and its window is the scenario's after it;
    # the bottleneck's queue is `table` itself
    lead = plan(sc).lead_s
    table.update(count_from=int((lead + warmup) * 1e9), count_to=int((lead + duration) * 1e9))
    s = run_testbed(sc, tmp_path / "out", prediction=False)
    for name in (LINK, BACK):
        link = s["links"][name]
        assert link["queue_type"] == "python"
        assert link["arrivals"] > 100, link
        assert link["aqm_stats"]["in_window"] == link["arrivals"], (name, link)
        assert link["aqm_stats"]["calls"] >= link["arrivals"]
    assert s["links"][LINK]["utilization"] > 0.85


def _red_holds_the_queue(s):
    """What test_testbed_flows.py asks of the built-in `red` with these thresholds."""
    link = s["links"][LINK]
    assert 5 <= link["mean_queue"] <= 15, link
    assert link["early_drops"] > 10, link
    assert link["utilization"] > 0.85, link


@pytest.mark.parametrize("kind", ["python", "plugin"])
def test_red_of_the_tutorial_holds_the_queue_between_the_thresholds(
    kind, classes, tmp_path, request
):
    """The tutorial's RED (Fig. 2 of Floyd & Jacobson 1993), as a class and as a plugin,
    with 4 Reno flows: the mean queue between min_th and max_th, early drops."""
    if kind == "python":
        table = {"type": "python", "class": "red_aqm:Red", **RED}
    else:
        plugin = request.getfixturevalue("plugins")["red"]
        table = {"type": "plugin", "path": str(plugin), **RED}
    sc = dumbbell(table, tcp_flows(4), duration=12, warmup=4)
    s = run_testbed(sc, tmp_path / "out", prediction=False)
    assert s["links"][LINK]["queue_type"] == kind
    _red_holds_the_queue(s)


def test_a_class_that_raises_stops_the_testbed_naming_it(classes, tmp_path):
    """The 201st packet raises: the run stops with the class, the method and the flow
    named, `out` is not written and the gateway's log is kept beside it."""
    table = {"type": "python", "class": "live_aqm:RaisesLater", "limit": 100}
    sc = dumbbell(table, tcp_flows(1), duration=6, warmup=1)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError) as e:
        run_testbed(sc, out, prediction=False)
    msg = str(e.value)
    for w in ("live_aqm:RaisesLater.enqueue", "flow", "ValueError: on purpose"):
        assert w in msg, msg
    assert not out.exists() or not any(out.iterdir())
    assert (tmp_path / "out.failed" / "gateway.log").exists()
