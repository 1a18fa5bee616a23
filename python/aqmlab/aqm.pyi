"""Type stubs of ``aqmlab.aqm``, whose classes are made at import from the AQM registry
of ``crates/aqm`` (``crates/aqm/src/registry.rs``). Generated from it by
``.venv/bin/python tests/python/test_aqm_registry.py --write``; a test fails when they drift.
"""

import inspect
from typing import Any, Literal, Optional, Union

from . import _native

__all__ = [
    "Queue",
    "from_config",
    "QUEUE_TYPES",
    "REGISTRY",
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
    "Pi",
    "Choke",
    "DualPi2",
    "Sfb",
    "Cobalt",
    "FqCobalt",
]

QUEUE_TYPES: tuple[str, ...]
REGISTRY: tuple[dict[str, Any], ...]

class Queue(_native.Queue):
    def __init__(self, config: dict[str, Any]) -> None: ...

def from_config(config: dict[str, Any]) -> Queue: ...
def docstring(spec: dict[str, Any]) -> str: ...
def signature(spec: dict[str, Any]) -> inspect.Signature: ...

class DropTail(Queue):
    """Drop Tail (Floyd & Jacobson 1993, Section II): first in, first out with a finite buffer.

    Keyword arguments (the keys of a scenario's ``queue = { type = "droptail", ... }``):

    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    drop_front (bool, default False): On overflow drop the head of the queue instead of the
        arrival.
    """

    def __init__(
        self,
        *,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        drop_front: bool = False,
    ) -> None: ...

