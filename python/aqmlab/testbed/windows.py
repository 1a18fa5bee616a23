"""A flow's `max_window` on live Linux, and the window the kernel really used.

The simulator caps a sender's window at `max_window` packets (cwnd never grows past it,
crates/sim's `acked_to`: Linux's `snd_cwnd_clamp`). The testbed gives each sender
the same clamp: a route to the receiver with a locked congestion-window metric
(`ip route add DST/32 dev eth0 cwnd lock N` in a routing table of the sender's address,
`ip rule add from SRC`, in the sender's namespace), which Linux
copies into each new connection's `snd_cwnd_clamp` (`tcp_init_metrics`). It reads
that metric from the namespace's TCP metrics cache, so one connection per (sender,
receiver) pair primes the cache before the flows start (with
`net.ipv4.tcp_no_metrics_save` off for that connection only). The receive window is
left to the kernel's autotuning, with window scaling as Linux negotiates it.

Why not the receive window: a route's `window` (or TCP_WINDOW_CLAMP) sets the
receiver's `window_clamp`, from which `tcp_select_initial_window` also derives the
window scale (scale 0 below 64 KiB); the kernel then replaces that clamp from the
receive buffer, when autotuning grows it (`tcp_rcvbuf_grow`) and, whatever
`tcp_moderate_rcvbuf` says, on the first full-sized segment (`tcp_measure_rcv_mss`
sets it to `tcp_win_from_space(sk_rcvbuf)` when the skb's payload-to-truesize ratio
changes). Measured on 6.18: a 28,960-byte route window gave a 64,512-byte window
(scale 0 caps it at 65,535), with or without autotuning. A locked receive buffer
gives a window of buffer x that ratio, not an exact number of bytes.

While the flows run, `ss -tin` in both end namespaces samples every connection's
`tcp_info` (cwnd, unacked, mss, the peer's window `snd_wnd`, `rcv_wnd` where `ss`
prints it, window scales); each flow's record goes into the summary, and a flow whose
kernel window differs from the scenario's is an error (:func:`window_error`).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from . import netns as nsmod
from . import scenario as scmod
from .network import Testbed

PRIME_PORT = 5200  # below the iperf3 ports (5201 + flow index)
TABLE_BASE = 1000  # routing table of a sender host: TABLE_BASE + its index on its side
SAMPLE_S = 0.5

# One listener per receiving namespace: accepts `n` connections, each closed once the
# peer has closed its side, so that the sender's socket reaches TIME_WAIT (where Linux
# writes the TCP metrics cache).
_LISTEN = (
    "import socket,sys\n"
    "s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
    "s.bind(('0.0.0.0',int(sys.argv[1])));s.listen(64);s.settimeout(10)\n"
    "for _ in range(int(sys.argv[2])):\n"
    " c,_=s.accept();c.settimeout(10);c.recv(1);c.close()\n"
)
# One connector per sending namespace, the pairs at once: argv = port, then src dst ...
_CONNECT = (
    "import socket,sys,threading\n"
    "def go(src,dst):\n"
    " c=socket.create_connection((dst,int(sys.argv[1])),timeout=10,source_address=(src,0))\n"
    " c.shutdown(socket.SHUT_WR);c.recv(1);c.close()\n"
    "a=sys.argv[2:]\n"
    "ts=[threading.Thread(target=go,args=p) for p in zip(a[::2],a[1::2])]\n"
    "[t.start() for t in ts];[t.join() for t in ts]\n"
)


def _pair_addresses(pl: scmod.Plan, key: tuple[str, str, str]) -> tuple[str, str]:
    side, src, dst = key
    other = "b" if side == "a" else "a"
    return (
        scmod.host_address(side, pl.hosts[side].index(src)),
        scmod.host_address(other, pl.hosts[other].index(dst)),
    )


def cached_cwnds(tb: Testbed, pl: scmod.Plan, keys) -> dict[tuple[str, str, str], int | None]:
    """The congestion-window clamp Linux's TCP metrics cache holds for each (sender
    side, sender, receiver) of `keys`, in the sender's namespace (what
    `tcp_init_metrics` gives each new connection of the pair), or None."""
    held: dict[str, dict[tuple[str, str], int]] = {}
    for side in sorted({k[0] for k in keys}):
        r = nsmod.sh(["ip", "tcp_metrics", "show"], ns=tb.ns[side], check=False)
        held[side] = parse_metrics(r.stdout)
    return {k: held[k[0]].get(_pair_addresses(pl, k)) for k in keys}


def parse_metrics(text: str) -> dict[tuple[str, str], int]:
    """`ip tcp_metrics show` output: the cwnd metric per (source, destination)."""
    out = {}
    for line in text.splitlines():
        p = line.split()
        if "cwnd" in p and "source" in p and p.index("source") + 1 < len(p):
            i = p.index("cwnd") + 1
            if i < len(p) and p[i].isdigit():
                out[(p[p.index("source") + 1], p[0])] = int(p[i])
    return out


def _routes(pl: scmod.Plan, clamps: dict[tuple[str, str, str], int]) -> dict[str, list[str]]:
    """Per sender side, the `ip -batch` lines: a rule and a routing table per sender
    address (routes are keyed by destination only), a route per receiver in it with
    the locked cwnd."""
    lines: dict[str, list[str]] = {}
    for key, packets in clamps.items():
        src, dst = _pair_addresses(pl, key)
        table = TABLE_BASE + pl.hosts[key[0]].index(key[1])
        mine = lines.setdefault(key[0], [])
        rule = f"rule add from {src} lookup {table}"
        if rule not in mine:
            mine.append(rule)
        mine.append(f"route add {dst}/32 dev eth0 table {table} cwnd lock {packets}")
    return lines


def apply_clamps(
    tb: Testbed, pl: scmod.Plan, clamps: dict[tuple[str, str, str], int]
) -> dict[tuple[str, str, str], int | None]:
    """Lock each sender's congestion window to the receiver at the plan's
    `max_window` (`clamps`: packets per (sender side, sender, receiver), from
    :func:`.scenario.window_clamps`), prime the TCP metrics cache with one
    connection per pair, and return what the cache then holds, per pair."""
    if not clamps:
        return {}
    receivers: dict[str, int] = {}
    for side, _, _ in clamps:
        other = "b" if side == "a" else "a"
        receivers[other] = receivers.get(other, 0) + 1
    listeners = [
        tb.spawn(side, [sys.executable, "-I", "-S", "-c", _LISTEN, str(PRIME_PORT), str(n)])
        for side, n in receivers.items()
    ]
    senders = _routes(pl, clamps)
    for side, lines in senders.items():
        nsmod.sh(["ip", "-batch", "-"], ns=tb.ns[side], input="\n".join(lines) + "\n")
        tb.ns.sysctl(side, "net.ipv4.tcp_no_metrics_save", 0)
    try:
        _prime(tb, pl, clamps, receivers, listeners)
    finally:
        for side in senders:
            tb.ns.sysctl(side, "net.ipv4.tcp_no_metrics_save", 1)
    return cached_cwnds(tb, pl, clamps)


def _prime(tb: Testbed, pl: scmod.Plan, clamps, receivers, listeners) -> None:
    """One TCP connection per (sender, receiver) pair through the gateway, to the
    `listeners` on the `receivers`' sides; waits until the senders' metrics caches
    hold every pair (at most 10 s)."""
    deadline = time.monotonic() + 10
    for side in receivers:
        while not nsmod.sh(["ss", "-ltnH", "sport", f"= :{PRIME_PORT}"], ns=tb.ns[side]).stdout:
            if time.monotonic() > deadline:
                raise RuntimeError("the window clamps' priming listener did not start")
            time.sleep(0.01)
    for side in sorted({k[0] for k in clamps}):
        pairs = [a for k in clamps if k[0] == side for a in _pair_addresses(pl, k)]
        cmd = [sys.executable, "-I", "-S", "-c", _CONNECT, str(PRIME_PORT), *pairs]
        nsmod.sh(cmd, ns=tb.ns[side])
    for p in listeners:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
    while not all(cached_cwnds(tb, pl, clamps).values()):
        if time.monotonic() > deadline:
            break  # what the cache holds is reported (and judged) per flow
        time.sleep(0.01)


# -- sampling tcp_info -----------------------------------------------------------
_MAX_KEYS = ("cwnd", "unacked", "snd_wnd", "rcv_wnd")
_LAST_KEYS = ("mss", "rcv_space", "rcv_ssthresh")
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def _bps(m: re.Match[str] | None) -> float | None:
    """A rate `ss` printed ("19876543bps", or "19.9Mbps" in its human-readable form)."""
    return float(m.group(1)) * _SCALE[m.group(2)] if m else None


def _congestion(line: str, cur: dict[str, Any]) -> None:
    """The congestion control module `ss -ti` names first on the info line, the
    socket's pacing rate and BBR's bandwidth estimate (b/s) where it prints them."""
    first = line.split()[0]
    if re.fullmatch(r"[a-z][a-z0-9_]*", first):
        cur["cc"] = first
    rate = _bps(re.search(r"(?:^|\s)pacing_rate (\d+(?:\.\d+)?)([KMG]?)bps", line))
    if rate is not None:
        cur["pacing_rate"] = rate
    bw = _bps(re.search(r"(?:^|\s)bbr:\(bw:(\d+(?:\.\d+)?)([KMG]?)bps", line))
    if bw is not None:
        cur["bbr_bw"] = bw


def parse_ss(text: str) -> dict[tuple[str, str], dict[str, Any]]:
    """`ss -tinH` output: per (local, peer) address, the tcp_info fields the window
    check reads (integers; `wscale` as (snd, rcv)), the congestion control `cc`,
    `pacing_rate` and BBR's `bbr_bw` (b/s, floats)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    cur: dict[str, Any] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            p = line.split()
            if len(p) < 4:
                cur = None
                continue
            cur = out.setdefault((p[-2], p[-1]), {})
            continue
        if cur is None:
            continue
        _congestion(line, cur)
        for k in _MAX_KEYS + _LAST_KEYS:
            m = re.search(rf"(?:^|\s){k}:(\d+)(?=\s|$)", line)
            if m:
                cur[k] = int(m.group(1))
        m = re.search(r"(?:^|\s)wscale:(\d+),(\d+)", line)
        if m:
            cur["wscale"] = (int(m.group(1)), int(m.group(2)))
    return out


