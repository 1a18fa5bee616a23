"""Live Linux flows through aqmlab-gateway (root and `ip netns` needed; skipped otherwise)."""

import pytest

from aqmlab.testbed import run_testbed
from aqmlab.testbed.testing import dumbbell, skip_reason, tcp_flows

_why = skip_reason()
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

LINK = "r1->r2"


def test_one_tcp_flow_fills_the_link(tmp_path):
    """One Reno flow through a 10 Mb/s, 20 ms gateway reaches more than 90% utilization."""
    s = run_testbed(
        dumbbell({"type": "droptail", "limit": 100}, tcp_flows(1), duration=8, warmup=2),
        tmp_path,
        prediction=False,
    )
    assert s["links"][LINK]["utilization"] > 0.90
    assert s["flows"][0]["goodput_bps"] > 0.85 * 10e6


def test_red_holds_the_queue_between_the_thresholds(tmp_path):
    """With RED (min_th 5, max_th 15) and 4 Reno flows the mean queue sits between the thresholds, with early drops and rare forced drops."""
    s = run_testbed(
        dumbbell(
            {"type": "red", "limit": 100, "min_th": 5, "max_th": 15},
            tcp_flows(4),
            duration=12,
            warmup=4,
        ),
        tmp_path,
        prediction=False,
    )
    l = s["links"][LINK]
    assert 5 <= l["mean_queue"] <= 15, l
    assert 5 <= l["mean_avg"] <= 15, l
    assert l["early_drops"] > 10
    assert l["forced_drops"] <= 0.1 * l["drops"]
    assert l["utilization"] > 0.9


def test_ecn_tcp_sees_ce_marks_and_no_early_drops(tmp_path):
    """ECN-capable TCP through RED with ecn on receives CE marks (counted at the receiver) and loses no packet below max_th."""
    q = {"type": "red", "limit": 100, "min_th": 5, "max_th": 15, "ecn": True}
    s = run_testbed(
        dumbbell(q, tcp_flows(4, ecn=True), duration=8, warmup=2), tmp_path, prediction=False
    )
    l = s["links"][LINK]
    ce = s["testbed"]["ce_received"]["b"]
    assert l["marks"] > 0
    assert ce >= l["marks"], "every mark in the window reached the receiver as CE"
    # Below max_th ECN-capable packets are marked, never dropped. Early drops can only
    # hit packets Linux sends Not-ECT (retransmissions, SYNs, pure ACKs: RFC 3168 6.1.5);
    # above max_th RED drops even ECT packets (forced, as ns-2 does), and that is rare.
    assert l["early_drops_ect"] == 0
    assert l["early_drops"] <= 0.005 * l["arrivals"]
    assert l["forced_drops"] <= 0.02 * l["arrivals"]
    assert l["marks_not_ect"] == 0


def test_red_does_not_hold_a_udp_flood(tmp_path):
    """A UDP flood at twice the link rate takes nearly all of a RED link from a TCP flow."""
    flows = [{"type": "cbr", "rate": "20Mbps", "packet_size": 1000, "start": 0.5}] + tcp_flows(1)
    s = run_testbed(
        dumbbell(
            {"type": "red", "limit": 100, "min_th": 5, "max_th": 15}, flows, duration=8, warmup=3
        ),
        tmp_path,
        prediction=False,
    )
    udp, tcp = s["flows"][0]["goodput_bps"], s["flows"][1]["goodput_bps"]
    assert udp > 0.8 * 10e6
    assert tcp < 0.15 * 10e6


def test_fred_holds_a_udp_flood_to_its_share(tmp_path):
    """A UDP flood at twice the link rate is held by FRED to about its share while a TCP flow gets the rest."""
    flows = [{"type": "cbr", "rate": "20Mbps", "packet_size": 1000, "start": 0.5}] + tcp_flows(1)
    # Lin & Morris Sec. 4.5: minq = 4 for large buffers (100 packets is large beside the paper's 16-56)
    q = {"type": "fred", "limit": 100, "min_th": 5, "max_th": 15, "min_q": 4}
    # Real packets: the shares move with the host's timing from run to run (UDP 6.0-6.5
    # Mb/s typically over 10 s, once 7.04 on a busy machine); a 20 s window steadies them.
    s = run_testbed(dumbbell(q, flows, duration=26, warmup=6), tmp_path, prediction=False)
    udp, tcp = s["flows"][0]["goodput_bps"], s["flows"][1]["goodput_bps"]
    assert udp < 0.7 * 10e6, (udp, tcp)
    assert tcp > 0.25 * 10e6, (udp, tcp)
    assert s["links"][LINK]["utilization"] > 0.85
