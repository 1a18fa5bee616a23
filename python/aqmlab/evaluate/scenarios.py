"""The scenarios of RFC 7928 (Characterization Guidelines for AQM) as simulator scenarios.

Every scenario is the dumbbell of RFC 7928 Section 3: one sender node ``s<i>`` and one
receiver node ``k<i>`` per ``[[flow]]`` entry (so that each entry has its own access
links and round-trip time), the routers ``l`` and ``r``, and the bottleneck ``l->r``
whose queue is the AQM under test. :data:`SCENARIOS` lists them in RFC order;
:func:`build` turns (scenario id, variant, queue table, seed, quick, ecn) into the dict
``aqmlab.Scenario`` takes. Every flow is named by its class (:data:`CLASSES`), which is
what the metrics group by. The numbers and the reasoning behind each are the named
constants of :mod:`.setup`; ``docs/evaluate.md`` explains them for a reader.

Node names: ``s<i>`` is the left host of entry i and ``k<i>`` the right one; a flow
sends from ``s<i>`` to ``k<i>``, except the reverse flows of 9.2, which send from
``k<i>`` to ``s<i>``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

from ..compare import with_queue
from ..sim import Scenario
from . import sensitivity
from .sensitivity import KEY_PARAMETERS, PARAMETER_GROUPS
from .setup import (
    ACCESS_BUFFER,
    ACCESS_RATE,
    BASE_RTT,
    BOTTLENECK,
    BOTTLENECK_DELAY,
    BOTTLENECK_RATE,
    BUFFER,
    BURST_PACKETS,
    BURST_RATE,
    CLASSES,
    EXTRA_CLASSES,
    INITIAL_RTO,
    IW3,
    IW10,
    LEDBAT_GAIN,
    LEDBAT_TARGET,
    LONG_LIVED,
    LOSS_HEAVY,
    LOSS_MEDIUM,
    LOSS_MILD,
    LOW_RATE,
    MAX_WINDOW,
    N_HEAVY,
    N_MEDIUM,
    N_MILD,
    PACKET_SIZE,
    PREP_DELAY,
    RECEIVER_DELAY,
    RTT_BOTTLENECK_DELAY,
    RTT_QUICK_MS,
    RTT_RECEIVER_DELAY,
    RTT_REF,
    RTT_VALUES_MS,
    SENDER_DELAY,
    SHORT_PACKETS,
    SHORT_START_AFTER_WARMUP,
    START_SPREAD,
    UDP_HIGH,
    UDP_LOW,
    VIDEO_BATCH,
    VIDEO_INTERVAL,
    VOIP_INTERVAL,
    VOIP_PACKET_SIZE,
    WEB_MEAN_PACKETS,
    WEB_POOL,
    WEB_RATE,
    WEB_SHAPE,
    congestion_flows,
    timing,
)

__all__ = [
    "SCENARIOS",
    "EvalScenario",
    "get",
    "build",
    "CLASSES",
    "EXTRA_CLASSES",
    "classes_of",
    "LONG_LIVED",
    "KEY_PARAMETERS",
    "PARAMETER_GROUPS",
    "BOTTLENECK",
    "BASE_RTT",
    "BUFFER",
    "congestion_flows",
    "sensitivity_queue",
    "sensitivity_parameters",
    "timing",
]

# --- 8.3 ----------------------------------------------------------------------------


def sensitivity_parameters(queue: Mapping[str, Any]) -> list[str]:
    """The parameters 8.3 scales for `queue` (see :mod:`.sensitivity`)."""
    return sensitivity.parameters(queue, BUFFER)


def sensitivity_queue(queue: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """`queue` with the 8.3 `variant` applied (see :mod:`.sensitivity`)."""
    return sensitivity.apply(queue, variant, BUFFER)


# --- The network -------------------------------------------------------------------


@dataclass
class _Net:
    """The dumbbell being built: links, flows and events in scenario-file shape."""

    bottleneck_delay: float = BOTTLENECK_DELAY
    links: list[dict[str, Any]] = field(default_factory=list)
    flows: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        flow: dict[str, Any],
        send_delay: float = SENDER_DELAY,
        recv_delay: float = RECEIVER_DELAY,
        reverse: bool = False,
    ) -> None:
        """Add `flow` on its own pair of hosts with the given access delays."""
        i = len(self.flows)
        s, k = f"s{i}", f"k{i}"
        for a, b, d in ((s, "l", send_delay), ("r", k, recv_delay)):
            self.links.append(
                {
                    "a": a,
                    "b": b,
                    "rate": ACCESS_RATE,
                    "delay": d,
                    "queue": {"type": "droptail", "limit": ACCESS_BUFFER},
                }
            )
        src, dst = (k, s) if reverse else (s, k)
        self.flows.append(dict(flow, src=src, dst=dst))


@dataclass(frozen=True)
class _Ctx:
    """What a scenario's flows depend on."""

    variant: str
    duration: float
    warmup: float
    ecn: bool