class RandomDrop(Queue):
    """Random Drop (Floyd & Jacobson 1993, Section II; Hashem 1989): on overflow one packet,
    chosen uniformly among the queued ones and the arrival, is dropped.

    Keyword arguments (the keys of a scenario's ``queue = { type = "randomdrop", ... }``):

    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    seed (Optional[int], default None): Seed of the choice of victims.
    """

    def __init__(
        self,
        *,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None: ...

class Red(Queue):
    """RED (Floyd & Jacobson 1993, Fig. 2). Defaults: the paper's simulations (min_th 5, max_th
    15, w_q 0.002, max_p 1/50).

    Keyword arguments (the keys of a scenario's ``queue = { type = "red", ... }``):

    min_th (float, default 5.0): Minimum threshold of the average (packets; bytes with
        `queue_in_bytes`).
    max_th (float, default 15.0): Maximum threshold of the average.
    w_q (float, default 0.002): Weight of the average (eq. 1), (0, 1].
    max_p (float, default 0.02): max_p, the largest p_b between the thresholds, (0, 1] (for
        the adaptive variants its initial value): Floyd & Jacobson's 1/50.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`);
        always enforced.
    limit_bytes (Optional[int], default None): Buffer in bytes.
    gentle (bool, default False): Gentle mode: p_b from max_p to 1 between max_th and 2
        max_th.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them on early
        decisions (forced decisions and a full buffer always drop).
    byte_mode (bool, default False): Byte mode: p_b scaled by size / max_pkt_size (Section
        IV).
    queue_in_bytes (bool, default False): Queue, average and thresholds measured in bytes.
    mark_method (Literal["uniform", "geometric", "ns2_wait"], default 'uniform'): How p_b
        becomes p_a: "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
    count_mode (Literal["text", "figure2"], default 'text'): What `count` counts: "text"
        (Section VII) or "figure2" (Fig. 2 literally).
    efficient (bool, default False): Fig. 17's efficient variant: one random number per
        mark.
    drop_front (bool, default False): On overflow drop the head of the queue instead of the
        arrival.
    min_backlog (int, default 0): No drop decision while fewer packets wait (Fig. 2: 0; ns-2
        and ns-3: 2).
    idle_rule (Literal["figure2", "ns2"], default 'figure2'): When the idle period starts
        and how an arrival ends it: "figure2" (the queue empties; `m = idle / s`) or "ns2"
        (the link has sent the last packet; `int(m)` steps and one EWMA step with the empty
        queue, ns-2's `red.cc`).
    mean_pkt_size (int, default 500): Bytes per packet of the idle-time packet time s (and
        of automatic parameters).
    max_pkt_size (int, default 1500): The largest packet, bytes (byte mode's divisor).
    link_rate_bps (Optional[Union[float, str]], default None): Link rate for `s = 8
        mean_pkt_size / link_rate` (b/s or "10Mbps"; the simulator's link, else 10 Mb/s).
    idle_pkt_time (Optional[Union[float, str]], default None): `s` given directly (seconds
        or "0.4ms"), overriding the link-rate rule.
    seed (Optional[int], default None): Seed of the marking decisions' random stream.
    """

    def __init__(
        self,
        *,
        min_th: float = 5.0,
        max_th: float = 15.0,
        w_q: float = 0.002,
        max_p: float = 0.02,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        gentle: bool = False,
        ecn: bool = False,
        byte_mode: bool = False,
        queue_in_bytes: bool = False,
        mark_method: Literal["uniform", "geometric", "ns2_wait"] = "uniform",
        count_mode: Literal["text", "figure2"] = "text",
        efficient: bool = False,
        drop_front: bool = False,
        min_backlog: int = 0,
        idle_rule: Literal["figure2", "ns2"] = "figure2",
        mean_pkt_size: int = 500,
        max_pkt_size: int = 1500,
        link_rate_bps: Optional[Union[float, str]] = None,
        idle_pkt_time: Optional[Union[float, str]] = None,
        seed: Optional[int] = None,
    ) -> None: ...

class AdaptiveRed(Queue):
    """Adaptive RED (Floyd, Gummadi & Shenker 2001, Fig. 10): RED in gentle mode whose max_p
    moves by AIMD every `interval`. RED's keys (initial max_p 0.1, gentle on); `min_th`,
    `max_th`, `w_q` left out (or None) are set automatically from the link rate (Sections
    4.3, 6): w_q = 1 - exp(-1/C), min_th = max(5, target_delay C / 2), max_th = 3 min_th.

    Keyword arguments (the keys of a scenario's ``queue = { type = "ared", ... }``):

    min_th (Optional[float], default None): Minimum threshold (None: automatic).
    max_th (Optional[float], default None): Maximum threshold (None: 3 min_th).
    w_q (Optional[float], default None): Weight of the average (None: 1 - exp(-1/C)).
    max_p (float, default 0.1): max_p, the largest p_b between the thresholds, (0, 1] (for
        the adaptive variants its initial value): Floyd & Jacobson's 1/50.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`);
        always enforced.
    limit_bytes (Optional[int], default None): Buffer in bytes.
    gentle (bool, default True): Gentle mode: p_b from max_p to 1 between max_th and 2
        max_th.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them on early
        decisions (forced decisions and a full buffer always drop).
    byte_mode (bool, default False): Byte mode: p_b scaled by size / max_pkt_size (Section
        IV).
    queue_in_bytes (bool, default False): Queue, average and thresholds measured in bytes.
    mark_method (Literal["uniform", "geometric", "ns2_wait"], default 'uniform'): How p_b
        becomes p_a: "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
    count_mode (Literal["text", "figure2"], default 'text'): What `count` counts: "text"
        (Section VII) or "figure2" (Fig. 2 literally).
    efficient (bool, default False): Fig. 17's efficient variant: one random number per
        mark.
    drop_front (bool, default False): On overflow drop the head of the queue instead of the
        arrival.
    min_backlog (int, default 0): No drop decision while fewer packets wait (Fig. 2: 0; ns-2
        and ns-3: 2).
    idle_rule (Literal["figure2", "ns2"], default 'figure2'): When the idle period starts
        and how an arrival ends it: "figure2" (the queue empties; `m = idle / s`) or "ns2"
        (the link has sent the last packet; `int(m)` steps and one EWMA step with the empty
        queue, ns-2's `red.cc`).
    mean_pkt_size (int, default 500): Bytes per packet of the idle-time packet time s (and
        of automatic parameters).
    max_pkt_size (int, default 1500): The largest packet, bytes (byte mode's divisor).
    link_rate_bps (Optional[Union[float, str]], default None): Link rate for `s = 8
        mean_pkt_size / link_rate` (b/s or "10Mbps"; the simulator's link, else 10 Mb/s).
    idle_pkt_time (Optional[Union[float, str]], default None): `s` given directly (seconds
        or "0.4ms"), overriding the link-rate rule.
    seed (Optional[int], default None): Seed of the marking decisions' random stream.
    interval (Union[float, str], default 0.5): Adaptation interval (0.5 s; seconds or
        "500ms").
    target_delay (Union[float, str], default 0.005): delay_target of the automatic min_th (5
        ms).
    alpha (Optional[float], default None): Additive increase; None: min(0.01, max_p/4) at
        each step.
    beta (float, default 0.9): Multiplicative decrease (0.9).
    max_p_min (float, default 0.01): Lower bound of max_p (0.01).
    max_p_max (float, default 0.5): Upper bound of max_p (0.5).
    adapt_rule (Literal["figure10", "ns2"], default 'figure10'): When and within which
        bounds max_p moves: "figure10" (every `interval` boundary, kept in [max_p_min,
        max_p_max]) or "ns2" (at an arrival once `interval` has passed since max_p last
        moved, unclamped steps, the gentle ramp from the initial max_p: ns-2's `red.cc`).
    """

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: Optional[float] = None,
        max_p: float = 0.1,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        gentle: bool = True,
        ecn: bool = False,
        byte_mode: bool = False,
        queue_in_bytes: bool = False,
        mark_method: Literal["uniform", "geometric", "ns2_wait"] = "uniform",
        count_mode: Literal["text", "figure2"] = "text",
        efficient: bool = False,
        drop_front: bool = False,
        min_backlog: int = 0,
        idle_rule: Literal["figure2", "ns2"] = "figure2",
        mean_pkt_size: int = 500,
        max_pkt_size: int = 1500,
        link_rate_bps: Optional[Union[float, str]] = None,
        idle_pkt_time: Optional[Union[float, str]] = None,
        seed: Optional[int] = None,
        interval: Union[float, str] = 0.5,
        target_delay: Union[float, str] = 0.005,
        alpha: Optional[float] = None,
        beta: float = 0.9,
        max_p_min: float = 0.01,
        max_p_max: float = 0.5,
        adapt_rule: Literal["figure10", "ns2"] = "figure10",
    ) -> None: ...

