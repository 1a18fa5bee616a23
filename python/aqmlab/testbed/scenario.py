"""From a simulator scenario (TOML file or dict) to a testbed plan: which link is the
bottleneck, which hosts sit on each side of it, the gateway's rate, delay and queues,
and the flows with their kernel settings.

A scenario fits the testbed when removing one link (the bottleneck: the slowest link
every flow crosses) splits the network in two and every flow goes from one side to
the other. Routers are not emulated: each end host becomes an address on its side's
namespace, and the delays of the access links on a flow's path are added to the
gateway's delay (their mean over the flows, in both directions; say so when flows
differ). Access-link rates are not emulated (they are meant to be faster than the
bottleneck).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover
    import tomli as _toml  # type: ignore[no-redef]

# The simulator's defaults (crates/sim TcpParams), applied when a flow leaves them out,
# so that both run the same scenario.
DEFAULT_PACKET_SIZE = 1000
DEFAULT_MAX_WINDOW = 20
DEFAULT_VARIANT = "newreno"

# Kernel congestion control used for each simulator TCP variant. Linux has no Tahoe,
# and its "reno" module is NewReno (RFC 6582 partial-ACK handling is built into the
# stack's loss recovery, with SACK on by default), so every variant maps to "reno";
# "cubic" is accepted for comparisons with Linux's default.
KERNEL_CC = {
    "tahoe": "reno",
    "reno": "reno",
    "newreno": "reno",
    "sack": "reno",
    "cubic": "cubic",
    "bbr": "bbr",
}

_UNITS_T = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0}
_UNITS_R = {
    "": 1.0,
    "bps": 1.0,
    "kbps": 1e3,
    "Kbps": 1e3,
    "Mbps": 1e6,
    "Gbps": 1e9,
    "kb/s": 1e3,
    "Mb/s": 1e6,
    "Gb/s": 1e9,
}
_NUM = re.compile(r"^\s*([-+0-9.eE]+)\s*([A-Za-z/]*)\s*$")


def _quantity(v: Any, table: Dict[str, float], path: str, kind: str) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        m = _NUM.match(v)
        if m and m.group(2) in table:
            try:
                return float(m.group(1)) * table[m.group(2)]
            except ValueError:
                pass
    hint = '"20ms"' if kind == "time" else '"10Mbps"'
    raise ValueError(
        f"{path} = {v!r} is invalid: allowed a {kind} (a number or a string such as {hint})"
    )


def secs(v: Any, path: str) -> float:
    return _quantity(v, _UNITS_T, path, "time")


def bps(v: Any, path: str) -> float:
    return _quantity(v, _UNITS_R, path, "rate")


@dataclass
class FlowPlan:
    index: int
    kind: str  # "tcp" or "udp"
    src: str  # scenario node names
    dst: str
    src_side: str  # "a" or "b"
    start_s: float
    stop_s: float
    packet_size: Optional[int]
    variant: Optional[str] = None
    kernel_cc: Optional[str] = None
    max_window: Optional[int] = None
    packets: Optional[int] = None
    rate_bps: Optional[float] = None  # UDP
    ecn: bool = False
    path_delay_s: float = 0.0  # one-way, access links only


@dataclass
class Plan:
    duration_s: float
    warmup_s: float
    seed: int
    link_name: str  # "r1->r2" (the A->B direction)
    link_name_back: str
    rate_ab: float
    rate_ba: float
    delay_s: float  # one-way, per direction (bottleneck + mean access delay)
    queue_ab: Dict[str, Any]
    queue_ba: Dict[str, Any]
    hosts: Dict[str, List[str]]  # side -> host node names
    flows: List[FlowPlan] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    ecn: bool = False


def load(scenario: Any) -> Dict[str, Any]:
    """A scenario as a dict: from a path (TOML) or a dict."""
    if isinstance(scenario, dict):
        return scenario
    with open(str(scenario), "rb") as f:
        return _toml.load(f)


def _links(sc: Dict[str, Any]) -> List[Dict[str, Any]]:
    links = sc.get("link") or sc.get("links") or []
    if not links:
        raise ValueError("link: the scenario has no [[link]]")
    for i, l in enumerate(links):
        for k in ("a", "b", "rate"):
            if k not in l:
                raise ValueError(f"link[{i}].{k}: missing")
    return links


def _path(adj: Dict[str, List[Tuple[str, int]]], src: str, dst: str) -> Optional[List[int]]:
    """Shortest path (in hops) as a list of link indices."""
    prev: Dict[str, Tuple[str, int]] = {}
    seen = {src}
    frontier = [src]
    while frontier:
        nxt = []
        for n in frontier:
            for m, li in adj.get(n, []):
                if m not in seen:
                    seen.add(m)
                    prev[m] = (n, li)
                    nxt.append(m)
        frontier = nxt
    if dst not in seen:
        return None
    out = []
    n = dst
    while n != src:
        n, li = prev[n]
        out.append(li)
    return out[::-1]


def plan(sc: Dict[str, Any]) -> Plan:
    """Check that the scenario is a dumbbell and turn it into a :class:`Plan`."""
    links = _links(sc)
    flows = sc.get("flow") or sc.get("flows") or []
    if not flows:
        raise ValueError("flow: the scenario has no [[flow]]")
    if "duration" not in sc:
        raise ValueError("duration: missing")
    duration = secs(sc["duration"], "duration")
    warmup = secs(sc.get("warmup", 0), "warmup")
    seed = int(sc.get("seed", 1))
    rng = random.Random(seed)
    adj: Dict[str, List[Tuple[str, int]]] = {}
    for i, l in enumerate(links):
        adj.setdefault(l["a"], []).append((l["b"], i))
        adj.setdefault(l["b"], []).append((l["a"], i))
    paths = []
    for i, f in enumerate(flows):
        for k in ("src", "dst"):
            if k not in f:
                raise ValueError(f"flow[{i}].{k}: missing")
            if f[k] not in adj:
                raise ValueError(f"flow[{i}].{k} = {f[k]!r}: no link reaches this node")
        p = _path(adj, f["src"], f["dst"])
        if not p:
            raise ValueError(f"flow[{i}]: no path from {f['src']} to {f['dst']}")
        paths.append(p)
    common = set(paths[0])
    for p in paths[1:]:
        common &= set(p)
    if not common:
        raise ValueError("the testbed needs a dumbbell: no link is crossed by every flow")
    bott = min(sorted(common), key=lambda i: bps(links[i]["rate"], f"link[{i}].rate"))
    L = links[bott]
    # Sides: what link.a reaches without the bottleneck is side "a".
    side: Dict[str, str] = {}
    stack = [L["a"]]
    side[L["a"]] = "a"
    while stack:
        n = stack.pop()
        for m, li in adj[n]:
            if li != bott and m not in side:
                side[m] = "a"
                stack.append(m)
    if L["b"] in side:
        raise ValueError(
            f"link[{bott}] ({L['a']}-{L['b']}) is not a cut: the network has another path around it"
        )
    for n in adj:
        side.setdefault(n, "b")
    delay = secs(L.get("delay", 0), f"link[{bott}].delay")
    rate = bps(L["rate"], f"link[{bott}].rate")
    qab = L.get("queue_ab") or L.get("queue")
    qba = L.get("queue_ba") or L.get("queue")
    if not qab or not qba:
        raise ValueError(
            f"link[{bott}].queue: the bottleneck needs a queue table (queue, or queue_ab and queue_ba)"
        )
    pl = Plan(
        duration_s=duration,
        warmup_s=warmup,
        seed=seed,
        link_name=f"{L['a']}->{L['b']}",
        link_name_back=f"{L['b']}->{L['a']}",
        rate_ab=rate,
        rate_ba=rate,
        delay_s=delay,
        queue_ab=dict(qab),
        queue_ba=dict(qba),
        hosts={"a": [], "b": []},
    )
    access = []
    idx = 0
    for i, f in enumerate(flows):
        kind = str(f.get("type", "tcp")).lower()
        if kind in ("cbr", "udp"):
            kind = "udp"
        elif kind != "tcp":
            raise ValueError(
                f"flow[{i}].type = {f.get('type')!r}: the testbed runs tcp and cbr flows only"
            )
        s, d = f["src"], f["dst"]
        if side[s] == side[d]:
            raise ValueError(
                f"flow[{i}]: {s} and {d} are on the same side of the bottleneck {pl.link_name}"
            )
        one_way = sum(
            secs(links[li].get("delay", 0), f"link[{li}].delay") for li in paths[i] if li != bott
        )
        access.append(one_way)
        for n in (s, d):
            if n not in pl.hosts[side[n]]:
                pl.hosts[side[n]].append(n)
        for _ in range(int(f.get("count", 1))):
            st = f.get("start", 0)
            if isinstance(st, dict) and "uniform" in st:
                lo, hi = (secs(x, f"flow[{i}].start.uniform") for x in st["uniform"])
                start = rng.uniform(lo, hi)
            else:
                start = secs(st, f"flow[{i}].start")
            stop = secs(f["stop"], f"flow[{i}].stop") if "stop" in f else duration
            fp = FlowPlan(
                index=idx,
                kind=kind,
                src=s,
                dst=d,
                src_side=side[s],
                start_s=start,
                stop_s=stop,
                packet_size=int(f.get("packet_size", DEFAULT_PACKET_SIZE)),
                path_delay_s=one_way,
            )
            if kind == "tcp":
                v = str(f.get("variant", DEFAULT_VARIANT)).lower()
                if v not in KERNEL_CC:
                    raise ValueError(f"flow[{i}].variant = {v!r}: allowed {sorted(KERNEL_CC)}")
                fp.variant, fp.kernel_cc = v, KERNEL_CC[v]
                fp.max_window = int(f.get("max_window", DEFAULT_MAX_WINDOW))
                if fp.max_window < 1:
                    raise ValueError(f"flow[{i}].max_window = {fp.max_window}: allowed >= 1")
                fp.packets = int(f["packets"]) if "packets" in f else None
                fp.ecn = bool(f.get("ecn", False))
            else:
                size = fp.packet_size
                if "rate" in f:
                    fp.rate_bps = bps(f["rate"], f"flow[{i}].rate")
                elif "interval" in f:
                    fp.rate_bps = size * 8 / secs(f["interval"], f"flow[{i}].interval")
                else:
                    raise ValueError(f"flow[{i}]: a cbr flow needs rate or interval")
            pl.flows.append(fp)
            idx += 1
    if access and max(access) - min(access) > 1e-4:
        pl.notes.append(
            f"access-link delays differ between flows ({min(access) * 1e3:.1f}-{max(access) * 1e3:.1f} ms one-way); "
            "the gateway adds their mean to every flow, so RTTs are equalised"
        )
    pl.delay_s = delay + (sum(access) / len(access) if access else 0.0)
    tcp = [f for f in pl.flows if f.kind == "tcp"]
    pl.ecn = any(f.ecn for f in tcp)
    if pl.ecn and not all(f.ecn for f in tcp):
        pl.notes.append(
            "ECN is a namespace-wide setting (net.ipv4.tcp_ecn): every TCP flow runs ECN-capable"
        )
        for f in tcp:
            f.ecn = True
    for side in ("a", "b"):
        wins = {f.max_window for f in tcp if f.src_side == side}
        if len(wins) > 1:
            pl.notes.append(
                f"flows from side {side} have different max_window; the receive window is clamped per "
                f"sender host, to the largest ({max(wins)} packets)"
            )
    if len(pl.hosts["a"]) > 250 or len(pl.hosts["b"]) > 250:
        raise ValueError("the testbed supports at most 250 hosts per side")
    if any(f.kind == "tcp" and f.variant in ("tahoe",) for f in pl.flows):
        pl.notes.append(
            "tahoe has no Linux counterpart: run as the kernel's reno (NewReno with SACK)"
        )
    return pl


def host_address(side: str, i: int) -> str:
    """IPv4 address of host `i` of `side` (inside the run's namespaces only)."""
    return f"10.199.{1 if side == 'a' else 2}.{i + 1}"


def host_address6(side: str, i: int) -> str:
    return f"fd00:199::{1 if side == 'a' else 2}:{i + 1}"


def iperf_duration(f: FlowPlan) -> int:
    """iperf3 takes whole seconds."""
    return max(1, int(math.ceil(f.stop_s - f.start_s)))


def _toml_value(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"cannot write {v!r} in TOML")
    return repr(v)


def dumps(sc: Dict[str, Any]) -> str:
    """A scenario dict as TOML (scalars and inline tables first, then arrays of tables)."""
    lines = []
    arrays = {}
    for k, v in sc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays[k] = v
        else:
            lines.append(f"{k} = {_toml_value(v)}")
    for k, items in arrays.items():
        for item in items:
            lines.append(f"\n[[{k}]]")
            lines += [f"{kk} = {_toml_value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


def payload_per_packet(packet_size: int) -> int:
    """TCP payload bytes of a `packet_size`-byte IP packet (20 IP + 20 TCP + 12 timestamp option)."""
    return max(36, packet_size - 52)


def window_clamps(pl: "Plan") -> Dict[Tuple[str, str], int]:
    """max_window as a receive-window clamp in bytes, per (sender side, sender node):
    the receiver's route back to the sender carries it (`ip route ... window`), which
    Linux applies as the connection's window clamp."""
    out: Dict[Tuple[str, str], int] = {}
    for f in pl.flows:
        if f.kind == "tcp" and f.max_window:
            b = f.max_window * payload_per_packet(f.packet_size or DEFAULT_PACKET_SIZE)
            key = (f.src_side, f.src)
            out[key] = max(out.get(key, 0), b)
    return out