@dataclass
class Samples:
    """Per connection (local, peer): the largest cwnd / unacked / snd_wnd / rcv_wnd
    seen, the last mss / wscale / congestion control, every pacing rate and BBR
    bandwidth estimate sampled (`pacing_rates`, `bbr_bws`), and how many samples saw it."""

    conns: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def add(self, parsed: dict[tuple[str, str], dict[str, Any]]) -> None:
        for key, s in parsed.items():
            c = self.conns.setdefault(key, {"samples": 0})
            c["samples"] += 1
            for k in _MAX_KEYS:
                if k in s:
                    c["max_" + k] = max(c.get("max_" + k, 0), s[k])
            for k in (*_LAST_KEYS, "wscale", "cc"):
                if k in s:
                    c[k] = s[k]
            for k in ("pacing_rate", "bbr_bw"):
                if k in s:
                    c.setdefault(k + "s", []).append(s[k])


class Sampler:
    """Samples `ss -tin` in both end namespaces every `SAMPLE_S` seconds, in a
    thread, between `start()` and `stop()`."""

    def __init__(self, tb: Testbed):
        self.tb = tb
        self.samples = Samples()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Sampler:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            for side in ("a", "b"):
                r = nsmod.sh(
                    ["ss", "-tinH", "state", "established"], ns=self.tb.ns[side], check=False
                )
                self.samples.add(parse_ss(r.stdout))
            self._stop.wait(SAMPLE_S)

    def stop(self) -> Samples:
        self._stop.set()
        self._thread.join(10)
        return self.samples


