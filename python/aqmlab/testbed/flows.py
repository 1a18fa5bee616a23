"""The plan's flows on live Linux: iperf3 servers and clients in the end namespaces,
started at the plan's times, the window clamps and tcp_info samples (:mod:`.windows`),
the receivers' CE counters, and what the flows report afterwards (goodput over the
window, the kernel's TCP counters, one summary row per flow)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import netns as nsmod
from . import scenario as scmod
from . import windows as wmod
from .network import Testbed


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


def _addresses(pl: scmod.Plan, f: scmod.FlowPlan) -> tuple[str, str]:
    """The flow's sender and receiver addresses (IPv4)."""
    dst_side = _other(f.src_side)
    src = scmod.host_address(f.src_side, pl.hosts[f.src_side].index(f.src))
    dst = scmod.host_address(dst_side, pl.hosts[dst_side].index(f.dst))
    return src, dst


def port(f: scmod.FlowPlan) -> int:
    """The flow's iperf3 port."""
    return 5201 + f.index


def iperf_server(tb: Testbed, pl: scmod.Plan, f: scmod.FlowPlan) -> subprocess.Popen:
    _, addr = _addresses(pl, f)
    return tb.spawn(
        _other(f.src_side),
        ["iperf3", "-s", "-1", "-J", "-i", "0.5", "-B", addr, "-p", str(port(f))],
        stdout=tb.out / f"flow{f.index}.server.json",
        traffic=True,
    )


def iperf_client_args(pl: scmod.Plan, f: scmod.FlowPlan) -> list[str]:
    """The iperf3 client's command line for a flow."""
    src, dst = _addresses(pl, f)
    a = ["iperf3", "-c", dst, "-B", src, "-p", str(port(f)), "-J", "-i", "0.5"]
    if f.kind == "tcp":
        a += ["-C", f.kernel_cc or "reno"]
        # TCP_MAXSEG counts the timestamp option: the IP packet is MSS + 40 bytes.
        a += ["-M", str(max(88, f.packet_size - 40))]
        if f.packets:
            a += ["-n", str(f.packets * scmod.payload_per_packet(f.packet_size))]
        else:
            a += ["-t", str(scmod.iperf_duration(f))]
    else:
        # Whole b/s, truncated; the rate read back from the packet interval may be an
        # ulp short of a whole number, which the rounding to 1e-3 b/s absorbs.
        a += ["-u", "-b", str(int(round(f.rate_bps or 0, 3)))]
        a += ["-l", str(max(16, f.packet_size - 28)), "-t", str(scmod.iperf_duration(f))]
    return a


def _listening(tb: Testbed, side: str, ports: list[int]) -> bool:
    r = nsmod.sh(["ss", "-ltnH"], ns=tb.ns[side], check=False)
    have = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            have.add(parts[3].rsplit(":", 1)[-1])
    return all(str(p) in have for p in ports)


def _start_servers(tb: Testbed, pl: scmod.Plan) -> None:
    """An iperf3 server per flow, on the receiver's side; wait until all listen."""
    for f in pl.flows:
        iperf_server(tb, pl, f)
    deadline = time.monotonic() + 5
    for side in ("a", "b"):
        want = [port(f) for f in pl.flows if f.src_side != side]
        while want and not _listening(tb, side, want):
            if time.monotonic() > deadline:
                raise RuntimeError("iperf3 servers did not start")
            time.sleep(0.02)


def _drive_clients(tb: Testbed, pl: scmod.Plan) -> dict[int, float]:
    """Start each client at its start time (the gateway's clock) and wait for all;
    returns when each flow started."""
    pending = sorted(pl.flows, key=lambda f: f.start_s)
    clients: dict[int, subprocess.Popen] = {}
    started: dict[int, float] = {}
    while pending or any(c.poll() is None for c in clients.values()):
        tb.check_gateway()
        now = tb.elapsed()
        while pending and pending[0].start_s + pl.lead_s <= now:
            f = pending.pop(0)
            started[f.index] = tb.elapsed()
            clients[f.index] = tb.spawn(
                f.src_side,
                iperf_client_args(pl, f),
                stdout=tb.out / f"flow{f.index}.client.json",
                traffic=True,
            )
        if now > pl.duration_s + pl.lead_s + 30:
            break  # a client that hangs (its peer lost) does not hold the run
        time.sleep(0.02)
    return started


@dataclass
class Outcome:
    """What a run of the flows left: the gateway's statistics, when each flow started,
    each end namespace's TCP counters, the window clamps the kernel held per (sender
    side, sender, receiver) and the connections' tcp_info samples."""

    gateway: dict[str, Any] | None
    started: dict[int, float]
    tcp_counters: dict[str, dict[str, int] | None]
    clamps: dict[tuple[str, str, str], int | None]
    samples: wmod.Samples


def run_flows(tb: Testbed, pl: scmod.Plan, capture: bool = False) -> Outcome:
    """Run the plan's flows through the testbed's gateway, then stop the gateway.
    `capture`: also record every TCP packet at both hosts' interfaces
    (``capture_a.txt``, ``capture_b.txt``; :mod:`.timing`)."""
    counters = {
        side: tb.spawn(
            side, [tb.gateway_bin, "count", "--iface", "eth0"], stdout=tb.out / f"count_{side}.json"
        )
        for side in ("a", "b")
    }
    for side in ("a", "b") if capture else ():
        cmd = [sys.executable, "-m", "aqmlab.testbed.timing", "capture", "--iface", "eth0"]
        counters[f"capture_{side}"] = tb.spawn(
            side, cmd + ["--out", str(tb.out / f"capture_{side}.txt")]
        )
    clamps = wmod.apply_clamps(tb, pl, scmod.window_clamps(pl))
    _start_servers(tb, pl)
    sampler = wmod.Sampler(tb).start()
    try:
        started = _drive_clients(tb, pl)
    finally:
        samples = sampler.stop()
    tb.check_gateway()
    for p in counters.values():
        p.send_signal(signal.SIGTERM)
    for p in list(counters.values()) + tb.procs:
        try:
            p.wait(3)
        except subprocess.TimeoutExpired:
            p.kill()
    gw = tb.stop_gateway()
    counts = {side: tcp_counters(tb, side) for side in ("a", "b")}
    return Outcome(gw, started, counts, clamps, samples)