class FengAdaptiveRed(Queue):
    """Feng et al.'s original Adaptive RED (1997, 1999): max_p divided by `feng_alpha` when avg
    falls below min_th, multiplied by `feng_beta` when it rises above max_th. RED's keys and
    defaults otherwise.

    Keyword arguments (the keys of a scenario's ``queue = { type = "feng_ared", ... }``):

    min_th (float, default 5.0): Minimum threshold of the average.
    max_th (float, default 15.0): Maximum threshold of the average.
    w_q (float, default 0.002): Weight of the average, (0, 1].
    max_p (float, default 0.02): max_p, the largest p_b between the thresholds, (0, 1] (for
        the adaptive variants its initial value): Floyd & Jacobson's 1/50.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`);
        always enforced.
    limit_bytes (Optional[int], default None): Buffer in bytes.
    gentle (bool, default False): Gentle mode: p_b from max_p to 1 between max_th and 2
        max_th.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them on early
        decisions (forced decisions and a full buffer always drop).
    byte_mode (bool, default False): Byte mode: p_b scaled by size / max_pkt_size (Section
        IV).
    queue_in_bytes (bool, default False): Queue, average and thresholds measured in bytes.
    mark_method (Literal["uniform", "geometric", "ns2_wait"], default 'uniform'): How p_b
        becomes p_a: "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
    count_mode (Literal["text", "figure2"], default 'text'): What `count` counts: "text"
        (Section VII) or "figure2" (Fig. 2 literally).
    efficient (bool, default False): Fig. 17's efficient variant: one random number per
        mark.
    drop_front (bool, default False): On overflow drop the head of the queue instead of the
        arrival.
    min_backlog (int, default 0): No drop decision while fewer packets wait (Fig. 2: 0; ns-2
        and ns-3: 2).
    idle_rule (Literal["figure2", "ns2"], default 'figure2'): When the idle period starts
        and how an arrival ends it: "figure2" (the queue empties; `m = idle / s`) or "ns2"
        (the link has sent the last packet; `int(m)` steps and one EWMA step with the empty
        queue, ns-2's `red.cc`).
    mean_pkt_size (int, default 500): Bytes per packet of the idle-time packet time s (and
        of automatic parameters).
    max_pkt_size (int, default 1500): The largest packet, bytes (byte mode's divisor).
    link_rate_bps (Optional[Union[float, str]], default None): Link rate for `s = 8
        mean_pkt_size / link_rate` (b/s or "10Mbps"; the simulator's link, else 10 Mb/s).
    idle_pkt_time (Optional[Union[float, str]], default None): `s` given directly (seconds
        or "0.4ms"), overriding the link-rate rule.
    seed (Optional[int], default None): Seed of the marking decisions' random stream.
    feng_alpha (float, default 3.0): Divisor of max_p when avg falls below min_th (3), > 1.
    feng_beta (float, default 2.0): Factor of max_p when avg rises above max_th (2), > 1.
    """

    def __init__(
        self,
        *,
        min_th: float = 5.0,
        max_th: float = 15.0,
        w_q: float = 0.002,
        max_p: float = 0.02,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        gentle: bool = False,
        ecn: bool = False,
        byte_mode: bool = False,
        queue_in_bytes: bool = False,
        mark_method: Literal["uniform", "geometric", "ns2_wait"] = "uniform",
        count_mode: Literal["text", "figure2"] = "text",
        efficient: bool = False,
        drop_front: bool = False,
        min_backlog: int = 0,
        idle_rule: Literal["figure2", "ns2"] = "figure2",
        mean_pkt_size: int = 500,
        max_pkt_size: int = 1500,
        link_rate_bps: Optional[Union[float, str]] = None,
        idle_pkt_time: Optional[Union[float, str]] = None,
        seed: Optional[int] = None,
        feng_alpha: float = 3.0,
        feng_beta: float = 2.0,
    ) -> None: ...

