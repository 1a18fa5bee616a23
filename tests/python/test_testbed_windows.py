"""A flow's max_window on live Linux: the clamp, the kernel's window read from
tcp_info, and the error when they differ (docs/testbed.md, the windows section).

The plan-level tests need no root; the live ones (marker root) run two short flows."""

import json

import pytest

from aqmlab.testbed import WindowError, plan, run_testbed
from aqmlab.testbed import windows as wmod
from aqmlab.testbed.testing import dumbbell, skip_reason

_why = skip_reason()
needs_root = pytest.mark.skipif(_why is not None, reason=_why or "")
DROPTAIL = {"type": "droptail", "limit": 200}

# Bytes of TCP payload in a packet of `packet_size` bytes: 20 (IPv4) + 20 (TCP) +
# 12 (the timestamp option, RFC 7323 section 3) bytes of headers.
HEADERS = 20 + 20 + 12
# The largest window without window scaling (RFC 7323 section 2.2: 16-bit field).
UNSCALED_MAX = 65_535


def two_windows(**kw):
    """s1 -> k1 with max_window 20 of 1500-byte packets (28,960 bytes, below 64 KiB);
    s2 -> k1 with 100 of 1000-byte packets (94,800 bytes, above it)."""
    flows = [
        {"type": "tcp", "variant": "reno", "src": "s1", "packet_size": 1500, "max_window": 20},
        {"type": "tcp", "variant": "reno", "src": "s2", "packet_size": 1000, "max_window": 100},
    ]
    return dumbbell(DROPTAIL, flows, senders=2, **kw)


SS = """0      0      10.199.1.1:40000 10.199.2.1:5201
\t reno wscale:10,10 rto:256 rtt:52.0/1.2 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:20 bytes_sent:1000 unacked:19 rcv_space:14480 rcv_ssthresh:64088 snd_wnd:193536
0      0      10.199.2.1:5201 10.199.1.1:40000
\t reno wscale:10,10 rto:256 mss:1448 cwnd:10 rcv_space:36200 rcv_wnd:194560
"""


def test_ss_and_tcp_metrics_are_read():
    """tcp_info fields from `ss -tin` per connection; the cwnd metric per pair from
    `ip tcp_metrics show`."""
    conns = wmod.parse_ss(SS)
    snd = conns[("10.199.1.1:40000", "10.199.2.1:5201")]
    assert (snd["cwnd"], snd["unacked"], snd["mss"], snd["snd_wnd"]) == (20, 19, 1448, 193536)
    assert snd["wscale"] == (10, 10)
    assert conns[("10.199.2.1:5201", "10.199.1.1:40000")]["rcv_wnd"] == 194560
    text = "10.199.2.1 age 0.044sec cwnd 20 rtt 60271us rttvar 60271us source 10.199.1.1\n"
    assert wmod.parse_metrics(text) == {("10.199.1.1", "10.199.2.1"): 20}


def _window(cached, cwnd, mss=1448, packet_size=1500, max_window=20):
    f = plan(
        dumbbell(DROPTAIL, [{"type": "tcp", "packet_size": packet_size, "max_window": max_window}])
    ).flows[0]
    samples = wmod.Samples()
    samples.add({("s:1", "r:2"): {"cwnd": cwnd, "mss": mss, "wscale": (10, 10)}})
    return wmod.flow_window(f, "s:1", "r:2", samples, cached)


def test_a_window_that_differs_is_an_error_naming_both():
    """The kernel's clamp, its segment size and its cwnd are judged against the
    scenario's window; the message names the flow and both windows."""
    w = _window(20, 20)
    assert (w["scenario_bytes"], w["kernel_bytes"]) == (20 * (1500 - HEADERS), 20 * 1448)
    assert wmod.window_error(3, w) is None
    assert wmod.window_error(3, _window(21, 21)) == (
        "flow 3: the scenario's window is 20 packets (28,960 bytes), "
        "the kernel's 21 packets (30,408 bytes)"
    )
    # Segments of another size: the same count of packets, other bytes.
    assert "the kernel's 20 packets (28,000 bytes)" in wmod.window_error(
        3, _window(20, 20, mss=1400)
    )
    assert "cwnd reached 25 packets" in wmod.window_error(3, _window(20, 25))
    assert "holds no congestion-window clamp" in wmod.window_error(3, _window(None, 40))


@pytest.mark.root
@needs_root
def test_live_windows_are_the_scenarios_with_window_scaling(tmp_path):
    """Both flows send exactly their max_window: the kernel's clamp times its segment
    size is the scenario's window in bytes, cwnd and the packets in flight reach it
    and go no further (the Drop Tail buffer of 200 never overflows: 120 packets at
    most), and window scaling stays on (the 94,800-byte window could not be
    advertised without it); the summary carries each flow's window."""
    s = run_testbed(two_windows(duration=6, warmup=2), tmp_path / "out")
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text())
    for f, (packets, size) in zip(on_disk["flows"], [(20, 1500), (100, 1000)]):
        w = f["window"]
        assert w["scenario_packets"] == packets
        assert w["kernel_bytes"] == w["scenario_bytes"] == packets * (size - HEADERS)
        assert w["max_cwnd"] == packets and w["max_unacked"] == packets
        assert w["wscale"][0] >= 1, "the receiver's window is scaled"
    assert on_disk["flows"][1]["window"]["max_snd_wnd"] > UNSCALED_MAX
    assert "window_errors" not in s and s["comparison"] is not None


@pytest.mark.root
@needs_root
def test_live_window_the_kernel_does_not_hold_is_an_error(tmp_path, monkeypatch):
    """A clamp one packet wider than the scenario's (forced) is reported as an error
    naming the flow and both windows; the run is not compared (no prediction)."""
    real = wmod.apply_clamps
    monkeypatch.setattr(
        wmod, "apply_clamps", lambda tb, pl, c: real(tb, pl, {k: v + 1 for k, v in c.items()})
    )
    sc = dumbbell(
        DROPTAIL, [{"type": "tcp", "packet_size": 1500, "max_window": 20}], duration=3, warmup=1
    )
    with pytest.raises(
        WindowError,
        match=r"flow 0: the scenario's window is 20 packets \(28,960 bytes\), the kernel's 21 packets",
    ):
        run_testbed(sc, tmp_path / "out")
    failed = json.loads((tmp_path / "out.failed" / "summary.json").read_text())
    assert failed["window_errors"] and "comparison" not in failed
    assert not (tmp_path / "out").exists()