# -- each flow's window, and the errors ---------------------------------------------
def flow_window(
    f: scmod.FlowPlan, sender: str, receiver: str, samples: Samples, cached: int | None
) -> dict[str, Any]:
    """A flow's window record for the summary: the scenario's `max_window` (packets
    and TCP payload bytes), the clamp the kernel holds for the pair (`cached`), and
    what `tcp_info` showed on the sender's socket (`sender` -> `receiver`, "ip:port")
    and on the receiver's."""
    snd = samples.conns.get((sender, receiver), {})
    rcv = samples.conns.get((receiver, sender), {})
    payload = scmod.payload_per_packet(f.packet_size)
    mw = f.max_window if f.kind == "tcp" else None
    mss = snd.get("mss")
    return {
        "scenario_packets": mw,
        "scenario_bytes": mw * payload if mw else None,
        "kernel_clamp_packets": cached,
        "kernel_bytes": cached * mss if cached and mss else None,
        "mss": mss,
        "max_cwnd": snd.get("max_cwnd"),
        "max_unacked": snd.get("max_unacked"),
        "max_snd_wnd": snd.get("max_snd_wnd"),
        "wscale": list(snd["wscale"]) if "wscale" in snd else None,
        "receiver_max_rcv_wnd": rcv.get("max_rcv_wnd"),
        "receiver_wscale": list(rcv["wscale"]) if "wscale" in rcv else None,
        "samples": snd.get("samples", 0),
    }