class Fred(Queue):
    """FRED, Flow RED (Lin & Morris 1997, Section 4.5), with Section 6's "two packet buffer"
    many-flows extension and byte mode. Defaults from Section 4.5: w_q 0.002, max_p 0.02,
    min_q 2, min_th = limit / 4, max_th = 2 min_th.

    Keyword arguments (the keys of a scenario's ``queue = { type = "fred", ... }``):

    min_th (Optional[float], default None): Minimum threshold (None: the buffer / 4, the
        buffer term of MIN(buffer/4, RTT)).
    max_th (Optional[float], default None): Maximum threshold (None: 2 min_th).
    w_q (float, default 0.002): Weight of the average, (0, 1].
    max_p (float, default 0.02): max_p, (0, 1].
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    min_q (float, default 2.0): minq: packets every flow may buffer without loss while avg <
        max_th (2 for small buffers, 4 for large ones, says Section 4.5).
    many_flows (bool, default False): Section 6's "two packet buffer" many-flows extension.
    byte_mode (bool, default False): Everything in bytes, the constants times `max_pkt_size`
        (end of Section 6).
    mean_pkt_size (int, default 500): Bytes per packet of the idle-time packet time s.
    max_pkt_size (int, default 1500): MaximumPacketSize, bytes.
    link_rate_bps (Optional[Union[float, str]], default None): Link rate for s (b/s or
        "10Mbps"; the simulator's link, else 10 Mb/s).
    idle_pkt_time (Optional[Union[float, str]], default None): s given directly (seconds or
        "0.4ms").
    seed (Optional[int], default None): Seed of the random drops.
    """

    def __init__(
        self,
        *,
        min_th: Optional[float] = None,
        max_th: Optional[float] = None,
        w_q: float = 0.002,
        max_p: float = 0.02,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        min_q: float = 2.0,
        many_flows: bool = False,
        byte_mode: bool = False,
        mean_pkt_size: int = 500,
        max_pkt_size: int = 1500,
        link_rate_bps: Optional[Union[float, str]] = None,
        idle_pkt_time: Optional[Union[float, str]] = None,
        seed: Optional[int] = None,
    ) -> None: ...

class CoDel(Queue):
    """CoDel, Controlled Delay (RFC 8289): decides at dequeue on the time the head packet
    waited. A packet limit (Linux's 1000) and the CoDel keys.

    Keyword arguments (the keys of a scenario's ``queue = { type = "codel", ... }``):

    limit (int, default 1000): Buffer, packets (arrivals beyond it are overflow drops), 1 ..
        2^32 - 1.
    target (Union[float, str], default 0.005): TARGET, the acceptable standing queue delay
        (5 ms), > 0.
    interval (Union[float, str], default 0.1): INTERVAL, the window the minimum sojourn time
        must stay above target before dropping starts, and the control law's base (100 ms),
        > 0.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them.
    ce_threshold (Optional[Union[float, str]], default None): Mark ECN-capable packets whose
        sojourn time exceeds this (Linux's; off when absent), >= 0.
    maxpacket (int, default 1500): maxpacket, bytes: no drop while at most this many bytes
        are left queued (the MTU, 1500), >= 1.
    """

    def __init__(
        self,
        *,
        limit: int = 1000,
        target: Union[float, str] = 0.005,
        interval: Union[float, str] = 0.1,
        ecn: bool = False,
        ce_threshold: Optional[Union[float, str]] = None,
        maxpacket: int = 1500,
    ) -> None: ...

class FqCoDel(Queue):
    """FQ-CoDel (RFC 8290): flows hashed into `flows` queues served by deficit round robin, new
    flows first, each queue managed by CoDel. RFC 8290 Section 5.2's defaults, Linux's where
    the RFC has none.

    Keyword arguments (the keys of a scenario's ``queue = { type = "fq_codel", ... }``):

    limit (int, default 10240): Packets held in all (10240), 1 .. 2^32 - 1.
    flows (int, default 1024): Flow queues, hash buckets (1024), 1 .. 65536.
    quantum (int, default 1514): DRR quantum, bytes per round (1514).
    memory_limit (int, default 33554432): Bytes held in all (32 MB = 33554432).
    drop_batch_size (int, default 64): Packets dropped at most from the head of the fattest
        flow per overflow, stopping once half its bytes are gone (64).
    target (Union[float, str], default 0.005): TARGET, the acceptable standing queue delay
        (5 ms), > 0.
    interval (Union[float, str], default 0.1): INTERVAL, the window the minimum sojourn time
        must stay above target before dropping starts, and the control law's base (100 ms),
        > 0.
    ecn (bool, default True): Mark ECN-capable packets instead of dropping them.
    ce_threshold (Optional[Union[float, str]], default None): Mark ECN-capable packets whose
        sojourn time exceeds this (Linux's; off when absent), >= 0.
    maxpacket (int, default 1500): maxpacket, bytes: no drop while at most this many bytes
        are left queued (the MTU, 1500), >= 1.
    seed (Optional[int], default None): Seed of the flow hash's salt.
    """

    def __init__(
        self,
        *,
        limit: int = 10240,
        flows: int = 1024,
        quantum: int = 1514,
        memory_limit: int = 33554432,
        drop_batch_size: int = 64,
        target: Union[float, str] = 0.005,
        interval: Union[float, str] = 0.1,
        ecn: bool = True,
        ce_threshold: Optional[Union[float, str]] = None,
        maxpacket: int = 1500,
        seed: Optional[int] = None,
    ) -> None: ...

