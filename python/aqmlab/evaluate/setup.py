"""The common setup of ``aqmlab evaluate``'s scenarios: RFC 7928 Section 3's dumbbell
with the numbers aqmlab chooses (rates, delays, buffer, timing), the numbers of single
scenarios, and the flow classes the metrics group by. :mod:`.scenarios` builds the
scenarios from them; ``docs/evaluate.md`` explains each for a reader.
"""

from __future__ import annotations

import math

# --- The common setup (RFC 7928 Section 3, with the numbers we choose) -------------

#: The bottleneck direction every scenario names in ``bottleneck``.
BOTTLENECK = "l->r"
#: Bottleneck rate, b/s (Section 3.1 leaves it open; 10 Mb/s is the rate of the RFC's
#: examples and keeps a 300 s run short).
BOTTLENECK_RATE = 10e6
#: Bottleneck one-way delay, s.
BOTTLENECK_DELAY = 0.010
#: Access links, b/s: ten times the bottleneck so that they are never the bottleneck.
ACCESS_RATE = 100e6
#: Sender-side and receiver-side access one-way delays, s: base RTT 2 x (20 + 10 + 20).
SENDER_DELAY = 0.020
RECEIVER_DELAY = 0.020
#: Base round-trip time, s (propagation only): 2 x (20 + 10 + 20) ms.
BASE_RTT = 2 * (SENDER_DELAY + BOTTLENECK_DELAY + RECEIVER_DELAY)
#: Access links' Drop Tail buffer, packets: large enough never to drop.
ACCESS_BUFFER = 1000
#: Data packet size on the wire, bytes (Section 3: MTU-sized packets).
PACKET_SIZE = 1500
#: Bandwidth-delay product, packets: 10 Mb/s x 100 ms / 1500 B = 83.3.
BDP = BOTTLENECK_RATE * BASE_RTT / (8 * PACKET_SIZE)
#: Bottleneck buffer, packets: 2 x BDP (Section 3.2 asks for a buffer that does not by
#: itself limit the AQM; twice the BDP is the common choice), also the reverse
#: direction's Drop Tail buffer.
BUFFER = round(2 * BDP)
#: TCP receiver window, packets: never the limit.
MAX_WINDOW = 10000
#: Initial windows, packets: IW10 (RFC 6928) unless a scenario asks for IW3 (RFC 3390,
#: the 5.1 scenarios).
IW10 = 10
IW3 = 3
#: Initial retransmission timeout, s: RFC 6298 Section 2.1's 1 s (the simulator's
#: default is ns-2's 3 s, which would make a lost first packet cost a 3 s start-up).
INITIAL_RTO = 1.0
#: Packet-preparation delay of every TCP sender, s: each packet leaves U[0, PREP_DELAY]
#: after its window allowed it, PREP_DELAY being the bottleneck's service time of one
#: data packet (1.2 ms), as Floyd and Jacobson (1992, "On traffic phase effects in
#: packet-switched gateways") add to break the phase effects of a deterministic
#: simulation: without it, two ACK-clocked flows through Drop Tail (or CoDel, whose
#: drops are not random either) share the link by the phase of their round-trip times,
#: not by their RTTs (scenario 6 gave the 80 ms flow a fifth of the 100 ms flow's
#: goodput, and the 150 ms flow four times it).
PREP_DELAY = PACKET_SIZE * 8 / BOTTLENECK_RATE
#: Flows start at uniform[0, START_SPREAD] s, each drawn from the flow's own stream.
START_SPREAD = 1.0

#: Duration and warm-up, s: full runs, and ``--quick``.
DURATION = 300.0
WARMUP = 30.0
QUICK_DURATION = 60.0
QUICK_WARMUP = 10.0

# --- Scenario-specific numbers ------------------------------------------------------

#: 5.1.2: the short transfer's size, packets, and its start after the warm-up, s.
SHORT_PACKETS = 100
SHORT_START_AFTER_WARMUP = 5.0
#: 5.3: UDP rates as fractions of the capacity (Section 5.3: below and above C).
UDP_LOW = 0.5
UDP_HIGH = 1.5
#: 5.4: LEDBAT's target delay, s, and gain (RFC 6817 Section 2.5: TARGET 100 ms, GAIN 1).
LEDBAT_TARGET = 0.100
LEDBAT_GAIN = 1.0
#: 6: the RTTs R of the second flow, ms (Section 6 asks for a range around the base
#: RTT; 5 ms .. 560 ms covers intra-datacentre to satellite), and the quick subset.
RTT_VALUES_MS = (5, 10, 20, 40, 80, 100, 150, 200, 300, 400, 560)
RTT_QUICK_MS = (10, 100, 400)
#: 6: the reference flow's RTT, s; bottleneck and receiver access delays, s, small so
#: that R = 5 ms is reachable (sender access = R/2 - 1.5 ms).
RTT_REF = 0.100
RTT_BOTTLENECK_DELAY = 0.001
RTT_RECEIVER_DELAY = 0.0005
#: 7.1: IW10 bursts: transfers of exactly 10 packets, Poisson arrivals per second.
BURST_PACKETS = 10
BURST_RATE = 2.0
#: 7.2: video frames: 7 packets back to back every 40 ms (25 frames/s, 2.1 Mb/s).
VIDEO_BATCH = 7
VIDEO_INTERVAL = 0.040
#: 7.3: web traffic: Poisson arrivals per second, Pareto sizes (mean packets, shape),
#: the connection pool's size.
WEB_RATE = 5.0
WEB_MEAN_PACKETS = 12
WEB_SHAPE = 1.2
WEB_POOL = 100
#: 9.1: VoIP-like CBR: 200-byte packets every 20 ms (80 kb/s).
VOIP_PACKET_SIZE = 200
VOIP_INTERVAL = 0.020
#: 8.2: target loss rates of the congestion levels (mild, medium, heavy); N follows
#: from the Mathis formula W = MATHIS_C / sqrt(p).
LOSS_MILD = 0.001
LOSS_MEDIUM = 0.005
LOSS_HEAVY = 0.01
MATHIS_C = 1.22
#: 8.2.6: the bottleneck rate between T/3 and 2T/3, b/s.
LOW_RATE = 5e6

#: Flow classes (the ``name`` of every flow), in the order the metrics list them.
CLASSES = (
    "bulk",
    "cubic",
    "udp",
    "ledbat",
    "short",
    "burst",
    "video",
    "web",
    "voip",
    "reverse",
    "ref",
    "rtt",
)
#: Classes of the long-lived flows whose data crosses the bottleneck: Jain's index and
#: the loss synchronisation are over these (9.2's reverse flows send the other way).
LONG_LIVED = ("bulk", "cubic", "ledbat", "ref", "rtt", "prague")
#: Classes of the scenarios beyond RFC 7928 (``l4s``), whose metrics alone list them.
EXTRA_CLASSES = ("prague",)


def congestion_flows(p: float) -> int:
    """N long-lived flows that make loss rate `p` on the bottleneck (Mathis et al.: a
    flow's window is 1.22 / sqrt(p) packets; N windows fill the BDP)."""
    return max(1, round(BDP / (MATHIS_C / math.sqrt(p))))


N_MILD = congestion_flows(LOSS_MILD)
N_MEDIUM = congestion_flows(LOSS_MEDIUM)
N_HEAVY = congestion_flows(LOSS_HEAVY)


def timing(quick: bool) -> tuple[float, float]:
    """(duration, warm-up), s."""
    return (QUICK_DURATION, QUICK_WARMUP) if quick else (DURATION, WARMUP)
