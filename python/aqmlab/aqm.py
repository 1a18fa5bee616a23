"""Queue disciplines of the RED family and the AQMs compared with it today (CoDel,
FQ-CoDel, FQ-PIE, PIE, BLUE, SFB, CHOKe, PI, DualPI2), backed by the Rust library ``crates/aqm``.

Each constructor takes the papers' (and RFCs') parameter names; parameters left out
take the library's defaults (the papers' and RFCs' values, see ``docs/algorithms.md``).
Every discipline holds its own packets (an ``aqm::AnyQdisc``: the RED family over a
FIFO buffer, CoDel deciding at dequeue, FQ-CoDel one queue per flow bucket) and has
the same interface::

    q = aqm.Red(min_th=5, max_th=15, w_q=0.002, max_p=0.02, limit=50)
    q.enqueue(now, size, flow, ecn_capable=False)  # "enqueue" | "mark" | "drop_early" | "drop_forced"
    q.enqueue(now, size, flow, ect1=True)          # an L4S (ECT(1)) packet; ce=True: arrives CE
    q.dequeue(now)                                 # (size, flow) or None
    q.dequeue_marked(now)                          # (size, flow, marked) or None
    q.last_dropped, q.last_dequeue_dropped         # [(size, flow, reason)] of the last call
    q.signal, q.signal_kind, q.state, q.len_packets, q.len_bytes, q.stats
    q.avg, q.count, q.max_p                        # the RED family's (0 for the others)

Times are seconds (float, >= 0) and never go back: a call whose ``now`` is earlier
than the previous call's raises ``ValueError``. Invalid parameters raise
``ValueError`` naming the parameter and the allowed range; flags (``gentle``,
``ecn``, ``ecn_capable``, ``ect1``, ``ce`` ...) take only ``True`` or ``False``; an
``ect1`` or ``ce`` packet is ECN-capable (``ecn_capable`` may then not be ``False``),
and DualPI2 classifies it into its L queue. The queue size a
discipline sees counts the packets waiting in the buffer (the caller dequeues a
packet when it starts to transmit it). A discipline that decides at dequeue may
discard packets there (``last_dequeue_dropped``, ``stats["dequeue_drops"]``) and mark
the packet it hands out (``dequeue_marked``); ``signal`` is its main congestion
signal (RED's average, PIE's drop probability, CoDel's drop count) and ``signal_kind``
says which; ``state`` is a dict of the discipline's state under its paper's names
(RED's ``avg``, ``count``, ``max_p``; BLUE's ``p_m``; PIE's ``drop_prob``, ...).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from . import _native

__all__ = [
    "Queue",
    "DropTail",
    "RandomDrop",
    "Red",
    "AdaptiveRed",
    "FengAdaptiveRed",
    "Fred",
    "CoDel",
    "FqCoDel",
    "FqPie",
    "Pie",
    "Blue",
    "Sfb",
    "Choke",
    "Pi",
    "DualPi2",
    "from_config",
    "QUEUE_TYPES",
]

QUEUE_TYPES: Tuple[str, ...] = tuple(_native.queue_types())


class Queue(_native.Queue):
    """A discipline with its buffer, built from a configuration dict with a ``type`` key.

    ``Queue({"type": "red", "min_th": 5, "max_th": 15, "limit": 50})`` is the same as
    ``Red(min_th=5, max_th=15, limit=50)``. The dict has the shape of a scenario file's
    ``queue = {...}`` table.
    """

    # Keyword arguments that are ``None`` are left out, so the library's default applies.
    _TYPE = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> "Queue":
        if cls._TYPE:
            config = {"type": cls._TYPE}
            config.update({k: v for k, v in kwargs.items() if v is not None})
            if args:
                raise TypeError(f"{cls.__name__}() takes keyword arguments only")
        else:
            if len(args) != 1 or kwargs or not isinstance(args[0], dict):
                raise TypeError("Queue(config: dict) takes one configuration dict")
            config = dict(args[0])
        return super().__new__(cls, config)

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # parameters consumed by __new__
        pass


def from_config(config: dict) -> Queue:
    """Build a discipline from a configuration dict (``{"type": "red", ...}``)."""
    return Queue(config)


class DropTail(Queue):
    """First in, first out with a finite buffer.

    Parameters: ``limit`` (packets) and/or ``limit_bytes``; ``drop_front=True`` drops
    the head of the queue instead of the arrival when the buffer is full.
    """

    _TYPE = "droptail"

    def __init__(
        self,
        *,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        drop_front: Optional[bool] = None,
        **options: Any,
    ) -> None:
        pass


class RandomDrop(Queue):
    """Random Drop: an arrival to a full buffer causes one packet, chosen uniformly
    among the queued packets and the arrival, to be dropped.

    Parameters: ``limit``, ``limit_bytes``, ``seed``.
    """

    _TYPE = "randomdrop"

    def __init__(
        self,
        *,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Red(Queue):
    """RED exactly as Fig. 2 of Floyd & Jacobson (1993).

    Parameters (defaults from the paper's simulations): ``min_th`` (5), ``max_th`` (15),
    ``w_q`` (0.002), ``max_p`` (0.02), ``limit`` (packets; required unless
    ``limit_bytes``), ``gentle`` (False), ``ecn`` (False: ECN-capable packets are
    marked instead of dropped by early decisions; forced decisions always drop),
    ``byte_mode`` (False: p_b scaled by size / ``max_pkt_size``), ``queue_in_bytes``
    (False: thresholds and avg in bytes), ``mark_method`` ("uniform" = Method 2,
    "geometric" = Method 1, "ns2_wait"), ``count_mode`` ("text" = Section VII's
    definition, "figure2" = Fig. 2 literally), ``efficient`` (Fig. 17), ``drop_front``,
    ``min_backlog`` (0: no drop decision while fewer packets wait; ns-2 and ns-3: 2),
    ``mean_pkt_size`` (500 bytes), ``max_pkt_size`` (1500 bytes), ``link_rate_bps``
    (10 Mb/s when not given; with ``mean_pkt_size`` it sets the idle-aging packet time
    s), ``idle_pkt_time`` (s directly), ``seed`` (1).
    """

    _TYPE = "red"

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: Optional[float] = None,
        limit: Optional[int] = None,
        gentle: bool = False,
        ecn: bool = False,
        byte_mode: bool = False,
        queue_in_bytes: bool = False,
        mark_method: str = "uniform",
        mean_pkt_size: Optional[int] = None,
        link_rate_bps: Optional[float] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class AdaptiveRed(Queue):
    """Adaptive RED (Floyd, Gummadi & Shenker 2001, Fig. 10).

    RED's parameters (gentle on by default, initial ``max_p`` 0.1) plus ``interval``
    (0.5 s), ``target_delay`` (0.005 s), ``alpha`` (None = min(0.01, max_p/4)),
    ``beta`` (0.9), ``max_p_min`` (0.01), ``max_p_max`` (0.5). ``min_th``, ``max_th`` and
    ``w_q`` left as None are set automatically from ``link_rate_bps`` and
    ``mean_pkt_size``: w_q = 1 - exp(-1/C), min_th = max(5, target_delay C / 2),
    max_th = 3 min_th.
    """

    _TYPE = "ared"

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: Optional[float] = None,
        limit: Optional[int] = None,
        interval: Optional[float] = None,
        target_delay: Optional[float] = None,
        link_rate_bps: Optional[float] = None,
        mean_pkt_size: Optional[int] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class FengAdaptiveRed(Queue):
    """The original Adaptive RED of Feng et al. (1997, 1999): max_p divided by
    ``feng_alpha`` (3) when avg falls below min_th, multiplied by ``feng_beta`` (2)
    when it rises above max_th. Other parameters as :class:`Red`.
    """

    _TYPE = "feng_ared"

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: Optional[float] = None,
        limit: Optional[int] = None,
        feng_alpha: Optional[float] = None,
        feng_beta: Optional[float] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Fred(Queue):
    """FRED (Lin & Morris 1997, Section 4.5).

    Parameters: ``min_th`` (default limit/4), ``max_th`` (2 min_th), ``w_q`` (0.002),
    ``max_p`` (0.02), ``limit``, ``min_q`` (2), ``many_flows`` (Section 6's two-packet
    buffer), ``byte_mode``, ``max_pkt_size``, ``mean_pkt_size``, ``link_rate_bps``,
    ``idle_pkt_time``, ``seed``. ``fred_flow(flow)`` returns ``(qlen, strike)`` of a flow
    with packets buffered.
    """

    _TYPE = "fred"

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: Optional[float] = None,
        limit: Optional[int] = None,
        min_q: Optional[float] = None,
        many_flows: bool = False,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class CoDel(Queue):
    """CoDel, Controlled Delay (RFC 8289): decides at dequeue on the time the head
    packet waited (its sojourn time).

    Parameters (RFC 8289; Linux's ``limit``): ``target`` (0.005 s, the acceptable
    standing delay), ``interval`` (0.1 s: dropping starts once the sojourn time has
    stayed at or above target this long, and the control law spaces drops by
    interval / sqrt(count)), ``limit`` (1000 packets), ``ecn`` (False: mark ECN-capable
    packets instead of dropping them), ``ce_threshold`` (None: off; Linux's marking of
    ECN-capable packets whose sojourn time exceeds it), ``maxpacket`` (1500 bytes: no
    drop while the queue left behind holds at most this much). Times are seconds or
    strings with a unit ("5ms").
    """

    _TYPE = "codel"

    def __init__(
        self,
        *,
        target: Optional[Union[float, str]] = None,
        interval: Optional[Union[float, str]] = None,
        limit: Optional[int] = None,
        ecn: Optional[bool] = None,
        ce_threshold: Optional[Union[float, str]] = None,
        maxpacket: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class FqCoDel(Queue):
    """FQ-CoDel (RFC 8290): flows hashed into ``flows`` queues served by deficit round
    robin, new flows first, each queue managed by CoDel.

    Parameters (RFC 8290 and Linux's defaults): ``flows`` (1024 hash buckets),
    ``quantum`` (1514 bytes per round), ``limit`` (10240 packets in all),
    ``memory_limit`` (32 MB = 33554432 bytes in all), ``drop_batch_size`` (64: on
    overflow, packets dropped at most from the head of the flow with the most bytes,
    stopping once half its bytes are gone), ``ecn`` (True), ``seed`` (the flow hash's
    salt), and CoDel's ``target``, ``interval``, ``ce_threshold``, ``maxpacket`` as in
    :class:`CoDel`.
    """

    _TYPE = "fq_codel"

    def __init__(
        self,
        *,
        target: Optional[Union[float, str]] = None,
        interval: Optional[Union[float, str]] = None,
        limit: Optional[int] = None,
        flows: Optional[int] = None,
        quantum: Optional[int] = None,
        memory_limit: Optional[int] = None,
        drop_batch_size: Optional[int] = None,
        ecn: Optional[bool] = None,
        ce_threshold: Optional[Union[float, str]] = None,
        maxpacket: Optional[int] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Pie(Queue):
    """PIE (RFC 8033): a drop probability moved every ``tupdate`` from the queueing delay.

    Parameters (RFC defaults): ``target`` (0.015 s), ``tupdate`` (0.015 s), ``alpha``
    (0.125 /s), ``beta`` (1.25 /s), ``max_burst`` (0.150 s), ``limit`` (1000 packets,
    Linux's default), ``ecn`` (False; marks while the probability is at most
    ``mark_ecn_th``, 0.1), ``delay_mode`` ("rate_estimator", Section 4.3, or
    "timestamp", Linux's default), ``dq_threshold`` (16384 bytes), ``mean_pkt_size``
    (1500 bytes), ``derandomize`` (True), ``burst_reset`` ("rfc", Section 4.4; "quiet",
    ns-3 3.37's rule: the burst allowance back only after 1.5 s of quiet updates, the
    probability held at 0 while it lasts), ``seed``. Times in seconds or strings with a
    unit ("15ms"). PIE holds its packets (it measures the delay at dequeue).
    """

    _TYPE = "pie"

    def __init__(
        self,
        *,
        target: Optional[Any] = None,
        tupdate: Optional[Any] = None,
        alpha: Optional[float] = None,
        beta: Optional[float] = None,
        max_burst: Optional[Any] = None,
        limit: Optional[int] = None,
        ecn: Optional[bool] = None,
        delay_mode: Optional[str] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Sfb(Queue):
    """SFB, Stochastic Fair BLUE (Feng, Kandlur, Saha & Shin 2002; Linux ``sch_sfb``):
    each flow hashes to one bin in each of ``levels`` (8) levels of ``bins`` (16) bins;
    a bin counts its flows' waiting packets and keeps a BLUE probability, raised by
    ``increment`` (0.001) on an arrival while it holds ``bin_size`` (20) packets and
    lowered by ``decrement`` (1/6000) while it is empty. A packet is marked or dropped
    with the least probability of its bins; a flow whose bins are all at 1 is
    rate-limited to ``penalty_rate`` (10 packets/s, burst ``penalty_burst`` 20); an
    arrival whose bins all hold ``max`` (25) packets is dropped.

    Other parameters: ``limit`` (packets; required unless ``limit_bytes``), ``ecn``
    (mark ECN-capable packets instead of dropping them), ``seed`` (the hash salt and
    the draws).
    """

    _TYPE = "sfb"

    def __init__(
        self,
        *,
        levels: Optional[int] = None,
        bins: Optional[int] = None,
        bin_size: Optional[int] = None,
        max: Optional[int] = None,
        increment: Optional[float] = None,
        decrement: Optional[float] = None,
        penalty_rate: Optional[float] = None,
        penalty_burst: Optional[int] = None,
        limit: Optional[int] = None,
        ecn: Optional[bool] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Blue(Queue):
    """BLUE (Feng, Kandlur, Saha & Shin 2002): a marking probability p_m raised by ``d1``
    (0.02) on buffer overflow and lowered by ``d2`` (0.002) when the link goes idle, at
    most once per ``freeze_time`` (0.1 s).

    Other parameters: ``limit`` (packets; required unless ``limit_bytes``),
    ``threshold`` (L: more than L packets waiting also counts as a loss event), ``ecn``
    (mark ECN-capable packets instead of dropping them), ``seed``.
    """

    _TYPE = "blue"

    def __init__(
        self,
        *,
        d1: Optional[float] = None,
        d2: Optional[float] = None,
        freeze_time: Optional[Any] = None,
        limit: Optional[int] = None,
        threshold: Optional[int] = None,
        ecn: Optional[bool] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Choke(Queue):
    """CHOKe (Pan, Prabhakar & Psounis 2000): RED, plus a random match -- above
    ``min_th`` each arrival is compared with a packet drawn from the queue and both are
    dropped if they belong to the same flow.

    RED's parameters and defaults (see :class:`Red`) plus ``candidates`` (1: drop
    candidates drawn per arrival). CHOKe holds its packets (it looks at them).
    """

    _TYPE = "choke"

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: Optional[float] = None,
        limit: Optional[int] = None,
        candidates: Optional[int] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class Pi(Queue):
    """The PI controller of Hollot, Misra, Towsley & Gong (2001):
    p(kT) = p((k-1)T) + a (q(kT) - q_ref) - b (q((k-1)T) - q_ref).

    Parameters (the paper's example): ``a`` (1.822e-5), ``b`` (1.816e-5),
    ``sample_freq`` (160 Hz), ``q_ref`` (200 packets), ``limit`` (packets; required
    unless ``limit_bytes``), ``ecn``, ``seed``. ``aqmlab.analysis.pi_design`` computes
    a and b for other networks.
    """

    _TYPE = "pi"

    def __init__(
        self,
        *,
        a: Optional[float] = None,
        b: Optional[float] = None,
        sample_freq: Optional[float] = None,
        q_ref: Optional[float] = None,
        limit: Optional[int] = None,
        ecn: Optional[bool] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class DualPi2(Queue):
    """DualPI2 (RFC 9332): an L4S queue (ECT(1) and CE packets: ``enqueue(...,
    ect1=True)`` or ``ce=True``) and a Classic queue coupled by one PI controller on the
    Classic delay; Classic drop/mark probability p'^2, L4S marking
    max(step, min(k p', 1)).

    Parameters (RFC 9332 Appendix A and Linux defaults): ``target`` (0.015 s),
    ``tupdate`` (0.016 s), ``alpha`` (0.16 /s), ``beta`` (3.2 /s), ``k`` (2),
    ``step_thresh`` (0.001 s), ``c_protection`` (0.1: Classic's share of a saturated
    line), ``drop_on_overload`` (True), ``ecn`` (True: ECN-capable Classic packets are
    marked), ``limit`` (10000 packets, both queues), ``mtu`` (1500 bytes: no drop or
    mark from p' while fewer than 2 mtu stay queued; 0 = off), ``scheduler`` ("wrr",
    Linux's, or "tsfifo", RFC 9332's time-shifted FIFO), ``tshift`` (0.04 s, the
    time-shifted FIFO's bias towards L), ``seed``. DualPI2 holds its packets.
    """

    _TYPE = "dualpi2"

    def __init__(
        self,
        *,
        target: Optional[Any] = None,
        tupdate: Optional[Any] = None,
        alpha: Optional[float] = None,
        beta: Optional[float] = None,
        k: Optional[float] = None,
        step_thresh: Optional[Any] = None,
        c_protection: Optional[float] = None,
        limit: Optional[int] = None,
        mtu: Optional[int] = None,
        scheduler: Optional[str] = None,
        tshift: Optional[Any] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass


class FqPie(Queue):
    """FQ-PIE (Linux's ``sch_fq_pie``): FQ-CoDel's flow queues and deficit round robin,
    each flow queue managed by PIE (RFC 8033) with its own drop probability.

    Parameters (Linux's defaults): ``flows`` (1024 hash buckets), ``quantum`` (1514
    bytes per round), ``limit`` (10240 packets in all) and ``memory_limit`` (32 MB =
    33554432 bytes in all), beyond which the arriving packet is dropped; PIE's
    ``target`` (0.015 s), ``tupdate`` (0.015 s), ``alpha`` (0.125), ``beta`` (1.25),
    ``max_burst`` (0.15 s), ``ecn`` (False), ``mark_ecn_th`` (0.1: ECN-capable packets
    are marked instead of dropped while the flow's probability is at most this),
    ``mean_pkt_size`` (1500 bytes), ``derandomize`` (True), ``seed`` (the flow hash's
    salt and the flows' random streams). The delay of a flow is the sojourn time of
    its last departure (Linux's timestamps). Times are seconds or strings with a unit.
    """

    _TYPE = "fq_pie"

    def __init__(
        self,
        *,
        target: Optional[Union[float, str]] = None,
        tupdate: Optional[Union[float, str]] = None,
        alpha: Optional[float] = None,
        beta: Optional[float] = None,
        max_burst: Optional[Union[float, str]] = None,
        limit: Optional[int] = None,
        flows: Optional[int] = None,
        quantum: Optional[int] = None,
        memory_limit: Optional[int] = None,
        ecn: Optional[bool] = None,
        mark_ecn_th: Optional[float] = None,
        mean_pkt_size: Optional[int] = None,
        derandomize: Optional[bool] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        pass
