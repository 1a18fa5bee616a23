"""Simulator features of the RFC 7928 evaluation through the Python API: the drop
trace, CBR batches, fixed-size web transfers, link rate changes, start-up times and
LEDBAT."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from aqmlab.sim import Scenario, simulate

RED_ECN = {
    "type": "red",
    "limit": 60,
    "min_th": 5,
    "max_th": 15,
    "w_q": 0.002,
    "max_p": 0.1,
    "ecn": True,
}

BASE: dict[str, Any] = {
    "duration": "10s",
    "seed": 3,
    "link": [
        {"a": "s1", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
        {"a": "r1", "b": "k1", "rate": "10Mbps", "delay": "20ms", "queue": RED_ECN},
    ],
    "flow": [
        {"src": "s1", "dst": "k1", "max_window": 200, "count": 3, "ecn": True},
        {"src": "s1", "dst": "k1", "max_window": 200, "count": 2},
    ],
}


def base(**top: Any) -> dict[str, Any]:
    sc = copy.deepcopy(BASE)
    sc.update(top)
    return sc


def test_drop_trace_is_the_packet_traces_signals(tmp_path):
    """`res.traces["drops"]` holds the `x` and `m` rows of the packet trace of the same
    run, as many as the link summary's drops and marks (the window is the whole run)."""
    res = simulate(base(trace={"packets": ["r1->k1"], "drops": ["r1->k1"]}), progress=False)
    drops = res.traces["drops"]
    assert list(drops.columns) == ["time", "link", "flow", "seq", "event"]
    pk = res.traces["packets"]
    pk = pk[pk["event"].isin(["x", "m"])][["time", "link", "flow", "seq", "event"]]
    assert drops.reset_index(drop=True).equals(pk.reset_index(drop=True))
    link = res.summary["links"]["r1->k1"]
    assert link["drops"] > 10 and link["marks"] > 10
    assert (drops["event"] == "x").sum() == link["drops"]
    assert (drops["event"] == "m").sum() == link["marks"]
    out = res.to_dir(tmp_path / "out")
    assert (out / "trace_drops.parquet").exists()
    assert Scenario(base(trace={"drops": ["r1->k1"]})).normalized()["trace"]["drops"] == ["r1->k1"]


def test_drop_trace_of_an_unknown_direction_is_refused():
    with pytest.raises(ValueError, match=r"^trace\.drops\[0\].*link direction"):
        Scenario(base(trace={"drops": ["k1->s1"]}))


def test_cbr_batch_is_normalized_with_the_spacing_of_its_batches():
    """`rate` stays the mean rate: B packets every B x size x 8 / rate."""
    sc = base()
    sc["flow"] = [
        {
            "type": "cbr",
            "src": "s1",
            "dst": "k1",
            "rate": "2.1Mbps",
            "batch": 7,
            "packet_size": 1500,
        },
        {"type": "cbr", "src": "s1", "dst": "k1", "interval": "40ms", "batch": 7},
        {"type": "cbr", "src": "s1", "dst": "k1", "rate": "1Mbps"},
    ]
    flows = Scenario(sc).normalized()["flows"]
    assert flows[0]["batch"] == 7 and flows[0]["interval"] == pytest.approx(7 * 1500 * 8 / 2.1e6)
    assert flows[1]["batch"] == 7 and flows[1]["interval"] == pytest.approx(0.04)
    assert flows[2]["batch"] == 1 and flows[2]["interval"] == pytest.approx(8000 / 1e6)
    res = simulate(dict(sc, duration="4s", warmup="2s"), progress=False)
    got = [f["goodput_bps"] for f in res.summary["flows"]]
    assert got[0] == pytest.approx(2.1e6, rel=0.03) and got[2] == pytest.approx(1e6, rel=0.03)


def test_web_fixed_transfer_sizes():
    """`size_distribution = "fixed"`: every transfer is `mean_packets` packets (here on
    a lossless path: the packets sent are 10 per transfer, all completed)."""
    sc = base(duration="30s")
    sc["link"][1]["queue"] = {"type": "droptail", "limit": 10000}
    web = {"type": "web", "src": "s1", "dst": "k1", "arrival_rate": 4, "max_transfers": 20}
    web.update(mean_packets=10, size_distribution="fixed", stop="20s", max_window=100)
    sc["flow"] = [web]
    n = Scenario(sc).normalized()["flows"]
    assert {f["transfer_sizes"] for f in n} == {"fixed"} and len(n) == 20
    flows = simulate(sc, progress=False).summary["flows"]
    done = sum(f["transfers"] for f in flows)
    assert done > 40
    assert sum(f["sent"] for f in flows) == 10 * done
    del web["size_distribution"]
    assert {f["transfer_sizes"] for f in Scenario(sc).normalized()["flows"]} == {"pareto"}