class FqPie(Queue):
    """FQ-PIE (Linux's `sch_fq_pie`; Ramakrishnan, Bose & Tahiliani 2020): FQ-CoDel's flow
    queues and deficit round robin, each flow queue managed by PIE (RFC 8033) with its own
    drop probability, the delay from timestamps. Linux's defaults (target 15 ms, tupdate 15
    ms, alpha 0.125, beta 1.25, ECN off, marking up to a 10% probability). Times are seconds
    or strings with a unit.

    Keyword arguments (the keys of a scenario's ``queue = { type = "fq_pie", ... }``):

    limit (int, default 10240): Packets held in all (10240); an arrival beyond is dropped.
    flows (int, default 1024): Flow queues, hash buckets (1024), 1 .. 65536.
    quantum (int, default 1514): DRR quantum, bytes per round (1514).
    memory_limit (int, default 33554432): Bytes held in all (32 MB = 33554432); an arrival
        beyond is dropped.
    target (Union[float, str], default 0.015): PIE's QDELAY_REF (15 ms), > 0.
    tupdate (Union[float, str], default 0.015): PIE's T_UPDATE (15 ms), > 0.
    alpha (float, default 0.125): PIE's alpha, 1/s (0.125).
    beta (float, default 1.25): PIE's beta, 1/s (1.25).
    max_burst (Union[float, str], default 0.15): PIE's MAX_BURST per flow (150 ms).
    ecn (bool, default False): Mark ECN-capable packets instead of an early drop.
    mark_ecn_th (float, default 0.1): ECN-capable packets are dropped, not marked, above
        this probability of their flow (Linux's `ecn_prob`, 10%), (0, 1].
    mean_pkt_size (int, default 1500): No early drop while a flow holds at most two of these
        (bytes; Linux: the MTU).
    derandomize (bool, default True): RFC 8033 Section 5.1's derandomization.
    seed (Optional[int], default None): Seed of the flow hash's salt and of the flows'
        random streams.
    """

    def __init__(
        self,
        *,
        limit: int = 10240,
        flows: int = 1024,
        quantum: int = 1514,
        memory_limit: int = 33554432,
        target: Union[float, str] = 0.015,
        tupdate: Union[float, str] = 0.015,
        alpha: float = 0.125,
        beta: float = 1.25,
        max_burst: Union[float, str] = 0.15,
        ecn: bool = False,
        mark_ecn_th: float = 0.1,
        mean_pkt_size: int = 1500,
        derandomize: bool = True,
        seed: Optional[int] = None,
    ) -> None: ...

class Pie(Queue):
    """PIE (RFC 8033): a drop probability moved every `tupdate` from the queueing delay.
    Defaults: the RFC's (target 15 ms, tupdate 15 ms, alpha 0.125, beta 1.25, max_burst 150
    ms, DQ_THRESHOLD 16 KB, the departure-rate estimator, derandomization on). Times are
    seconds or strings with a unit ("15ms").

    Keyword arguments (the keys of a scenario's ``queue = { type = "pie", ... }``):

    target (Union[float, str], default 0.015): QDELAY_REF, the delay target (15 ms), > 0.
    tupdate (Union[float, str], default 0.015): T_UPDATE, the period of the probability
        update (15 ms), > 0.
    alpha (float, default 0.125): alpha, 1/s (0.125), > 0.
    beta (float, default 1.25): beta, 1/s (1.25), >= 0.
    max_burst (Union[float, str], default 0.15): MAX_BURST, the burst allowance (150 ms).
    limit (Optional[int], default 1000): TAIL_DROP, packets (the RFC gives none; Linux's
        default 1000).
    limit_bytes (Optional[int], default None): TAIL_DROP in bytes.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them while the
        probability is at most `mark_ecn_th`.
    mark_ecn_th (float, default 0.1): ECN-capable packets are dropped, not marked, above
        this probability (0.1), (0, 1].
    delay_mode (Literal["rate_estimator", "timestamp"], default 'rate_estimator'):
        "rate_estimator" (Section 4.3) or "timestamp" (the sojourn time of the departing
        packet, Linux's default).
    dq_threshold (int, default 16384): DQ_THRESHOLD, bytes a rate measurement spans (16384),
        1 ..= 65536.
    mean_pkt_size (int, default 1500): MEAN_PKTSIZE, bytes: no early drop while at most two
        of them wait (1500).
    derandomize (bool, default True): Section 5.1's derandomization (accu_prob: no drop
        below 0.85, always at 8.5).
    burst_reset (Literal["rfc", "quiet"], default 'rfc'): When the burst allowance comes
        back: "rfc" (Section 4.4, Linux) or "quiet" (ns-3 3.37: after 1.5 s of quiet
        updates, the probability held at 0 meanwhile).
    seed (Optional[int], default None): Seed of the drop decisions' random stream.
    """

    def __init__(
        self,
        *,
        target: Union[float, str] = 0.015,
        tupdate: Union[float, str] = 0.015,
        alpha: float = 0.125,
        beta: float = 1.25,
        max_burst: Union[float, str] = 0.15,
        limit: Optional[int] = 1000,
        limit_bytes: Optional[int] = None,
        ecn: bool = False,
        mark_ecn_th: float = 0.1,
        delay_mode: Literal["rate_estimator", "timestamp"] = "rate_estimator",
        dq_threshold: int = 16384,
        mean_pkt_size: int = 1500,
        derandomize: bool = True,
        burst_reset: Literal["rfc", "quiet"] = "rfc",
        seed: Optional[int] = None,
    ) -> None: ...

