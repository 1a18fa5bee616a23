"""Queue disciplines of the RED family, CoDel and FQ-CoDel, backed by the Rust library
``crates/aqm``.

Each constructor takes the papers' (and RFCs') parameter names; parameters left out
take the library's defaults (the papers' and RFCs' values, see ``docs/algorithms.md``).
Every discipline holds its own buffer (FQ-CoDel one queue per flow bucket) and has
the same interface::

    q = aqm.Red(min_th=5, max_th=15, w_q=0.002, max_p=0.02, limit=50)
    q.enqueue(now, size, flow, ecn_capable=False)  # "enqueue" | "mark" | "drop_early" | "drop_forced"
    q.dequeue(now)                                 # (size, flow) or None
    q.avg, q.count, q.max_p, q.len_packets, q.len_bytes

Times are seconds (float, >= 0). Invalid parameters raise ``ValueError`` naming
the parameter and the allowed range. The queue size a discipline sees counts the
packets waiting in the buffer (the caller dequeues a packet when it starts to
transmit it).
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
