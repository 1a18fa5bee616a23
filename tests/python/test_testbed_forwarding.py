"""The gateway's forwarding path on live frames: every frame of a paced flow crosses
intact with either way of reading and writing the sockets, and reading in batches
adds no delay worth counting at 10 Mb/s (root and `ip netns` needed; skipped otherwise)."""

import json
import time

import pytest

from aqmlab.testbed.gateway import gateway_binary
from aqmlab.testbed.network import Testbed
from aqmlab.testbed.testing import skip_reason

_why = skip_reason()
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

RED = '{"type":"red","limit":1000,"min_th":5,"max_th":15}'
# Holds any burst a loaded sender makes at these rates: no drop.
DROPTAIL = '{"type":"droptail","limit":1000}'


def _paced_flow(tmp_path, io: str, pps: float, seconds: float, rate: str, queue: str):
    """`pps` UDP packets of 1500 bytes per second for `seconds` from A to B through a
    gateway (line `rate`, no delay, `queue`); returns (blast, count, gateway statistics)."""
    args = ["--rate", rate, "--delay", "0", "--queue", queue, "--io", io]
    with Testbed(tmp_path, args, {"a": 1, "b": 1}) as tb:
        gw = tb.gateway_bin
        cnt = tb.spawn("b", [gw, "count", "--iface", "eth0"], stdout=tmp_path / "count.json")
        time.sleep(0.3)
        cmd = [gw, "blast", "--iface", "eth0", "--size", "1500", "--flows", "8"]
        blast = tb.spawn(
            "a", cmd + ["--seconds", str(seconds), "--pps", str(pps)], stdout=tmp_path / "b.json"
        )
        assert blast.wait(seconds + 30) == 0
        time.sleep(0.3)
        cnt.terminate()
        cnt.wait(5)
        stats = tb.stop_gateway()
    b = json.loads((tmp_path / "b.json").read_text())
    c = json.loads((tmp_path / "count.json").read_text())
    return b, c, stats


@pytest.mark.parametrize("io", ["rings", "mmsg"])
def test_every_frame_of_a_paced_flow_crosses_intact(tmp_path, io):
    """At 5000 packets/s through a 1 Gb/s Drop Tail line every frame the sender sends reaches the receiver as a valid IP packet of its size, through the rings and through recvmmsg/sendmmsg."""
    b, c, stats = _paced_flow(tmp_path, io, pps=5000, seconds=2, rate="1Gbps", queue=DROPTAIL)
    assert stats["gateway"]["io"] == io
    ab = stats["links"]["ab"]
    side_a, side_b = stats["gateway"]["side_a"], stats["gateway"]["side_b"]
    assert b["sent"] > 8000 and b["refused"] == 0
    # Beside the flood, side A may send a few IPv6 neighbour discovery packets.
    assert b["sent"] <= side_a["ip"] <= b["sent"] + 20
    assert ab["arrivals"] == side_a["ip"] and ab["drops"] == 0
    assert ab["departures"] == side_a["ip"]
    assert side_b["tx_frames"] == side_a["rx_frames"] and side_b["tx_errors"] == 0
    # Every frame of the flood arrives on B, whole; a corrupted one would fail the
    # IPv4 header checksum and not count as IP. (A neighbour discovery packet sent
    # after the counter stopped is the only frame that may miss it.)
    assert b["sent"] <= c["ip"] <= side_a["ip"], (c, side_a)
    assert b["sent"] * (1500 + 14) <= c["bytes"] <= side_a["rx_bytes"], (c, side_a)


def test_reading_in_batches_adds_under_a_tenth_of_a_millisecond_at_10_mbps(tmp_path):
    """Through a 10 Mb/s line, a paced 8 Mb/s flow of 1500-byte packets waits, from the kernel's receive timestamp to the gateway's queue, and from its release time to the send, under 0.1 ms (median)."""
    pps = 0.8 * 10e6 / (1500 * 8)
    b, c, stats = _paced_flow(tmp_path, "rings", pps=pps, seconds=3, rate="10Mbps", queue=RED)
    side_a, side_b = stats["gateway"]["side_a"], stats["gateway"]["side_b"]
    assert side_a["rx_timestamped"] == side_a["ip"] >= 0.9 * pps * 3
    assert side_a["rx_lag_p50_s"] < 1e-4, side_a
    assert side_b["tx_lag_p50_s"] < 1e-4, side_b
    # The line is as fast as the flow: the model's queueing delay (arrival to start of
    # transmission) stays within a few packet times.
    assert stats["links"]["ab"]["delay_p50"] < 3 * 1500 * 8 / 10e6


