"""Helpers of the Bonald, May & Bolot Section V reproductions (aqmlab.reproduce.bonald2000_tcp)."""

import numpy as np
import pandas as pd
import pytest

from aqmlab.reproduce import bonald2000_tcp as b
from aqmlab.sim import Scenario


@pytest.mark.parametrize("n", [1, 2, 7, 10, 19, 20, 21, 25, 50, 99, 100, 120, 150])
def test_flow_counts_sum_and_spread(n):
    c = b.flow_counts(n)
    assert len(c) == b.CLASSES and sum(c) == n and min(c) >= 0
    if n >= b.CLASSES:
        assert max(c) - min(c) <= 1  # as even as possible
    else:
        assert max(c) == 1
        if n > 1:  # the whole range of round-trip times is used
            assert c[0] == 1 and c[-1] == 1


def test_flow_counts_rejects_zero():
    with pytest.raises(ValueError):
        b.flow_counts(0)


def test_access_delays_give_the_paper_rtt_range():
    rtts = [2 * (2 * b.access_delay(c) + b.BOTTLENECK_DELAY) for c in range(b.CLASSES)]
    assert rtts[0] == pytest.approx(0.120) and rtts[-1] == pytest.approx(0.220)
    assert np.all(np.diff(rtts) > 0)


def test_scenario_file_matches_helpers():
    base = b.load_base()
    links = base["link"]
    assert links[0]["a"] == "r1" and links[0]["b"] == "r2" and links[0]["rate"] == "10Mbps"
    tcp = [f for f in base["flow"] if f["type"] == "tcp"]
    udp = [f for f in base["flow"] if f["type"] == "cbr"]
    assert base["flow"][: b.CLASSES] == tcp  # classes first: the sweeps set flow[c].count
    assert [f["count"] for f in tcp] == b.flow_counts(b.TABLE5_FLOWS)
    assert sum(f["rate"] for f in udp) == pytest.approx(0.1 * b.RATE)  # 10% of the bottleneck
    assert all(f["variant"] == "newreno" for f in tcp)
    norm = Scenario(base).normalized()
    delay = {d["from"]: d["delay"] for d in norm["directions"] if d["to"] == "r1"}
    for c in range(b.CLASSES):
        assert delay[f"s{c}"] == pytest.approx(b.access_delay(c), abs=1e-7)
    assert links[0]["queue_ab"] == b.droptail(b.BUFFER)


def test_queues():
    r = b.red(40)
    assert (r["limit"], r["min_th"], r["max_th"], r["max_p"], r["w_q"]) == (39, 10, 30, 0.1, 0.002)
    r = b.red(200, 50, 150)
    assert (r["limit"], r["min_th"], r["max_th"]) == (199, 50, 150)
    assert b.queue_for("droptail", 150) == {"type": "droptail", "limit": 149}


def test_prepare_drops_empty_classes_and_validates():
    base = b.load_base()
    for c, k in enumerate(b.flow_counts(10)):
        base["flow"][c]["count"] = k
    sc = b.prepare(base)
    assert sum(f.get("count", 1) for f in sc["flow"] if f["type"] == "tcp") == 10
    assert all(f.get("count", 1) > 0 for f in sc["flow"])
    assert base["flow"][1]["count"] == 0  # the input is not modified
    b.run_point.validate(base)  # zero counts are accepted by the runner's validation


def test_class_stats():
    flows = pd.DataFrame(
        {
            "type": ["tcp", "tcp", "cbr"],
            "arrivals": [100, 300, 50],
            "drops": [10, 30, 1],
            "goodput_bps": [1e6, 3e6, 5e4],
            "timeouts": [1, 2, 0],
            "fast_retransmits": [3, 4, 0],
            "retransmits": [5, 6, 0],
        }
    )
    s = b.class_stats(flows)
    assert s["tcp_loss"] == pytest.approx(0.1) and s["udp_loss"] == pytest.approx(0.02)
    assert s["tcp_goodput_bps"] == 4e6 and s["udp_goodput_bps"] == 5e4
    assert s["tcp_timeouts"] == 3 and s["tcp_flows"] == 2
    assert s["tcp_jain"] == pytest.approx(16 / (2 * 10))


def test_queue_stats():
    q = np.array([0, 0, 5, 9, 9])
    s = b.queue_stats(q, q * 0.5, limit=10)
    assert s["empty"] == pytest.approx(0.4) and s["full"] == pytest.approx(0.4)
    assert s["mean"] == pytest.approx(q.mean()) and s["std"] == pytest.approx(q.std())
    assert s["avg_mean"] == pytest.approx(q.mean() / 2)


def test_packet_delays_match_arrival_and_departure():
    pk = pd.DataFrame(
        {
            "time": [0.0, 0.0, 0.1, 0.2, 0.3, 0.5, 0.6],
            "event": ["a", "d", "a", "x", "a", "d", "d"],
            "flow": [7, 7, 7, 7, 1, 7, 1],
            "seq": [0, 0, 1, 2, 0, 1, 0],
            "ack": [0] * 7,
        }
    )
    t, d = b.packet_delays(pk, [7])
    assert list(t) == [0.0, 0.1]  # the dropped packet (seq 2) and flow 1 are left out
    assert d == pytest.approx([0.0, 0.4])


@pytest.mark.parametrize("quick", [True, False])
def test_sweep_specs_are_valid(quick):
    from aqmlab.sweeps import load_spec

    n_flows = len(b.flows_settings(quick)["flows"])
    s = load_spec(b.flows_spec(quick))
    assert len(s.points) == n_flows * 2 * b.flows_settings(quick)["reps"]
    assert len(load_spec(b.delay_spec(quick)).points) == 2 * len(b.DELAY_BUFFERS)
    assert len(load_spec(b.queue_spec(quick)).points) == 2 * len(b.queue_flows(quick))
    assert b.TABLE5_FLOWS in b.flows_settings(quick)["flows"]