class Blue(Queue):
    """BLUE (Feng, Kandlur, Saha & Shin 2002): a marking probability p_m raised by `d1` on
    buffer overflow and lowered by `d2` when the link goes idle, at most once per
    `freeze_time`. Defaults: one of the paper's configurations (d1 0.02, d2 0.002,
    freeze_time 100 ms).

    Keyword arguments (the keys of a scenario's ``queue = { type = "blue", ... }``):

    d1 (float, default 0.02): Increase of p_m on a loss event, (0, 1].
    d2 (float, default 0.002): Decrease of p_m on a link idle event, (0, 1].
    freeze_time (Union[float, str], default 0.1): The least time between two changes of p_m
        (seconds or "100ms").
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    threshold (Optional[int], default None): L, packets: an arrival that would make more
        than L wait is a loss event too.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them.
    seed (Optional[int], default None): Seed of the drop decisions' random stream.
    """

    def __init__(
        self,
        *,
        d1: float = 0.02,
        d2: float = 0.002,
        freeze_time: Union[float, str] = 0.1,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        threshold: Optional[int] = None,
        ecn: bool = False,
        seed: Optional[int] = None,
    ) -> None: ...

class Pi(Queue):
    """The PI controller (Hollot, Misra, Towsley & Gong 2001, Section V): p(kT) = p((k-1)T) + a
    (q(kT) - q_ref) - b (q((k-1)T) - q_ref). Defaults: the paper's example (a = 1.822e-5, b
    = 1.816e-5, 160 Hz, q_ref = 200 packets); `aqmlab.analysis.pi_design` computes a and b
    for other networks.

    Keyword arguments (the keys of a scenario's ``queue = { type = "pi", ... }``):

    a (float, default 1.822e-05): Gain on the current error, 1/packet, > 0.
    b (float, default 1.816e-05): Gain on the previous error, 1/packet, >= 0.
    sample_freq (float, default 160.0): Sampling frequency 1/T, Hz, (0, 1e9].
    q_ref (float, default 200.0): The queue regulated to, packets.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them.
    seed (Optional[int], default None): Seed of the drop decisions' random stream.
    """

    def __init__(
        self,
        *,
        a: float = 1.822e-05,
        b: float = 1.816e-05,
        sample_freq: float = 160.0,
        q_ref: float = 200.0,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        ecn: bool = False,
        seed: Optional[int] = None,
    ) -> None: ...

class Choke(Queue):
    """CHOKe (Pan, Prabhakar & Psounis 2000, Section II): RED, plus a random match: above
    min_th each arrival is compared with packets drawn from the queue and both are dropped
    if they belong to the same flow. RED's keys and defaults.

    Keyword arguments (the keys of a scenario's ``queue = { type = "choke", ... }``):

    min_th (float, default 5.0): Minimum threshold of the average.
    max_th (float, default 15.0): Maximum threshold of the average.
    w_q (float, default 0.002): Weight of the average, (0, 1].
    max_p (float, default 0.02): max_p, the largest p_b between the thresholds, (0, 1] (for
        the adaptive variants its initial value): Floyd & Jacobson's 1/50.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`);
        always enforced.
    limit_bytes (Optional[int], default None): Buffer in bytes.
    gentle (bool, default False): Gentle mode: p_b from max_p to 1 between max_th and 2
        max_th.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them on early
        decisions (forced decisions and a full buffer always drop).
    byte_mode (bool, default False): Byte mode: p_b scaled by size / max_pkt_size (Section
        IV).
    queue_in_bytes (bool, default False): Queue, average and thresholds measured in bytes.
    mark_method (Literal["uniform", "geometric", "ns2_wait"], default 'uniform'): How p_b
        becomes p_a: "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
    count_mode (Literal["text", "figure2"], default 'text'): What `count` counts: "text"
        (Section VII) or "figure2" (Fig. 2 literally).
    efficient (bool, default False): Fig. 17's efficient variant: one random number per
        mark.
    drop_front (bool, default False): On overflow drop the head of the queue instead of the
        arrival.
    min_backlog (int, default 0): No drop decision while fewer packets wait (Fig. 2: 0; ns-2
        and ns-3: 2).
    idle_rule (Literal["figure2", "ns2"], default 'figure2'): When the idle period starts
        and how an arrival ends it: "figure2" (the queue empties; `m = idle / s`) or "ns2"
        (the link has sent the last packet; `int(m)` steps and one EWMA step with the empty
        queue, ns-2's `red.cc`).
    mean_pkt_size (int, default 500): Bytes per packet of the idle-time packet time s (and
        of automatic parameters).
    max_pkt_size (int, default 1500): The largest packet, bytes (byte mode's divisor).
    link_rate_bps (Optional[Union[float, str]], default None): Link rate for `s = 8
        mean_pkt_size / link_rate` (b/s or "10Mbps"; the simulator's link, else 10 Mb/s).
    idle_pkt_time (Optional[Union[float, str]], default None): `s` given directly (seconds
        or "0.4ms"), overriding the link-rate rule.
    seed (Optional[int], default None): Seed of the marking decisions' random stream.
    candidates (int, default 1): m, drop candidates drawn per arrival (1; the paper's
        extension uses more), 1 ..= 64.
    """

    def __init__(
        self,
        *,
        min_th: float = 5.0,
        max_th: float = 15.0,
        w_q: float = 0.002,
        max_p: float = 0.02,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        gentle: bool = False,
        ecn: bool = False,
        byte_mode: bool = False,
        queue_in_bytes: bool = False,
        mark_method: Literal["uniform", "geometric", "ns2_wait"] = "uniform",
        count_mode: Literal["text", "figure2"] = "text",
        efficient: bool = False,
        drop_front: bool = False,
        min_backlog: int = 0,
        idle_rule: Literal["figure2", "ns2"] = "figure2",
        mean_pkt_size: int = 500,
        max_pkt_size: int = 1500,
        link_rate_bps: Optional[Union[float, str]] = None,
        idle_pkt_time: Optional[Union[float, str]] = None,
        seed: Optional[int] = None,
        candidates: int = 1,
    ) -> None: ...