def _tcp(
    name: str, ctx: _Ctx, variant: str = "newreno", iw: int = IW10, **extra: Any
) -> dict[str, Any]:
    """A long-lived (unless `extra` says otherwise) TCP flow of class `name`."""
    f: dict[str, Any] = {
        "type": "tcp",
        "name": name,
        "variant": variant,
        "start": {"uniform": [0.0, START_SPREAD]},
        "packet_size": PACKET_SIZE,
        "max_window": MAX_WINDOW,
        "initial_window": iw,
        "initial_rto": INITIAL_RTO,
        "prep_delay": PREP_DELAY,
        "sack": True,
        "delayed_ack": False,
        "ecn": ctx.ecn,
    }
    f.update(extra)
    return f


def _cbr(name: str, packet_size: int, **extra: Any) -> dict[str, Any]:
    f: dict[str, Any] = {
        "type": "cbr",
        "name": name,
        "start": {"uniform": [0.0, START_SPREAD]},
        "packet_size": packet_size,
    }
    f.update(extra)
    return f


def _web(name: str, ctx: _Ctx, rate: float, packets: int, fixed: bool) -> dict[str, Any]:
    """A pool of web connections (SACK is not available to web flows)."""
    f: dict[str, Any] = {
        "type": "web",
        "name": name,
        "start": 0.0,
        "packet_size": PACKET_SIZE,
        "max_window": MAX_WINDOW,
        "initial_window": IW10,
        "initial_rto": INITIAL_RTO,
        "prep_delay": PREP_DELAY,
        "delayed_ack": False,
        "ecn": ctx.ecn,
        "arrival_rate": rate,
        "mean_packets": packets,
        "max_transfers": WEB_POOL,
    }
    if fixed:
        f["size_distribution"] = "fixed"
    else:
        f["shape"] = WEB_SHAPE
    return f


def _burst(ctx: _Ctx) -> dict[str, Any]:
    return _web("burst", ctx, BURST_RATE, BURST_PACKETS, fixed=True)


def _webmice(ctx: _Ctx) -> dict[str, Any]:
    return _web("web", ctx, WEB_RATE, WEB_MEAN_PACKETS, fixed=False)


def _video() -> dict[str, Any]:
    return _cbr("video", PACKET_SIZE, interval=VIDEO_INTERVAL, batch=VIDEO_BATCH)


# --- The scenarios' flows ------------------------------------------------------------


def _s511(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx, iw=IW3))


def _s512(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx, iw=IW3, start=0.0))
    start = ctx.warmup + SHORT_START_AFTER_WARMUP
    net.add(_tcp("short", ctx, start=start, packets=SHORT_PACKETS))


def _s52(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("cubic", ctx, variant="cubic"))
    net.add(_tcp("bulk", ctx))


def _sl4s(net: _Net, ctx: _Ctx) -> None:
    prague = _tcp("prague", ctx, variant="prague")
    del prague["prep_delay"]  # (paced: the simulator refuses a preparation delay)
    net.add(prague)
    net.add(_tcp("cubic", ctx, variant="cubic"))