def flow_congestion(samples: Samples, sender: str, receiver: str) -> dict[str, Any]:
    """What `ss -ti` showed of a flow's congestion control on the sender's socket
    (`sender` -> `receiver`, "ip:port"): the module's name (`kernel_cc_seen`, None if
    never sampled), the medians of its sampled pacing rates (`pacing_rate_bps`) and,
    for BBR, of its bandwidth estimates (`bbr_bw_bps`; both in TCP payload)."""
    snd = samples.conns.get((sender, receiver), {})

    def median(k: str) -> float | None:
        v = sorted(snd.get(k, []))
        return v[len(v) // 2] if v else None

    return {
        "kernel_cc_seen": snd.get("cc"),
        "pacing_rate_bps": median("pacing_rates"),
        "bbr_bw_bps": median("bbr_bws"),
    }


def _packets_bytes(packets: int, nbytes: int | None) -> str:
    return f"{packets} packets" + (f" ({nbytes:,} bytes)" if nbytes is not None else "")


def window_error(flow_id: int, w: dict[str, Any]) -> str | None:
    """Why a flow's live window is not the scenario's (None when it is, or when the
    scenario sets none): the kernel holds another clamp (or none), its segments
    carry another payload than `packet_size` implies, or its cwnd went past it."""
    mw = w["scenario_packets"]
    if not mw:
        return None
    want = f"the scenario's window is {_packets_bytes(mw, w['scenario_bytes'])}"
    clamp = w["kernel_clamp_packets"]
    if clamp is None:
        return f"flow {flow_id}: {want}; the kernel holds no congestion-window clamp for it"
    if clamp != mw or (w["kernel_bytes"] is not None and w["kernel_bytes"] != w["scenario_bytes"]):
        return f"flow {flow_id}: {want}, the kernel's {_packets_bytes(clamp, w['kernel_bytes'])}"
    if w["max_cwnd"] is not None and w["max_cwnd"] > mw:
        return f"flow {flow_id}: {want}, the kernel's cwnd reached {w['max_cwnd']} packets"
    return None
