"""From a simulator scenario (TOML file or dict) to a testbed plan: which link is the
bottleneck, which hosts sit on each side of it, the gateway's rate, delay and queues,
and the flows with their kernel settings.

Everything is read from the simulator's normalised scenario
(``aqmlab.Scenario(d).normalized()``, docs/simulator.md): the simulator validates the
scenario (a key it refuses is refused here, with the same message), its numbers are
in SI units, its flows are expanded (``count``, start times drawn from the seed) and
routed (link costs included). The testbed adds only its own conditions.

A scenario fits the testbed when removing one link (the bottleneck: the slowest link
every flow's path crosses) splits the network in two and every flow goes from one side
to the other. Routers are not emulated: each end host becomes an address on its side's
namespace, and the delays of the access links on a flow's path are added to the
gateway's delay (their mean over the scenario's flow entries, in both directions; say
so when they differ). Access-link rates are not emulated (they are meant to be faster
than the bottleneck).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aqmlab.profiles import profile
from aqmlab.sim import Scenario

# Kernel congestion control used for each simulator TCP variant. Linux has no Tahoe,
# and its "reno" module is NewReno (RFC 6582 partial-ACK handling is built into the
# stack's loss recovery, with SACK on by default), so every Reno-family variant maps to
# "reno"; CUBIC, DCTCP and BBR (v1: Linux's tcp_bbr.c) map to Linux's modules of the
# same names.
# `plan(..., kernel_cc="cubic")` runs every TCP flow with another Linux algorithm.
KERNEL_CC = {
    "tahoe": "reno",
    "reno": "reno",
    "newreno": "reno",
    "cubic": "cubic",
    "dctcp": "dctcp",
    "bbr": "bbr",
}


# The time the window clamps take to set up (one connection per host pair: two round
# trips and a process start; 0.4-0.6 s measured under load), reserved before time 0.
PRIME_LEAD_S = 1.0


@dataclass
class FlowPlan:
    index: int
    kind: str  # "tcp" or "udp"
    src: str  # scenario node names
    dst: str
    src_side: str  # "a" or "b"
    start_s: float
    stop_s: float
    packet_size: int  # IP bytes
    variant: str | None = None
    kernel_cc: str | None = None
    max_window: int | None = None
    packets: int | None = None
    rate_bps: float | None = None  # UDP
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
    queue_ab: dict[str, Any]
    queue_ba: dict[str, Any]
    hosts: dict[str, list[str]]  # side -> host node names
    flows: list[FlowPlan] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ecn: bool = False
    link_index: int = 0  # the bottleneck's [[link]] index (directions 2i: a->b, 2i+1: b->a)
    # Seconds of the gateway's clock before the scenario's time 0: the window clamps
    # are primed then (PRIME_LEAD_S when any flow has a max_window), so that flows
    # start at their scenario times and the measurement window is the scenario's.
    lead_s: float = 0.0


def load(scenario: Any) -> dict[str, Any]:
    """A scenario as a dict: from a path (TOML) or a dict."""
    if isinstance(scenario, dict):
        return scenario

    return Scenario.from_file(str(scenario)).to_dict()


def _bottleneck(n: dict[str, Any], dirs: dict[str, dict[str, Any]]) -> int:
    """The slowest link every flow's path crosses (the first of equals)."""
    common: set | None = None
    for f in n["flows"]:
        links = {dirs[d]["link"] for d in f["path"]}
        common = links if common is None else common & links
    if not common:
        raise ValueError("the testbed needs a dumbbell: no link is crossed by every flow")
    return min(sorted(common), key=lambda i: n["links"][i]["rate_bps"])


def _sides(n: dict[str, Any], bott: int) -> dict[str, str]:
    """Each node's side: what the bottleneck's `a` end reaches without it is side "a"."""
    adj: dict[str, list[tuple[str, int]]] = {}
    for l in n["links"]:
        adj.setdefault(l["a"], []).append((l["b"], l["index"]))
        adj.setdefault(l["b"], []).append((l["a"], l["index"]))
    L = n["links"][bott]
    side = {L["a"]: "a"}
    stack = [L["a"]]
    while stack:
        for m, li in adj[stack.pop()]:
            if li != bott and m not in side:
                side[m] = "a"
                stack.append(m)
    if L["b"] in side:
        raise ValueError(
            f"link[{bott}] ({L['a']}-{L['b']}) is not a cut: the network has another path around it"
        )
    for node in adj:
        side.setdefault(node, "b")
    return side