def _udp(factor: float) -> Callable[[_Net, _Ctx], None]:
    def flows(net: _Net, ctx: _Ctx) -> None:
        net.add(_tcp("bulk", ctx))
        net.add(_cbr("udp", PACKET_SIZE, rate=factor * BOTTLENECK_RATE))

    return flows


def _s54(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(
        _tcp("ledbat", ctx, variant="ledbat", ledbat_target=LEDBAT_TARGET, ledbat_gain=LEDBAT_GAIN)
    )


def _rtt_ms(variant: str) -> float:
    if not variant.endswith("ms"):
        raise ValueError(f"variant: {variant!r}: expected an RTT such as '10ms'")
    return float(variant[:-2])


def _sender_delay_6(rtt: float) -> float:
    """Scenario 6: the sender access delay that makes the propagation RTT `rtt`."""
    return rtt / 2 - RTT_BOTTLENECK_DELAY - RTT_RECEIVER_DELAY


def _s6(net: _Net, ctx: _Ctx) -> None:
    net.bottleneck_delay = RTT_BOTTLENECK_DELAY
    r = _rtt_ms(ctx.variant) / 1000
    net.add(_tcp("ref", ctx), _sender_delay_6(RTT_REF), RTT_RECEIVER_DELAY)
    net.add(_tcp("rtt", ctx), _sender_delay_6(r), RTT_RECEIVER_DELAY)


def _s71(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(_burst(ctx))


def _s72(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(_video())


def _s73(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(_webmice(ctx))


def _s74(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(_burst(ctx))
    net.add(_video())
    net.add(_webmice(ctx))


def _bulk(n: int) -> Callable[[_Net, _Ctx], None]:
    def flows(net: _Net, ctx: _Ctx) -> None:
        for _ in range(n):
            net.add(_tcp("bulk", ctx))

    return flows


def _s825(net: _Net, ctx: _Ctx) -> None:
    """N_mild flows throughout; N_heavy - N_mild more from T/3 to 2T/3."""
    _bulk(N_MILD)(net, ctx)
    t1, t2 = ctx.duration / 3, 2 * ctx.duration / 3
    for _ in range(N_HEAVY - N_MILD):
        net.add(_tcp("bulk", ctx, start={"uniform": [t1, t1 + START_SPREAD]}, stop=t2))


def _s826(net: _Net, ctx: _Ctx) -> None:
    """N_medium flows; the bottleneck at LOW_RATE from T/3 to 2T/3."""
    _bulk(N_MEDIUM)(net, ctx)
    for at, rate in ((ctx.duration / 3, LOW_RATE), (2 * ctx.duration / 3, BOTTLENECK_RATE)):
        net.events.append({"at": at, "a": "l", "b": "r", "action": "rate", "rate": rate})


def _s91(net: _Net, ctx: _Ctx) -> None:
    net.add(_tcp("bulk", ctx))
    net.add(_tcp("cubic", ctx, variant="cubic"))
    net.add(_webmice(ctx))
    net.add(_video())
    net.add(_cbr("voip", VOIP_PACKET_SIZE, interval=VOIP_INTERVAL))


def _s92(net: _Net, ctx: _Ctx) -> None:
    _bulk(N_MEDIUM)(net, ctx)
    for _ in range(N_MEDIUM):
        net.add(_tcp("reverse", ctx), reverse=True)


# --- The list ----------------------------------------------------------------------


@dataclass(frozen=True)
class EvalScenario:
    """One RFC 7928 scenario: its id (the RFC section, refined), title, a description of
    its definition and assumptions, and whether it has an ECN variant."""

    id: str
    section: str
    title: str
    description: str
    has_ecn: bool = False
    flows: Callable[[_Net, _Ctx], None] = field(default=_s511, repr=False, compare=False)
    variant_values: tuple[str, ...] = ("default",)
    quick_values: tuple[str, ...] | None = None
    sensitivity: bool = False
    both_directions: bool = False
    #: the target loss rate of the congestion level its flow count is chosen for
    loss_target: float | None = None
    #: run only when named (not one of RFC 7928's, not in the default selection)
    opt_in: bool = False

    def variants(self, quick: bool = False, queue: Mapping[str, Any] | None = None) -> list[str]:
        """The variants of this scenario (``["default"]`` when it has none); 8.3's depend
        on the queue table."""
        if self.sensitivity:
            if queue is None:
                raise ValueError(f"scenario {self.id}: its variants depend on the queue")
            return sensitivity.variants(queue, BUFFER)
        if quick and self.quick_values is not None:
            return list(self.quick_values)
        return list(self.variant_values)


def _ms(values: Sequence[int]) -> tuple[str, ...]:
    return tuple(f"{v}ms" for v in values)


_TCP_SETUP = (
    "Dumbbell of RFC 7928 Section 3: bottleneck l->r 10 Mb/s, 10 ms one way, buffer 167 "
    "packets (2 x BDP; the reverse direction Drop Tail, 167 packets), access links 100 Mb/s, "
    "20 ms on each side (base RTT 100 ms), 1500-byte packets, TCP with SACK, no delayed "
    "ACKs, IW10, initial RTO 1 s (RFC 6298), each TCP packet sent U[0, 1.2 ms] late (one "
    "packet time at the bottleneck, against phase effects), flows starting at uniform[0, 1] "
    "s; 300 s measured after a 30 s warm-up (quick: 60 s, 10 s)."
)

#: What each scenario is (its definition; the common setup follows in the description).
_TEXT = {
    "5.1.1": "One long-lived NewReno flow with IW3.",
    "5.1.2": f"A long-lived NewReno flow (IW3) from 0 s and a NewReno IW10 transfer of "
    f"{SHORT_PACKETS} packets starting {SHORT_START_AFTER_WARMUP:g} s after the warm-up; its "
    "completion time is the metric.",
    "5.2": "One CUBIC and one NewReno long-lived flow; goodput ratio CUBIC/NewReno.",
    "5.3.1": "One NewReno flow beside a UDP CBR flow at 0.5 x C (5 Mb/s).",
    "5.3.2": "One NewReno flow beside a UDP CBR flow at 1.5 x C (15 Mb/s).",
    "5.4": "One NewReno and one LEDBAT flow (RFC 6817, target 100 ms, gain 1); goodput ratio "
    "LEDBAT/NewReno.",
    "6": "One NewReno flow at RTT 100 ms (ref) and one at RTT R (rtt); goodput ratio rtt/ref. "
    "Bottleneck delay 1 ms, receiver access 0.5 ms, sender access R/2 - 1.5 ms, so that R can "
    "be as small as 5 ms.",
    "7.1": "A long-lived NewReno flow plus web-style transfers of exactly 10 packets (IW10), "
    "Poisson arrivals 2/s.",
    "7.2": "A long-lived NewReno flow plus UDP bursts of 7 packets every 40 ms (25 frames/s, "
    "2.1 Mb/s).",
    "7.3": "A long-lived NewReno flow plus web transfers: Poisson arrivals 5/s, Pareto sizes of "
    "mean 12 packets, shape 1.2, IW10.",
    "7.4": "A long-lived NewReno flow with the traffic of 7.1, 7.2 and 7.3 together.",
    "8.2.2": f"{N_MILD} long-lived NewReno flows (the Mathis formula's N for a 0.1% loss rate).",
    "8.2.3": f"{N_MEDIUM} long-lived NewReno flows (the Mathis formula's N for a 0.5% loss rate).",
    "8.2.4": f"{N_HEAVY} long-lived NewReno flows (the Mathis formula's N for a 1% loss rate).",
    "8.2.5": f"{N_MILD} long-lived NewReno flows throughout; {N_HEAVY - N_MILD} more join at T/3 "
    "and stop at 2T/3 (T the duration).",
    "8.2.6": f"{N_MEDIUM} long-lived NewReno flows; the bottleneck rate goes from 10 to 5 Mb/s at "
    "T/3 and back at 2T/3.",
    "8.3": "Medium congestion (8.2.3) with each of the AQM's key parameters scaled by 0.5 and by "
    "2, one at a time, beside its defaults.",
    "9.1": "One NewReno and one CUBIC long-lived flow, the web traffic of 7.3, the video of 7.2 "
    "and a VoIP-like UDP CBR (200-byte packets every 20 ms, 80 kb/s).",
    "9.2": f"{N_MEDIUM} long-lived NewReno flows l->r and {N_MEDIUM} r->l (reverse); the AQM "
    "under test on both directions of the bottleneck.",
    "l4s": "L4S coexistence (not in RFC 7928; run when named, e.g. --scenarios l4s --aqm "
    "dualpi2,fq_codel,pie): one TCP Prague flow (ECT(1), paced) beside one CUBIC flow; "
    "goodput ratio Prague/CUBIC. Its ECN variant makes CUBIC ECN-capable and the AQM mark "
    "(a Classic ECN queue for Prague unless it is DualPI2).",
}


def _sc(
    id: str, section: str, title: str, ecn: bool, flows: Callable[[_Net, _Ctx], None], **kw: Any
) -> EvalScenario:
    return EvalScenario(id, section, title, f"{_TEXT[id]} {_TCP_SETUP}", ecn, flows, **kw)


SCENARIOS: list[EvalScenario] = [
    _sc("5.1.1", "5.1", "One long-lived TCP flow", True, _s511),
    _sc("5.1.2", "5.1", "A short transfer beside a long-lived flow", False, _s512),
    _sc("5.2", "5.2", "Aggressive transport: CUBIC beside NewReno", True, _s52),
    _sc("5.3.1", "5.3", "Unresponsive UDP at half the capacity", True, _udp(UDP_LOW)),
    _sc("5.3.2", "5.3", "Unresponsive UDP above the capacity", False, _udp(UDP_HIGH)),
    _sc("5.4", "5.4", "Less-than-best-effort transport: LEDBAT beside NewReno", True, _s54),
    _sc(
        "6",
        "6",
        "Round-trip-time fairness",
        False,
        _s6,
        variant_values=_ms(RTT_VALUES_MS),
        quick_values=_ms(RTT_QUICK_MS),
    ),
    _sc("7.1", "7", "Bursty traffic: IW10 bursts", False, _s71),
    _sc("7.2", "7", "Bursty traffic: video frames", False, _s72),
    _sc("7.3", "7", "Bursty traffic: web", False, _s73),
    _sc("7.4", "7", "Bursty traffic: the mix", False, _s74),
    _sc("8.2.2", "8.2", "Mild congestion", False, _bulk(N_MILD), loss_target=LOSS_MILD),
    _sc("8.2.3", "8.2", "Medium congestion", True, _bulk(N_MEDIUM), loss_target=LOSS_MEDIUM),
    _sc("8.2.4", "8.2", "Heavy congestion", False, _bulk(N_HEAVY), loss_target=LOSS_HEAVY),
    _sc("8.2.5", "8.2", "Varying congestion", False, _s825),
    _sc("8.2.6", "8.2", "Varying capacity", False, _s826, loss_target=LOSS_MEDIUM),
    _sc(
        "8.3",
        "8.3",
        "Parameter sensitivity",
        False,
        _bulk(N_MEDIUM),
        sensitivity=True,
        loss_target=LOSS_MEDIUM,
    ),
    _sc("9.1", "9.1", "Traffic mix", True, _s91),
    _sc(
        "9.2", "9.2", "Two-way traffic", False, _s92, both_directions=True, loss_target=LOSS_MEDIUM
    ),
    _sc("l4s", "L4S", "L4S coexistence: TCP Prague beside CUBIC", True, _sl4s, opt_in=True),
]

_BY_ID = {s.id: s for s in SCENARIOS}


def classes_of(id: str) -> tuple[str, ...]:
    """The flow classes whose metrics scenario `id` lists: RFC 7928's
    (:data:`CLASSES`), and for a scenario beyond it the extra ones too."""
    return CLASSES + EXTRA_CLASSES if get(id).opt_in else CLASSES


def get(id: str) -> EvalScenario:
    """The scenario `id` (``"5.1.1"``; ``"5.1.1+ecn"`` gives the same scenario when it
    has an ECN variant)."""
    base, plus, tail = id.partition("+")
    s = _BY_ID.get(base)
    if s is None or (plus and (tail != "ecn" or not s.has_ecn)):
        allowed = [x.id for x in SCENARIOS] + [f"{x.id}+ecn" for x in SCENARIOS if x.has_ecn]
        raise ValueError(f"scenario: unknown id {id!r}; allowed {', '.join(allowed)}")
    return s


def _with_buffer(queue: Mapping[str, Any]) -> dict[str, Any]:
    q = dict(queue)
    if "limit" not in q and "limit_bytes" not in q:
        q["limit"] = BUFFER
    return q


def _ecn_queue(queue: Mapping[str, Any]) -> dict[str, Any]:
    """`queue` with ``ecn = true`` where its type has the key (Drop Tail drops). An AQM
    from outside (a Python class, a plugin) runs as its table says: its keys are its own."""
    q = dict(queue)
    if q.get("type") in ("python", "plugin"):
        return q
    if "ecn" in sensitivity.type_keys(str(q.get("type"))):
        q["ecn"] = True
    return q


#: Flow variants a scenario needs from the simulator beyond NewReno and CUBIC.
_NEEDS_VARIANT = {"5.4": "ledbat", "l4s": "prague"}


@functools.cache
def _simulator_has_variant(variant: str) -> bool:
    """Whether the installed simulator accepts ``[[flow]] variant = <variant>``."""
    probe = {
        "duration": 1.0,
        "link": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
        "flow": [{"type": "tcp", "variant": variant, "src": "a", "dst": "b"}],
    }
    try:
        Scenario(probe)
    except ValueError:
        return False
    return True


def unavailable(id: str) -> str | None:
    """Why scenario `id` cannot run with the installed simulator, or None if it can."""
    variant = _NEEDS_VARIANT.get(get(id).id)
    if variant is not None and not _simulator_has_variant(variant):
        return f"the simulator has no TCP variant {variant!r} yet"
    return None


def build(
    id: str, variant: str, queue: Mapping[str, Any], seed: int, quick: bool, ecn: bool
) -> dict[str, Any]:
    """The simulator scenario (a dict for ``aqmlab.Scenario``) of scenario `id` at
    `variant` with `queue` (a queue table; without ``limit``/``limit_bytes`` it gets the
    scenario's buffer) on the bottleneck ``l->r``. `ecn`: every TCP flow ECN-capable and
    the queue's ``ecn = true`` (only for scenarios with an ECN variant)."""
    s = get(id)
    if ecn and not s.has_ecn:
        raise ValueError(f"ecn: scenario {s.id} has no ECN variant")
    if "type" not in queue:
        raise ValueError("queue.type: missing")
    allowed = s.variants(quick, queue)
    if variant not in allowed:
        raise ValueError(
            f"variant: {variant!r} is not a variant of scenario {s.id}; allowed "
            f"{', '.join(allowed)}"
        )
    duration, warmup = timing(quick)
    q = sensitivity_queue(queue, variant) if s.sensitivity else dict(queue)
    if ecn:
        q = _ecn_queue(q)
    net = _Net()
    s.flows(net, _Ctx(variant, duration, warmup, ecn))
    reverse = {"type": "droptail", "limit": BUFFER}
    bottleneck = {
        "a": "l",
        "b": "r",
        "rate": BOTTLENECK_RATE,
        "delay": net.bottleneck_delay,
        "queue_ab": {"type": "droptail", "limit": BUFFER},
        "queue_ba": _with_buffer(q) if s.both_directions else reverse,
    }
    data: dict[str, Any] = {
        "name": f"rfc7928-{s.id}{'+ecn' if ecn else ''}-{variant}",
        "description": s.title,
        "duration": duration,
        "warmup": warmup,
        "seed": int(seed),
        "bottleneck": BOTTLENECK,
        "link": [bottleneck] + net.links,
        "flow": net.flows,
    }
    if net.events:
        data["event"] = net.events
    return with_queue(data, q)
