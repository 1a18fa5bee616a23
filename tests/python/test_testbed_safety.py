"""The testbed's safety: privileges, neighbour discovery, floods, crashes and cleanup."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aqmlab.base import pid_alive
from aqmlab.testbed import Testbed, netns, owned_namespaces
from aqmlab.testbed.scenario import dumps
from aqmlab.testbed.testing import dumbbell, skip_reason, tcp_flows

_why = skip_reason()
_skip = pytest.mark.skipif(_why is not None, reason=_why or "")


def needs_root(test):
    """A test of the live testbed: marked `root`, skipped where it cannot run."""
    return pytest.mark.root(_skip(test))


GW_ARGS = [
    "--rate",
    "10Mbps",
    "--delay",
    "20ms",
    "--queue",
    '{"type":"red","limit":100,"min_th":5,"max_th":15}',
]
REPO = Path(__file__).resolve().parents[2]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_refuses_without_privileges_with_a_clear_message(monkeypatch, capsys):
    """Without root or CAP_NET_ADMIN the testbed refuses to start and says what it needs."""
    from aqmlab.testbed import core

    monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(netns, "_capabilities", lambda: 0)
    msg = netns.privilege_problem()
    assert msg and "root" in msg and "CAP_NET_ADMIN" in msg
    import argparse

    p = argparse.ArgumentParser()
    core.add_arguments(p)
    assert core.run(p.parse_args(["x.toml", "--out", "/nonexistent"])) == 2
    assert "needs root" in capsys.readouterr().err


def test_cleanup_refuses_foreign_namespaces():
    """Only namespaces named aqmlab-<pid>-<role> are ever deleted."""
    with pytest.raises(ValueError):
        netns.delete_namespace("somebody-elses-ns")


@needs_root
def test_arp_and_ipv6_neighbour_discovery_cross_the_gateway(tmp_path):
    """Both sides resolve each other (ARP, IPv6 ND) and exchange TCP over IPv4 and IPv6 across the gateway."""
    with Testbed(tmp_path, GW_ARGS, {"a": 1, "b": 1}) as tb:
        for i, addr in enumerate(("10.199.2.1", "fd00:199::2:1")):
            tb.spawn("b", ["iperf3", "-s", "-1", "-B", addr, "-p", str(5301 + i)])
            time.sleep(0.3)
            r = netns.sh(
                ["iperf3", "-c", addr, "-p", str(5301 + i), "-n", "200K"],
                ns=tb.ns["a"],
                check=False,
                timeout=30,
            )
            assert r.returncode == 0, r.stdout + r.stderr
        stats = tb.stop_gateway()
    g = stats["gateway"]
    assert g["side_a"]["arp_forwarded"] >= 1 and g["side_b"]["arp_forwarded"] >= 1
    assert stats["links"]["ab"]["departures"] >= 4  # pings and ND through the queue


def _iperf(tb, out: Path, seconds: int) -> float:
    tb.spawn("b", ["iperf3", "-s", "-1", "-B", "10.199.2.1"])
    time.sleep(0.3)
    c = tb.spawn(
        "a", ["iperf3", "-c", "10.199.2.1", "-t", str(seconds), "-J", "-C", "reno"], stdout=out
    )
    c.wait(seconds + 20)
    return json.loads(out.read_text())["end"]["sum_received"]["bits_per_second"]


@needs_root
def test_garbage_flood_does_not_stop_forwarding(tmp_path):
    """A flood of random frames (runts, non-IP, broken IP headers) is counted and dropped while TCP keeps flowing."""
    with Testbed(tmp_path, GW_ARGS, {"a": 1, "b": 1}) as tb:
        junk = tb.spawn(
            "a",
            [tb.gateway_bin, "blast", "--iface", "eth0", "--garbage", "--seconds", "6"],
            stdout=tmp_path / "blast.json",
        )
        goodput = _iperf(tb, tmp_path / "client.json", 5)
        junk.wait(20)
        stats = tb.stop_gateway()
    sent = json.loads((tmp_path / "blast.json").read_text())["sent"]
    a = stats["gateway"]["side_a"]
    dropped = a["non_ip_dropped"] + a["malformed_dropped"] + a["runt_dropped"]
    assert sent > 10_000
    assert dropped > 10_000
    assert goodput > 5e6, goodput


@needs_root
def test_memory_stays_bounded_under_a_flood(tmp_path):
    """A UDP flood far above the line rate leaves the queue at its limit and the gateway's memory small."""
    with Testbed(tmp_path, GW_ARGS, {"a": 1, "b": 1}) as tb:
        flood = tb.spawn(
            "a",
            [
                tb.gateway_bin,
                "blast",
                "--iface",
                "eth0",
                "--size",
                "1500",
                "--flows",
                "64",
                "--seconds",
                "5",
            ],
            stdout=tmp_path / "blast.json",
        )
        rss = []
        while flood.poll() is None:
            with open(f"/proc/{tb.gw.pid}/status") as f:
                rss += [int(l.split()[1]) for l in f if l.startswith("VmRSS:")]
            time.sleep(0.25)
        stats = tb.stop_gateway()
    assert max(rss) < 64 * 1024, f"{max(rss)} kB"
    assert stats["gateway"]["max_queue_ab"] <= 100
    assert stats["links"]["ab"]["drops"] > 1000


def _start_run(tmp_path: Path) -> subprocess.Popen:
    sc = dumbbell(
        {"type": "red", "limit": 100, "min_th": 5, "max_th": 15},
        tcp_flows(1),
        duration=20,
        warmup=1,
    )
    path = tmp_path / "sc.toml"
    path.write_text(dumps(sc))
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aqmlab.testbed",
            str(path),
            "--out",
            str(tmp_path / "out"),
            "--no-prediction",
        ],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while _ready(tmp_path) is None:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    time.sleep(1.5)  # mid-run: flows are going
    return p


def _ready(tmp_path):
    """The gateway's ready file (its pid): in the output being written, which stays
    beside --out under a staging name until the run ends."""
    found = sorted(tmp_path.glob(".out.tmp-*/gateway.ready"))
    return found[0] if found else None


@needs_root
def test_sigkill_of_the_gateway_mid_run_leaves_no_namespace(tmp_path):
    """When the gateway is killed with SIGKILL mid-run, the run fails and removes its namespaces."""
    p = _start_run(tmp_path)
    gw_pid = int(_ready(tmp_path).read_text())
    os.kill(gw_pid, signal.SIGKILL)
    out, err = p.communicate(timeout=60)
    assert p.returncode != 0
    assert b"gateway exited unexpectedly" in err
    assert owned_namespaces(p.pid) == []


@needs_root
def test_a_second_run_cleans_up_after_a_killed_first_run(tmp_path):
    """Namespaces and processes left by a runner killed with SIGKILL are removed by the next run's cleanup."""
    p = _start_run(tmp_path)
    gw_pid = int(_ready(tmp_path).read_text())
    p.kill()
    p.wait()
    assert len(owned_namespaces(p.pid)) == 3, "the killed run left its namespaces"
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab.testbed", "--cleanup"],
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert owned_namespaces(p.pid) == []
    time.sleep(0.2)
    assert not pid_alive(gw_pid), "the orphaned gateway was killed (a zombie counts as dead)"