def load_json(p: Path) -> dict[str, Any] | None:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def window_retransmits(
    client: dict[str, Any] | None, start: float, warmup: float, duration: float
) -> float | None:
    """Segments the sender retransmitted during [warmup, duration] (its iperf3
    client's 0.5 s intervals, the kernel's `total_retrans` per interval, prorated)."""
    if not client or not client.get("intervals"):
        return None
    total = 0.0
    for iv in client["intervals"]:
        s = iv.get("sum", {})
        if "retransmits" not in s:
            return None
        a, b = start + float(s.get("start", 0)), start + float(s.get("end", 0))
        if b > a:
            total += float(s["retransmits"]) * max(0.0, min(b, duration) - max(a, warmup)) / (b - a)
    return total


def goodput(
    server: dict[str, Any] | None,
    client: dict[str, Any] | None,
    start: float,
    warmup: float,
    duration: float,
) -> float | None:
    """Bytes the receiver got during [warmup, duration] (its 0.5 s intervals, prorated), in b/s."""
    win = duration - warmup
    if server and server.get("intervals") and win > 0:
        total = 0.0
        for iv in server["intervals"]:
            s = iv.get("sum", {})
            a, b = start + float(s.get("start", 0)), start + float(s.get("end", 0))
            if b <= a:
                continue
            ov = max(0.0, min(b, duration) - max(a, warmup))
            total += float(s.get("bytes", 0)) * ov / (b - a)
        return total * 8 / win
    if client:
        end = client.get("end", {})
        for k in ("sum_received", "sum"):
            if k in end and "bits_per_second" in end[k]:
                return float(end[k]["bits_per_second"])
    return None


_NSTAT_KEYS = (
    "TcpOutSegs",
    "TcpRetransSegs",
    "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPSackRecovery",
    "TcpExtTCPRenoRecovery",
    "TcpExtDelayedACKs",
    "TcpExtTCPFastRetrans",
    "TcpExtTCPSpuriousRTOs",
)


def tcp_counters(tb: Testbed, side: str) -> dict[str, int] | None:
    """The namespace's TCP counters (whole run, all flows): timeouts, retransmissions,
    loss probes, delayed ACKs (`nstat`); None when nstat is missing."""
    if shutil.which("nstat") is None:
        return None
    r = nsmod.sh(["nstat", "-a", "-s", "-z", "-j"], ns=tb.ns[side], check=False)
    try:
        d = json.loads(r.stdout)
        d = d.get("kernel", d)
    except ValueError:
        return None
    return {k: int(d.get(k, 0)) for k in _NSTAT_KEYS}


def flow_row(
    pl: scmod.Plan, f: scmod.FlowPlan, out: Path, links: dict[str, Any], run: Outcome
) -> dict[str, Any]:
    """A flow's row of the summary, from its iperf3 reports, the gateway's per-flow
    counters of the direction it sends into (`links`: the gateway's "ab" and "ba")
    and its window (`window`: the scenario's and the kernel's, :mod:`.windows`)."""
    client = load_json(out / f"flow{f.index}.client.json")
    server = load_json(out / f"flow{f.index}.server.json")
    src, dst = _addresses(pl, f)
    lport = None
    try:
        lport = client["start"]["connected"][0]["local_port"]  # type: ignore[index]
    except (TypeError, KeyError, IndexError):
        pass
    link = links["ab" if f.src_side == "a" else "ba"]
    gf = next(
        (
            g
            for g in link.get("flows", [])
            if g["src"] == f"{src}:{lport}" and g["dst"] == f"{dst}:{port(f)}"
        ),
        None,
    )
    retrans = None
    sent, window_retrans = (gf["arrivals"] if gf else None), None
    if client and f.kind == "tcp":
        retrans = client.get("end", {}).get("sum_sent", {}).get("retransmits")
        window_retrans = window_retransmits(
            client,
            run.started.get(f.index, f.start_s + pl.lead_s),
            pl.warmup_s + pl.lead_s,
            pl.duration_s + pl.lead_s,
        )
    return {
        "id": f.index,
        "src": f.src,
        "dst": f.dst,
        "type": "tcp" if f.kind == "tcp" else "cbr",
        "goodput_bps": goodput(
            server,
            client,
            run.started.get(f.index, f.start_s + pl.lead_s),
            pl.warmup_s + pl.lead_s,
            pl.duration_s + pl.lead_s,
        ),
        "drops": gf["drops"] if gf else None,
        "marks": gf["marks"] if gf else None,
        "timeouts": None,
        "retransmits": retrans,
        "sent": sent,
        "window_retransmits": window_retrans,
        "variant": f.variant,
        "kernel_cc": f.kernel_cc,
        "address": f"{src}:{lport} -> {dst}:{port(f)}",
        "error": (client or {}).get("error"),
        "window": wmod.flow_window(
            f,
            f"{src}:{lport}",
            f"{dst}:{port(f)}",
            run.samples,
            run.clamps.get((f.src_side, f.src, f.dst)),
        )
        if f.kind == "tcp"
        else None,
        **(
            wmod.flow_congestion(run.samples, f"{src}:{lport}", f"{dst}:{port(f)}")
            if f.kind == "tcp"
            else {}
        ),
    }
