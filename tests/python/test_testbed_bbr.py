"""BBR on the testbed: `variant = "bbr"` runs Linux's bbr, what `ss -ti` shows of it,
the retransmissions counted over the window, and the grid's cells and bounds
(docs/testbed.md, BBR section). The live test needs root and `ip netns`."""

import pytest

from aqmlab.testbed import KERNEL_CC, plan, run_testbed
from aqmlab.testbed import bbr_grid as grid
from aqmlab.testbed import windows as wmod
from aqmlab.testbed.flows import window_retransmits
from aqmlab.testbed.testing import dumbbell, skip_reason

_why = skip_reason()
needs_root = pytest.mark.skipif(_why is not None, reason=_why or "")
DROPTAIL = {"type": "droptail", "limit": 100}

SS = """0      0      10.199.1.1:40000 10.199.2.1:5201
\t bbr wscale:7,7 rto:224 rtt:21.5/0.4 mss:1448 cwnd:52 bytes_sent:9 data_segs_out:900 bbr:(bw:19876543bps,mrtt:20.1,pacing_gain:1.25,cwnd_gain:2) send 28Mbps pacing_rate 24598222bps delivery_rate 19Mbps retrans:0/12 snd_wnd:65536
0      0      10.199.1.1:40002 10.199.2.1:5202
\t cubic wscale:7,7 rto:224 mss:1448 cwnd:30 send 16.1Mbps pacing_rate 19.3Mbps delivery_rate 9.9Mbps
"""


def test_bbr_runs_as_the_kernels_bbr():
    """variant = "bbr" (the simulator's BBR v1) maps to Linux's tcp_bbr module."""
    assert KERNEL_CC["bbr"] == "bbr"
    sc = dumbbell(DROPTAIL, [{"type": "tcp", "variant": "bbr", "sack": True}])
    assert plan(sc).flows[0].kernel_cc == "bbr"


def test_ss_shows_the_congestion_control_and_its_pacing_rate():
    """The module's name is the info line's first word; the pacing rate is read in
    b/s whether `ss` prints it raw or with a unit prefix."""
    conns = wmod.parse_ss(SS)
    bbr = conns[("10.199.1.1:40000", "10.199.2.1:5201")]
    assert (bbr["cc"], bbr["pacing_rate"], bbr["bbr_bw"]) == ("bbr", 24598222.0, 19876543.0)
    cubic = conns[("10.199.1.1:40002", "10.199.2.1:5202")]
    assert (cubic["cc"], cubic["pacing_rate"]) == ("cubic", 19.3e6)
    samples = wmod.Samples()
    for rate in (30e6, 20e6, 19e6, 21e6, 18e6):
        samples.add({("s:1", "r:2"): {"cc": "bbr", "pacing_rate": rate, "bbr_bw": rate / 2}})
    assert wmod.flow_congestion(samples, "s:1", "r:2") == {
        "kernel_cc_seen": "bbr",
        "pacing_rate_bps": 20e6,
        "bbr_bw_bps": 10e6,
    }
    assert wmod.flow_congestion(samples, "s:9", "r:2") == {
        "kernel_cc_seen": None,
        "pacing_rate_bps": None,
        "bbr_bw_bps": None,
    }


def test_retransmissions_are_counted_over_the_window():
    """The client's per-interval retransmissions, prorated to [warmup, duration]."""
    client = {
        "intervals": [
            {"sum": {"start": i * 0.5, "end": (i + 1) * 0.5, "retransmits": 4}} for i in range(20)
        ]
    }
    # 8 a second for 10 s from t = 1; window [2, 8]: 6 s, and 3 s from t = 5
    assert window_retransmits(client, 1.0, 2.0, 8.0) == pytest.approx(48)
    assert window_retransmits(client, 5.0, 2.0, 8.0) == pytest.approx(24)
    assert window_retransmits({"intervals": [{"sum": {"start": 0, "end": 1}}]}, 0, 0, 1) is None


def test_the_grid_has_the_cells_and_buffers_it_names():
    """24 cells: 3 flow mixes x 2 RTTs x 4 queues; Drop Tail of 1 and 4 BDP in
    1500-byte packets at 20 Mb/s (20 ms: 33.3 packets, 80 ms: 133.3)."""
    assert len(grid.cells()) == 24
    assert grid.bdp_packets(20) == pytest.approx(20e6 * 0.020 / 12000)
    assert grid.queue_config("droptail1", 20)["limit"] == 33
    assert grid.queue_config("droptail4", 80)["limit"] == 533
    sc = grid.scenario("bbr+cubic", 80, "codel", 40, 10)
    assert [f["variant"] for f in sc["flow"]] == ["bbr", "cubic"]
    pl = plan(sc)
    # One way: the bottleneck's 40 ms, no access delay: a base RTT of 80 ms.
    assert pl.delay_s == pytest.approx(0.040) and pl.rate_ab == 20e6
    assert [f.kernel_cc for f in pl.flows] == ["bbr", "cubic"]


def test_a_cell_is_inside_when_every_bound_holds():
    """Utilization within 2 points, mean queue within 25 % and retransmission rate
    within 30 % of the testbed's, BBR's share within 0.1 (where there is a share)."""
    t = grid.Side(0.95, 20.0, retx_rate=0.01)
    assert all(grid.verdicts(t, grid.Side(0.93, 25.0, retx_rate=0.013)).values())
    v = grid.verdicts(t, grid.Side(0.929, 25.1, retx_rate=0.0131))
    assert v == {"utilization": False, "mean_queue": False, "retx_rate": False}
    share = grid.verdicts(
        grid.Side(1, 1, retx_rate=0, share=0.5), grid.Side(1, 1, retx_rate=0, share=0.61)
    )
    assert share == {"utilization": True, "mean_queue": True, "retx_rate": True, "share": False}


@pytest.mark.root
@needs_root
def test_live_bbr_is_the_kernels_and_paces_near_the_link_rate(tmp_path):
    """One BBR flow at 20 Mb/s, RTT 20 ms: `ss -ti` shows bbr on the sender's socket,
    and its median pacing rate lies within ProbeBW's gains (0.75 to 1.25, tcp_bbr.c's
    bbr_pacing_gain) of the bottleneck's rate in TCP payload (1448 of 1500 bytes)."""
    sc = grid.scenario("bbr1", 20, "droptail1", 8, 3)
    s = run_testbed(sc, tmp_path / "out", prediction=False)
    f = s["flows"][0]
    assert f["kernel_cc"] == f["kernel_cc_seen"] == "bbr"
    payload_rate = 20e6 * 1448 / 1500
    assert 0.75 * payload_rate <= f["pacing_rate_bps"] <= 1.25 * payload_rate, f
    assert s["links"]["r1->r2"]["utilization"] > 0.9