@pytest.mark.parametrize("receive", ["thread", "inline"])
def test_the_bench_reports_the_cpu_time_per_forwarded_packet(tmp_path, receive):
    """The benchmark's run at a rate the gateway keeps up with: nothing lost, and each process's CPU time, divided by its packets, in the row; the receiving host's NAPI thread has CPU time exactly when side B receives in one."""
    from aqmlab.testbed.bench import measure

    r = measure(1500, 1.0, tmp_path, gateway_binary(), pps=2000, receive=receive)
    # (side A may add a few IPv6 neighbour discovery packets to the flood)
    assert r["offered"] >= 1500 and r["lost_pct"] <= 0.0
    assert r["offered"] <= r["forwarded"] <= r["offered"] + 20
    assert r["offered"] <= r["received_at_b"] <= r["offered"] + 20
    for who, n in (("gateway", r["forwarded"]), ("sender", r["offered"])):
        assert r[f"{who}_cpu_s"] > 0
        assert r[f"{who}_us_per_packet"] == pytest.approx(1e6 * r[f"{who}_cpu_s"] / n)
    assert 0 < r["gateway_cpu_share"] < 1 and r["gateway_wait_share"] >= 0
    if receive == "thread":
        assert r["rx_threads_cpu_s"] > 0
        assert r["rx_threads_us_per_packet"] == pytest.approx(
            1e6 * r["rx_threads_cpu_s"] / r["received_at_b"]
        )
    else:
        assert r["rx_threads_cpu_s"] == 0
    assert r["load_avg"] >= 0


@pytest.mark.parametrize("receive", ["thread", "inline"])
def test_the_realtime_setting_runs_the_gateway_under_sched_fifo_and_the_hosts_at_nice_minus_20(
    tmp_path, receive
):
    """With scheduling = "realtime" the gateway runs under SCHED_FIFO 50 and a host's traffic process (and, receiving in threads, the host's NAPI thread) at niceness -20 under the default policy, as the kernel reports them; other processes keep the default; the gateway's statistics and the testbed's record say so. Under "normal" nothing is raised."""
    import os

    from aqmlab.testbed.netns import napi_threads
    from aqmlab.testbed.network import GATEWAY_PRIORITY, HOST_NICE

    def policy(pid: int) -> tuple[int, int, int]:
        nice = os.getpriority(os.PRIO_PROCESS, pid)
        return os.sched_getscheduler(pid), os.sched_getparam(pid).sched_priority, nice

    args = ["--rate", "10Mbps", "--delay", "0", "--queue", RED]
    before = set(napi_threads())
    with Testbed(tmp_path, args, {"a": 1, "b": 1}, receive=receive, scheduling="realtime") as tb:
        assert tb.gw is not None and tb.scheduling_errors == []
        assert policy(tb.gw.pid)[:2] == (os.SCHED_FIFO, GATEWAY_PRIORITY)
        traffic = tb.spawn("a", ["sleep", "30"], traffic=True)
        other = tb.spawn("b", ["sleep", "30"])
        time.sleep(0.3)
        assert policy(traffic.pid) == (os.SCHED_OTHER, 0, HOST_NICE)
        assert policy(other.pid) == (os.SCHED_OTHER, 0, 0)
        napi = set(napi_threads()) - before
        assert len(napi) == (2 if receive == "thread" else 0)
        assert all(policy(p) == (os.SCHED_OTHER, 0, HOST_NICE) for p in napi)
        stats = tb.stop_gateway()
        record = tb.scheduling_record(stats)
    assert stats is not None
    sched = stats["gateway"]["scheduling"]
    assert sched == {
        "requested_priority": GATEWAY_PRIORITY,
        "policy": "fifo",
        "priority": GATEWAY_PRIORITY,
        "timer_slack_ns": 0,  # real-time threads get none
        "error": None,
    }
    assert record["hosts"] == f"nice {HOST_NICE}" and record["errors"] == []
    with Testbed(tmp_path / "n", args, {"a": 1, "b": 1}, scheduling="normal") as tb:
        assert tb.gw is not None
        assert policy(tb.gw.pid) == (os.SCHED_OTHER, 0, 0)
        traffic = tb.spawn("a", ["sleep", "30"], traffic=True)
        time.sleep(0.3)
        assert policy(traffic.pid) == (os.SCHED_OTHER, 0, 0)
        stats = tb.stop_gateway()
    assert stats is not None
    assert stats["gateway"]["scheduling"]["policy"] == "other"
    assert stats["gateway"]["scheduling"]["timer_slack_ns"] == 1