def _with_profile(q: Mapping[str, Any], top: str | None) -> dict[str, Any]:
    """A queue table as the simulator reads it: the keys its profile (the table's own,
    then the scenario's) sets for its type filled in where the table does not write
    them (crates/sim's scenario/profiles.rs), so that the gateway runs the simulator's
    queue (the linux profile's RED counts bytes, as sch_red does)."""
    out = dict(q)
    own = out.pop("profile", None)
    for name in dict.fromkeys(p for p in (own, top) if p):
        for k, v in profile(name)["queue"].get(out.get("type"), {}).items():
            out.setdefault(k, v["value"])
    return out


def _queues(raw: Mapping[str, Any], n: dict[str, Any], bott: int) -> tuple[dict, dict]:
    """The bottleneck's queue tables as the scenario gives them with its profile's
    keys (the gateway parses them with the simulator's code), else the simulator's
    default."""
    L = (raw.get("link") or [])[bott]
    given = n["links"][bott]
    top = raw.get("profile")
    qab = L.get("queue_ab") or L.get("queue")
    qba = L.get("queue_ba") or L.get("queue")
    return (
        _with_profile(qab, top) if qab else dict(given["queue_ab"]),
        _with_profile(qba, top) if qba else dict(given["queue_ba"]),
    )


def _flow_plan(
    f: dict[str, Any],
    side: dict[str, str],
    access_s: float,
    duration: float,
    kernel_cc: str | None,
) -> FlowPlan:
    """One expanded flow of the normalised scenario, as the testbed runs it."""
    where = f"flow[{f['spec']}]"
    if f["type"] not in ("tcp", "cbr"):
        raise ValueError(f"{where}.type = {f['type']!r}: the testbed runs tcp and cbr flows only")
    s, d = f["src"], f["dst"]
    fp = FlowPlan(
        index=f["id"],
        kind="tcp" if f["type"] == "tcp" else "udp",
        src=s,
        dst=d,
        src_side=side[s],
        start_s=f["start"],
        stop_s=f["stop"] if f["stop"] is not None else duration,
        packet_size=f["packet_size"],
        path_delay_s=access_s,
    )
    if f["type"] == "tcp":
        tcp = f["tcp"]
        fp.variant = tcp["variant"]
        if kernel_cc is None and tcp["variant"] not in KERNEL_CC:
            raise ValueError(
                f"{where}.variant = {tcp['variant']!r}: Linux has no module for it; the testbed "
                f"runs {', '.join(KERNEL_CC)} (or every flow with --kernel-cc)"
            )
        fp.kernel_cc = kernel_cc or KERNEL_CC[tcp["variant"]]
        fp.max_window = tcp["max_window"]
        fp.packets = tcp["packets"] or None
        fp.ecn = bool(f["ecn"])
    else:
        fp.rate_bps = fp.packet_size * 8 / f["interval"]
    return fp


def _add_notes(pl: Plan, access: list[float]) -> None:
    """What the testbed runs differently from the simulator, said once per plan."""
    if access and max(access) - min(access) > 1e-4:
        pl.notes.append(
            f"access-link delays differ between flows ({min(access) * 1e3:.1f}-{max(access) * 1e3:.1f} ms one-way); "
            "the gateway adds their mean to every flow, so RTTs are equalised"
        )
    tcp = [f for f in pl.flows if f.kind == "tcp"]
    pl.ecn = any(f.ecn for f in tcp)
    if pl.ecn and not all(f.ecn for f in tcp):
        pl.notes.append(
            "ECN is a namespace-wide setting (net.ipv4.tcp_ecn): every TCP flow runs ECN-capable"
        )
        for f in tcp:
            f.ecn = True
    if any(f.variant == "tahoe" and f.kernel_cc == "reno" for f in tcp):
        pl.notes.append(
            "tahoe has no Linux counterpart: run as the kernel's reno (NewReno with SACK)"
        )


