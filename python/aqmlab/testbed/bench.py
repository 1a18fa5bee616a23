"""``python -m aqmlab.testbed.bench``: the gateway's forwarding capacity and its CPU
time per forwarded packet on this machine.

For each packet size and offered rate, `aqmlab-gateway blast` sends UDP frames (64
flows) from side A, the gateway forwards them with RED on (limit 1000, min_th 5,
max_th 15; ``--queue`` another table, such as a Python class's) over a line fast
enough (100 Gb/s, no delay) never to be the limit, and
`aqmlab-gateway count` counts them on side B. Reported per run: the offered and the
forwarded rate (the gateway's departures over the sender's time), the share lost, and
the CPU time of the gateway, the sender and the counter, each read from the process's
own scheduler accounting (``/proc/PID/task/*/schedstat``, nanoseconds on the CPU,
which on a machine with shared cores measures better than throughput): the gateway's
over the flood, per forwarded packet and as a share of the flood's wall time; beside
it the share of that time it was runnable but waiting for a CPU (``wait``: what the
machine denied it). CPU plus wait well below 1 means the gateway waited for frames,
not for a CPU. Each row also has the machine's 1-minute load average as the run ended.
Kernel work done in a process's context is charged to that process: a veth's
transmit runs the receiving namespace's stack in the sender's context unless the
receiving interface polls in a NAPI thread of its own. ``--receive thread`` (the
default here) gives the hosts such threads, so that the gateway's CPU time is its own;
their CPU time per frame received on side B is reported beside it (``rx thr``), with
the frames the gateway's veth dropped because side B's thread had not emptied its ring
of 256 (``veth drops``: lost after the gateway counted them as sent).
``--receive inline`` is the testbed's default (docs/testbed.md, "Forwarding capacity").

``--baseline PATH`` runs another gateway executable (an earlier install) on the same
cases, alternating with the gateway under test, with the same sender and counter.
Sender, gateway and counter share the machine's cores, so on a small machine the rates
are lower bounds of what the gateway alone can do; `bench-pipeline` gives the
in-process figure without the kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import netns as nsmod
from .gateway import gateway_binary, gateway_env
from .network import RECEIVE_MODES, Testbed

RED = '{"type":"red","limit":1000,"min_th":5,"max_th":15}'


def sched_ns(pid: int) -> tuple[int, int] | None:
    """(time on a CPU, time runnable but waiting for one) of process `pid` so far, all
    its threads, ns (``/proc/PID/task/*/schedstat``); None if it is gone."""
    cpu = wait = 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                fields = f.read().split()
            cpu, wait = cpu + int(fields[0]), wait + int(fields[1])
    except (OSError, ValueError, IndexError):
        return None
    return cpu, wait


def napi_threads_ns() -> dict[int, int]:
    """CPU time so far of every threaded-NAPI kernel thread (``napi/IFACE-ID``), by
    pid, ns: where a veth whose receive side runs in its own thread does the receiving
    host's stack."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if not f.read().startswith("napi/"):
                    continue
            with open(f"/proc/{d}/schedstat") as f:
                out[int(d)] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return out


def veth_tx_dropped(tb: Testbed, ifname: str = "gwb") -> int:
    """Frames the gateway's veth `ifname` dropped on their way to the host (in thread
    mode, when the host's receive ring of 256 frames is full), so far."""
    r = nsmod.sh(["cat", f"/sys/class/net/{ifname}/statistics/tx_dropped"], ns=tb.ns["gw"])
    return int(r.stdout)


def _reap(p: subprocess.Popen, timeout: float) -> tuple[float, float]:
    """Wait for `p` (a direct child); its whole CPU time (its rusage) and its time
    waiting for a CPU (sampled until it exits), s."""
    deadline = time.monotonic() + timeout
    wait = 0
    while True:
        st = sched_ns(p.pid)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return ru.ru_utime + ru.ru_stime, wait * 1e-9
        if st is not None:
            wait = st[1]
        if time.monotonic() > deadline:
            p.kill()
            deadline = time.monotonic() + 5
        time.sleep(0.02)


def measure(
    size: int,
    seconds: float,
    out: Path,
    gateway: str,
    pps: float = 0,
    tools: str | None = None,
    queue: str = RED,
    receive: str = "thread",
) -> dict[str, Any]:
    """One run: IP packets of `size` bytes (frames of size + 14) offered at `pps`
    (0: as fast as the sender can) for `seconds` through `gateway` with `queue` (a
    queue table as JSON); `tools` is the executable whose `blast` and `count` load it
    (default: `gateway`)."""
    tools = tools or gateway
    args = ["--rate", "100Gbps", "--delay", "0", "--queue", queue]
    d = out / f"size{size}-pps{int(pps)}-{len(list(out.glob('size*')))}"
    env = gateway_env([json.loads(queue)])
    others = set(napi_threads_ns())  # only the threads this testbed starts count
    # The default policy: the figures compare gateways' CPU per packet, and earlier
    # gateways (the --baseline ones) have no --realtime.
    with Testbed(
        d, args, {"a": 1, "b": 1}, gateway=gateway, env=env, receive=receive, scheduling="normal"
    ) as tb:
        assert tb.gw is not None
        cnt = tb.spawn("b", [tools, "count", "--iface", "eth0"], stdout=d / "count.json")
        time.sleep(0.3)
        blast_cmd = [tools, "blast", "--iface", "eth0", "--size", str(size), "--flows", "64"]
        blast_cmd += ["--seconds", str(seconds), "--pps", str(pps)]
        napi0 = {p: ns for p, ns in napi_threads_ns().items() if p not in others}
        drops0, gw0, t0 = veth_tx_dropped(tb), sched_ns(tb.gw.pid), time.monotonic()
        blast = tb.spawn("a", blast_cmd, stdout=d / "blast.json")
        sender = _reap(blast, seconds + 30)
        time.sleep(0.3)
        gw1, napi1, wall = sched_ns(tb.gw.pid), napi_threads_ns(), time.monotonic() - t0
        veth_drops = float(veth_tx_dropped(tb) - drops0)
        cnt.terminate()
        counter = _reap(cnt, 5)
        stats = tb.stop_gateway()
    if stats is None or gw0 is None or gw1 is None:
        raise RuntimeError(f"the gateway wrote no statistics; see {d / 'gateway.log'}")
    gw = ((gw1[0] - gw0[0]) * 1e-9, (gw1[1] - gw0[1]) * 1e-9)
    rx_threads = sum(napi1[p] - napi0[p] for p in napi1 if p in napi0) * 1e-9
    cpu = {"gateway": gw, "sender": sender, "counter": counter, "rx_threads": (rx_threads, 0.0)}
    return {**_row(size, pps, d, stats, wall, cpu), "veth_drops": veth_drops}


def _row(
    size: int,
    pps: float,
    d: Path,
    stats: dict[str, Any],
    wall: float,
    cpu: dict[str, tuple[float, float]],
) -> dict[str, Any]:
    """A run's figures; `cpu`: (CPU time, time waiting for a CPU), s, of the
    gateway (over `wall` s: the flood and 0.3 s after), the sender, the counter and
    the receiving hosts' NAPI threads (`rx_threads`, over `wall`)."""
    gw, sender, counter = cpu["gateway"], cpu["sender"], cpu["counter"]
    rx_threads = cpu["rx_threads"][0]
    b = json.loads((d / "blast.json").read_text())
    c = json.loads((d / "count.json").read_text())
    ab = stats["links"]["ab"]
    side_a = stats["gateway"]["side_a"]
    fwd = ab["departures"]
    offered = b["sent"]
    us = lambda cpu, n: 1e6 * cpu / n if n else float("nan")  # noqa: E731
    return {
        "ip_bytes": size,
        "frame_bytes": size + 14,
        "asked_pps": pps,
        "seconds": b["seconds"],
        "offered": offered,
        "offered_pps": offered / b["seconds"],
        "forwarded": fwd,
        "forwarded_pps": fwd / b["seconds"],
        "forwarded_mbps": ab["departed_bytes"] * 8 / b["seconds"] / 1e6,
        "lost_pct": 100.0 * (1 - fwd / offered) if offered else 0.0,
        "gateway_rx": side_a["rx_frames"],
        "kernel_drops_before_gateway": side_a["kernel_drops"],
        "received_at_b": c["frames"],
        "red_drops": ab["drops"],
        "io": stats["gateway"].get("io", "mmsg"),
        "rx_lag_p50_s": side_a.get("rx_lag_p50_s", float("nan")),
        "rx_lag_p99_s": side_a.get("rx_lag_p99_s", float("nan")),
        "gateway_cpu_s": gw[0],
        "gateway_wall_s": wall,
        "gateway_cpu_share": gw[0] / wall,
        "gateway_wait_share": gw[1] / wall,
        "gateway_us_per_packet": us(gw[0], fwd),
        "sender_cpu_s": sender[0],
        "sender_cpu_share": sender[0] / b["seconds"],
        "sender_wait_share": sender[1] / b["seconds"],
        "sender_us_per_packet": us(sender[0], offered),
        "counter_cpu_s": counter[0],
        "counter_us_per_packet": us(counter[0], c["frames"]),
        "rx_threads_cpu_s": rx_threads,
        "rx_threads_us_per_packet": us(rx_threads, c["frames"]),
        # The machine's load when the run ended (1-minute average): other work on
        # the shared cores, which the waits above reflect.
        "load_avg": os.getloadavg()[0],
    }


def pipeline(gateway: str, size: int) -> dict[str, Any]:
    r = subprocess.run(
        [gateway, "bench-pipeline", "--size", str(size + 14)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(r.stdout)


def run_cases(
    gateways: dict[str, str],
    sizes: list[int],
    rates: list[float],
    seconds: float,
    repeat: int,
    tools: str,
    queue: str = RED,
    receive: str = "thread",
) -> list[dict[str, Any]]:
    """Every case `repeat` times, the gateways alternating within each repetition."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as tmp:
        for size in sizes:
            for pps in rates:
                for rep in range(repeat):
                    for label, gw in gateways.items():
                        r = measure(size, seconds, Path(tmp), gw, pps, tools, queue, receive)
                        rows.append({"gateway": label, "repeat": rep, **r})
    return rows


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians over repetitions of each (gateway, size, asked rate)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["gateway"], r["ip_bytes"], r["asked_pps"]), []).append(r)
    keys = [k for k, v in rows[0].items() if isinstance(v, float)] if rows else []
    out = []
    for (label, size, pps), rs in groups.items():
        m = {k: statistics.median(r[k] for r in rs) for k in keys}
        out.append({"gateway": label, "ip_bytes": size, "asked_pps": pps, "runs": len(rs), **m})
    return out


def print_table(summary: list[dict[str, Any]]) -> None:
    head = (
        f"{'gateway':>9} {'IP B':>5} {'offered pps':>11} {'fwd pps':>9} {'lost %':>7} "
        f"{'gw us/pkt':>9} {'gw CPU':>7} {'gw wait':>7} {'snd us/pkt':>10} {'snd CPU':>8} "
        f"{'snd wait':>8} {'cnt us/pkt':>10} {'rx thr us/pkt':>13} {'veth drops':>10} "
        f"{'load':>5} {'runs':>4}"
    )
    print(head)
    for r in summary:
        print(
            f"{r['gateway']:>9} {r['ip_bytes']:>5} {r['offered_pps']:>11.0f} "
            f"{r['forwarded_pps']:>9.0f} {r['lost_pct']:>7.1f} "
            f"{r['gateway_us_per_packet']:>9.2f} {r['gateway_cpu_share']:>7.2f} "
            f"{r['gateway_wait_share']:>7.2f} {r['sender_us_per_packet']:>10.2f} "
            f"{r['sender_cpu_share']:>8.2f} {r['sender_wait_share']:>8.2f} "
            f"{r['counter_us_per_packet']:>10.2f} {r['rx_threads_us_per_packet']:>13.2f} "
            f"{r['veth_drops']:>10.0f} "
            f"{r['load_avg']:>5.1f} {r['runs']:>4}"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aqmlab.testbed.bench", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--sizes", default="1500,64", help="IP packet sizes, bytes (default 1500,64)")
    p.add_argument("--seconds", type=float, default=5.0, help="length of each flood, s")
    p.add_argument(
        "--pps",
        default="0",
        help="offered loads to try, packets/s, comma-separated (0 = as fast as the sender can)",
    )
    p.add_argument("--repeat", type=int, default=1, help="runs of each case (medians shown)")
    p.add_argument("--gateway", default=None, help="gateway under test (default: installed)")
    p.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="[LABEL=]PATH",
        help="another gateway executable run alternately beside it (repeatable)",
    )
    p.add_argument(
        "--queue",
        default=RED,
        metavar="TABLE",
        help=f"the queue, a table as JSON (default {RED}); a Python class's module is "
        "found on sys.path or PYTHONPATH",
    )
    p.add_argument(
        "--receive",
        choices=RECEIVE_MODES,
        default="thread",
        help="how the hosts receive: in a NAPI thread of their own (thread, the default: "
        "the gateway's CPU time is its own) or, as the testbed does by default, in the "
        "gateway's context as it sends (inline)",
    )
    p.add_argument("--json", action="store_true", help="every run as JSON")
    a = p.parse_args(argv)
    gw = a.gateway or gateway_binary()
    gateways = {"test": gw}
    for b in a.baseline:
        label, _, path = b.rpartition("=")
        gateways[label or "baseline"] = path
    sizes = [int(x) for x in a.sizes.split(",")]
    rates = [float(x) for x in a.pps.split(",")]
    rows = run_cases(gateways, sizes, rates, a.seconds, a.repeat, gw, a.queue, a.receive)
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    print_table(summarize(rows))
    loads = [r["load_avg"] for r in rows]
    print(f"load average (1 min) at the runs' ends: {min(loads):.1f}-{max(loads):.1f}")
    for s in sizes:
        inproc = pipeline(gw, s)["pps"]
        print(f"in-process path (bench-pipeline, RED), {s + 14}-byte frames: {inproc:.0f} pps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