class DualPi2(Queue):
    """DualPI2 (RFC 9332): an L4S queue (ECT(1) and CE packets) and a Classic queue coupled by
    one PI controller on the Classic delay; Classic drop/mark probability p'^2, L4S marking
    max(step, min(k p', 1)). Defaults: Appendix A's (and Linux's) target 15 ms, tupdate 16
    ms, alpha 0.16, beta 3.2, k = 2, step 1 ms; Linux's classic protection of 10% and drop
    on overload.

    Keyword arguments (the keys of a scenario's ``queue = { type = "dualpi2", ... }``):

    target (Union[float, str], default 0.015): Classic queue delay target (15 ms), > 0.
    tupdate (Union[float, str], default 0.016): Period of the p' update (16 ms), > 0.
    alpha (float, default 0.16): PI gain alpha, 1/s (0.16), > 0.
    beta (float, default 3.2): PI gain beta, 1/s (3.2), >= 0.
    k (float, default 2.0): The coupling factor k (2), [1, 64].
    step_thresh (Union[float, str], default 0.001): The native L4S AQM: mark an L packet
        that waited at least this (1 ms).
    c_protection (float, default 0.1): Classic's share of a saturated line (the WRR weight,
        0.1), (0, 1).
    drop_on_overload (bool, default True): Drop L packets with p_C once p_C > 1/k^2.
    ecn (bool, default True): Mark ECN-capable Classic packets instead of dropping them.
    limit (Optional[int], default 10000): Packets, both queues (Linux's default 10000).
    limit_bytes (Optional[int], default None): Bytes, both queues.
    mtu (int, default 1500): Bytes: no PI-derived drop or mark while fewer than 2 mtu remain
        queued (Linux's guard); 0 turns it off. [0, 65536].
    scheduler (Literal["wrr", "tsfifo"], default 'wrr'): "wrr" (byte WRR with
        `c_protection`, Linux's) or "tsfifo" (RFC 9332 Appendix A.1's time-shifted FIFO).
    tshift (Union[float, str], default 0.04): The time-shifted FIFO's bias towards L (40
        ms), [0, 10] s.
    seed (Optional[int], default None): Seed of the marking and dropping draws.
    """

    def __init__(
        self,
        *,
        target: Union[float, str] = 0.015,
        tupdate: Union[float, str] = 0.016,
        alpha: float = 0.16,
        beta: float = 3.2,
        k: float = 2.0,
        step_thresh: Union[float, str] = 0.001,
        c_protection: float = 0.1,
        drop_on_overload: bool = True,
        ecn: bool = True,
        limit: Optional[int] = 10000,
        limit_bytes: Optional[int] = None,
        mtu: int = 1500,
        scheduler: Literal["wrr", "tsfifo"] = "wrr",
        tshift: Union[float, str] = 0.04,
        seed: Optional[int] = None,
    ) -> None: ...

class Sfb(Queue):
    """SFB, Stochastic Fair BLUE (Feng, Kandlur, Saha & Shin 2002, Section V; Linux `sch_sfb`):
    each flow hashes to a bin per level; a bin keeps a BLUE probability, and a packet is
    marked or dropped with the least of its bins'; a flow whose bins are all at 1 is rate-
    limited. Defaults: Linux's (8 levels of 16 bins, bin_size 20, max 25, increment 0.001,
    decrement 1/6000, penalty 10 packets/s with a burst of 20).

    Keyword arguments (the keys of a scenario's ``queue = { type = "sfb", ... }``):

    levels (int, default 8): L, independent hash levels, [1, 16].
    bins (int, default 16): N, bins per level, [2, 65536].
    bin_size (int, default 20): Packets: a bin holding this many raises its p_m on an
        arrival, >= 1.
    max (int, default 25): Packets: an arrival whose bins all hold this many is dropped, >=
        1.
    increment (float, default 0.001): p_m's step up, (0, 1].
    decrement (float, default 0.00016666666666666666): p_m's step down, (0, 1].
    penalty_rate (float, default 10.0): Packets per second a flow with p_min = 1 may still
        send, >= 0.
    penalty_burst (int, default 20): Burst of that rate limiter, packets.
    limit (Optional[int], default None): Buffer in packets (required unless `limit_bytes`).
    limit_bytes (Optional[int], default None): Buffer in bytes.
    ecn (bool, default False): Mark ECN-capable packets instead of dropping them.
    seed (Optional[int], default None): Seed of the hash salt and of the draws.
    """

    def __init__(
        self,
        *,
        levels: int = 8,
        bins: int = 16,
        bin_size: int = 20,
        max: int = 25,
        increment: float = 0.001,
        decrement: float = 0.00016666666666666666,
        penalty_rate: float = 10.0,
        penalty_burst: int = 20,
        limit: Optional[int] = None,
        limit_bytes: Optional[int] = None,
        ecn: bool = False,
        seed: Optional[int] = None,
    ) -> None: ...