def plan(sc: Mapping[str, Any], *, kernel_cc: str | None = None) -> Plan:
    """Check that the scenario is a dumbbell and turn it into a :class:`Plan`.

    `kernel_cc` runs every TCP flow with that Linux congestion control (e.g. "cubic")
    instead of the one mapped from its variant. A scenario the simulator refuses is
    refused with the simulator's message (``ValueError`` naming the field).
    """
    n = Scenario(sc).normalized()
    if not n["flows"]:
        raise ValueError("flow: the scenario has no [[flow]]")
    dirs = {d["name"]: d for d in n["directions"]}
    bott = _bottleneck(n, dirs)
    side = _sides(n, bott)
    L = n["links"][bott]
    queue_ab, queue_ba = _queues(sc, n, bott)
    pl = Plan(
        duration_s=n["duration"],
        warmup_s=n["warmup"],
        seed=n["seed"],
        link_name=f"{L['a']}->{L['b']}",
        link_name_back=f"{L['b']}->{L['a']}",
        rate_ab=L["rate_bps"],
        rate_ba=L["rate_bps"],
        delay_s=L["delay"],
        queue_ab=queue_ab,
        queue_ba=queue_ba,
        hosts={"a": [], "b": []},
        link_index=bott,
    )
    access: dict[int, float] = {}  # per [[flow]] entry
    for f in n["flows"]:
        if f["type"] in ("tcp", "cbr") and side[f["src"]] == side[f["dst"]]:
            raise ValueError(
                f"flow[{f['spec']}]: {f['src']} and {f['dst']} are on the same side "
                f"of the bottleneck {pl.link_name}"
            )
        one_way = sum(dirs[d]["delay"] for d in f["path"] if dirs[d]["link"] != bott)
        access.setdefault(f["spec"], one_way)
        pl.flows.append(_flow_plan(f, side, one_way, pl.duration_s, kernel_cc))
        for node in (f["src"], f["dst"]):
            if node not in pl.hosts[side[node]]:
                pl.hosts[side[node]].append(node)
    if len(pl.hosts["a"]) > 250 or len(pl.hosts["b"]) > 250:
        raise ValueError("the testbed supports at most 250 hosts per side")
    delays = list(access.values())
    pl.delay_s = L["delay"] + (sum(delays) / len(delays) if delays else 0.0)
    _add_notes(pl, delays)
    _check_windows(pl, {f["id"]: f["spec"] for f in n["flows"]})
    pl.lead_s = PRIME_LEAD_S if window_clamps(pl) else 0.0
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


def dumps(sc: dict[str, Any]) -> str:
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


def window_clamps(pl: Plan) -> dict[tuple[str, str, str], int]:
    """max_window in packets per (sender side, sender node, receiver node): each
    sender's congestion window to that receiver is clamped to it (docs/testbed.md,
    :mod:`.windows`). Pairs without a window are not clamped."""
    out: dict[tuple[str, str, str], int] = {}
    for f in pl.flows:
        if f.kind == "tcp" and f.max_window:
            out[(f.src_side, f.src, f.dst)] = f.max_window
    return out


def _check_windows(pl: Plan, spec: dict[int, int]) -> None:
    """The clamp holds per (sender, receiver) host pair (Linux keys it by the two
    addresses), so the TCP flows of one pair must share their max_window; `spec`
    maps each flow's id to its [[flow]] entry."""
    seen: dict[tuple[str, str], FlowPlan] = {}
    for f in pl.flows:
        if f.kind != "tcp":
            continue
        g = seen.setdefault((f.src, f.dst), f)
        if g.max_window != f.max_window:
            raise ValueError(
                f"flow[{spec[f.index]}].max_window = {f.max_window}: flow[{spec[g.index]}] from "
                f"{f.src} to {f.dst} has {g.max_window}; the testbed clamps the window per "
                "(sender, receiver) host pair, so flows of one pair need the same max_window "
                "(give them different hosts)"
            )
