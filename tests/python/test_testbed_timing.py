"""The testbed's timing figures (python -m aqmlab.testbed.timing): runs and close
packets counted from timestamps worked by hand, per flow, over the window."""

import pytest

from aqmlab.testbed.timing import Packet, close, figures, in_runs, lateness

US = 1e-6


def test_a_run_is_four_or_more_packets_each_within_100_us_of_the_previous():
    """Per flow: 0, 50, 100, 150 us is a run of 4; a packet 1 ms later stands alone; a run of 3 (99 us gaps) is not a burst, nor are packets 150 us apart."""
    flow1 = [0.0, 50 * US, 100 * US, 150 * US, 1150 * US]
    flow2 = [0.0, 99 * US, 198 * US, 1.0, 1.0 + 150 * US, 1.0 + 300 * US, 1.0 + 450 * US]
    # flow 1: 4 of 5 in a run; flow 2: a run of 3 and four packets 150 us apart: 0 of 7
    assert in_runs([flow1]) == pytest.approx(4 / 5)
    assert in_runs([flow2]) == 0.0
    assert in_runs([flow1, flow2]) == pytest.approx(4 / 12)
    # the two flows' packets interleaved would make one run: flows are apart
    assert in_runs([sorted(flow1 + flow2)]) > in_runs([flow1, flow2])
    assert in_runs([]) is None


def test_close_counts_the_gaps_under_100_us():
    """Gaps of 50, 50, 1000 and 150 us: two of four are under 100 us."""
    ts = [0.0, 50 * US, 100 * US, 1100 * US, 1250 * US]
    assert close([ts]) == pytest.approx(2 / 4)
    assert close([[0.0]]) is None


def _data(t, sport=40000, seq=0):
    return Packet(t, True, sport, 5201, seq, 0, 1448)


def test_figures_take_the_window_after_the_first_data_packet_and_each_direction():
    """The sender's data, the receiver's copy of it, the receiver's ACKs and the sender's copy of them, each judged over [warmup, duration] after the sender's first data packet."""
    start = 100.0
    sent = [_data(start)] + [_data(start + 2 + k * 0.6e-3, seq=k) for k in range(8)]
    # the receiver gets packets 0-7 of the window as two runs of 4 (delivered at once)
    got = [
        p._replace(out=False, t=start + 2 + (k // 4) * 0.01 + (k % 4) * 10 * US)
        for k, p in enumerate(sent[1:])
    ]
    acks_out = [Packet(start + 2 + k * 1e-3, True, 5201, 40000, 0, k, 0) for k in range(4)]
    acks_in = [
        p._replace(out=False, t=start + 2.1 + (k // 2) * 1e-3 + (k % 2) * 20 * US)
        for k, p in enumerate(acks_out)
    ]
    late = [_data(start + 50, seq=99)]  # after the window
    f = figures(sent + acks_in + late, got + acks_out, warmup=1.0, duration=40.0)
    assert f["data_runs_at_receiver"] == 1.0
    assert f["data_runs_at_sender"] == 0.0  # paced 0.6 ms apart
    assert f["acks_close_as_sent"] == 0.0
    assert f["acks_close_at_sender"] == pytest.approx(2 / 3)  # gaps 20 us, 980 us, 20 us
    assert figures([], got, 1.0, 40.0) == {}


def test_lateness_reads_the_gateways_tx_lag_per_side_in_ms():
    gw = {"side_b": {"tx_lag_p50_s": 2.5e-5, "tx_lag_p99_s": 0.0048}, "side_a": {}}
    assert lateness(gw) == {
        "tx_lag_b_p50_ms": 0.025,
        "tx_lag_b_p99_ms": 4.8,
        "tx_lag_a_p50_ms": None,
        "tx_lag_a_p99_ms": None,
    }