class Cobalt(Queue):
    """COBALT, CoDel and BLUE side by side at dequeue (the AQM of Linux's CAKE, `sch_cake.c`):
    CoDel's control law on the sojourn time, BLUE's drop probability raised on overflow and
    lowered when the queue empties. One FIFO of `limit` packets (ns-3's CobaltQueueDisc,
    1000).

    Keyword arguments (the keys of a scenario's ``queue = { type = "cobalt", ... }``):

    limit (int, default 1000): Buffer, packets (arrivals beyond it are overflow drops), 1 ..
        2^32 - 1.
    target (Union[float, str], default 0.005): CoDel's target, the acceptable standing queue
        delay (5 ms), > 0.
    interval (Union[float, str], default 0.1): CoDel's interval: the first signal's delay
        and the control law's base (100 ms), > 0.
    ecn (bool, default True): Mark ECN-capable packets instead of CoDel's drops (BLUE's
        drops stay drops).
    p_inc (float, default 0.00390625): BLUE's increase of p_drop on an overflow or a sojourn
        above blue_timeout (1/256), (0, 1].
    p_dec (float, default 0.000244140625): BLUE's decrease of p_drop when a dequeue finds
        the queue empty (1/4096), (0, 1].
    blue_timeout (Union[float, str], default 0.4): A packet waiting longer than this raises
        p_drop as an overflow does (400 ms), > 0.
    seed (Optional[int], default None): Seed of BLUE's random stream.
    """

    def __init__(
        self,
        *,
        limit: int = 1000,
        target: Union[float, str] = 0.005,
        interval: Union[float, str] = 0.1,
        ecn: bool = True,
        p_inc: float = 0.00390625,
        p_dec: float = 0.000244140625,
        blue_timeout: Union[float, str] = 0.4,
        seed: Optional[int] = None,
    ) -> None: ...

class FqCobalt(Queue):
    """FQ-COBALT (CAKE's flow queueing without its shaper and tins; ns-3's FqCobaltQueueDisc):
    flows hashed into `flows` queues served by deficit round robin, new flows first, each
    queue managed by COBALT. FQ-CoDel's scheduler defaults.

    Keyword arguments (the keys of a scenario's ``queue = { type = "fq_cobalt", ... }``):

    limit (int, default 10240): Packets held in all (10240), 1 .. 2^32 - 1.
    flows (int, default 1024): Flow queues, hash buckets (1024), 1 .. 65536.
    quantum (int, default 1514): DRR quantum, bytes per round (1514).
    memory_limit (int, default 33554432): Bytes held in all (32 MB = 33554432).
    drop_batch_size (int, default 64): Packets dropped at most from the head of the fattest
        flow per overflow, stopping once half its bytes are gone (64).
    target (Union[float, str], default 0.005): CoDel's target, the acceptable standing queue
        delay (5 ms), > 0.
    interval (Union[float, str], default 0.1): CoDel's interval: the first signal's delay
        and the control law's base (100 ms), > 0.
    ecn (bool, default True): Mark ECN-capable packets instead of CoDel's drops (BLUE's
        drops stay drops).
    p_inc (float, default 0.00390625): BLUE's increase of p_drop on an overflow or a sojourn
        above blue_timeout (1/256), (0, 1].
    p_dec (float, default 0.000244140625): BLUE's decrease of p_drop when a dequeue finds
        the queue empty (1/4096), (0, 1].
    blue_timeout (Union[float, str], default 0.4): A packet waiting longer than this raises
        p_drop as an overflow does (400 ms), > 0.
    seed (Optional[int], default None): Seed of the flow hash's salt and of the flows'
        random streams.
    """

    def __init__(
        self,
        *,
        limit: int = 10240,
        flows: int = 1024,
        quantum: int = 1514,
        memory_limit: int = 33554432,
        drop_batch_size: int = 64,
        target: Union[float, str] = 0.005,
        interval: Union[float, str] = 0.1,
        ecn: bool = True,
        p_inc: float = 0.00390625,
        p_dec: float = 0.000244140625,
        blue_timeout: Union[float, str] = 0.4,
        seed: Optional[int] = None,
    ) -> None: ...