def test_rate_event_halves_a_saturated_link():
    """`[[event]] action = "rate"`: the bottleneck serves at 5 Mb/s from 10 s on."""
    sc = base(duration="20s", warmup="12s")
    sc["link"][1]["queue"] = {"type": "droptail", "limit": 100}
    sc["event"] = [{"at": "10s", "a": "r1", "b": "k1", "action": "rate", "rate": "5Mbps"}]
    ev = Scenario(sc).normalized()["events"][0]
    assert (ev["action"], ev["rate_bps"]) == ("rate", 5e6)
    link = simulate(sc, progress=False).summary["links"]["r1->k1"]
    assert link["throughput_bps"] == pytest.approx(5e6, rel=0.01)
    before = simulate(dict(sc, duration="10s", warmup="2s"), progress=False)
    assert before.summary["links"]["r1->k1"]["throughput_bps"] == pytest.approx(10e6, rel=0.01)
    sc["event"][0]["action"] = "down"
    with pytest.raises(ValueError, match=r"^event\[0\]\.rate: allowed only with action"):
        Scenario(sc)


def test_startup_times():
    """`startup_time` per TCP flow (its first data packet's trip on the idle path:
    1000 B at 100 Mb/s + 1 ms + 1000 B at 10 Mb/s + 20 ms), NaN in the flows table
    where none arrived; `mean_startup` and `fct_p95` for web pools."""
    sc = base(duration="10s")
    web = {"type": "web", "src": "s1", "dst": "k1", "arrival_rate": 5, "max_transfers": 10}
    sc["flow"] = [
        {"src": "s1", "dst": "k1", "packets": 50, "start": "1s"},
        {"src": "s1", "dst": "k1", "start": "20s"},
        dict(web, mean_packets=10, size_distribution="fixed", start="3s"),
    ]
    res = simulate(sc, progress=False)
    trip = 8000 / 100e6 + 1e-3 + 8000 / 10e6 + 20e-3
    flows = res.summary["flows"]
    assert flows[0]["startup_time"] == pytest.approx(trip, abs=1e-9)
    assert flows[1]["startup_time"] is None
    df = res.flows
    assert df["startup_time"].isna().tolist() == [False, True] + [True] * 10
    pool = flows[2:]
    assert pool[0]["fct_p95"] >= max(f["mean_fct"] or 0 for f in pool)
    assert all(f["fct_p95"] is None for f in pool[1:])
    for f in pool:
        if f["transfers"]:
            assert trip - 1e-9 <= f["mean_startup"] < f["mean_fct"]


@pytest.mark.parametrize(
    "key, value, allowed",
    [
        ("ledbat_target", "0s", r"\(0, 10\] s"),
        ("ledbat_target", 11.0, r"\(0, 10\] s"),
        ("ledbat_gain", 0, r"\(0, 100\]"),
        ("ledbat_gain", float("nan"), r"\(0, 100\]"),
        ("ledbat_base_history", 0, "1"),
    ],
)
def test_ledbat_keys_out_of_range_are_refused(key, value, allowed):
    """A bad LEDBAT key is a ValueError naming the flow's field and its allowed range."""
    sc = base(flow=[{"src": "s1", "dst": "k1", "variant": "ledbat", key: value}])
    with pytest.raises(ValueError, match=rf"flow\[0\]\.{key}.*{allowed}"):
        Scenario(sc)


def test_ledbat_yields_to_newreno_under_a_full_buffer_and_not_under_red():
    """Beside NewReno behind a 300-packet Drop Tail buffer (240 ms when full, above the
    100 ms target) LEDBAT yields; behind RED's short queue it competes as NewReno does.
    (LEDBAT starts 1 s after NewReno; its window falls by at most 1.4 packets per round
    trip at 240 ms, so the 30 s warm-up lets it come down first.)"""

    def goodputs(queue: dict[str, Any]) -> dict[str, float]:
        sc = base(duration="120s", warmup="30s")
        sc["link"][1]["queue"] = queue
        sc["flow"] = [
            {"name": "ledbat", "src": "s1", "dst": "k1", "variant": "ledbat", "start": 1.0},
            {"name": "reno", "src": "s1", "dst": "k1"},
        ]
        for f in sc["flow"]:
            f["max_window"] = 1000
        f = simulate(Scenario(sc)).flows.set_index("name")
        return {n: float(f.loc[n, "goodput_bps"]) for n in ("ledbat", "reno")}

    tail = goodputs({"type": "droptail", "limit": 300})
    assert tail["ledbat"] < 0.05 * tail["reno"]
    red = goodputs(dict(RED_ECN, ecn=False, limit=300))
    assert 0.5 < red["ledbat"] / red["reno"] < 2
