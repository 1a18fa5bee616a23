"""The reference scenarios of the peer benchmark (aqmlab vs ns-2 vs ns-3).

This module is the single source of truth: every number the three simulators
use comes from here. The harness (``benchmarks/peers/run``) writes one
parameter file per case (``Case.params()``, flat ``key value`` lines) that the
ns-2 Tcl script and the ns-3 program read, and builds the aqmlab scenario dict
(``Case.aqmlab_scenario()``, the simulator's TOML shape) from the same object.

Conventions (see docs/peers.md for the reasons):

* Dumbbell ``s_i -> r1 -> r2 -> k_i``: one source node and one sink node per
  "path"; the bottleneck is r1 -> r2.  Base RTT of path i (propagation only)
  ``rtt_i = rtt_min + (rtt_max - rtt_min) * i / (P - 1)``; the bottleneck delay
  is fixed, the two access links of the path get the same delay
  ``a_i = (rtt_i / 2 - bottleneck_delay) / 2`` so that
  ``2 * (a_i + bottleneck_delay + a_i) == rtt_i``.
* S1/S2: one flow per path.  S3 (10,000 flows): 100 paths, flows spread
  round-robin over them (per-flow nodes would give ns-2 a 20,000-node
  all-pairs routing table).
* Packets are ``packet_size`` bytes *on the wire* (IP packet, headers
  included): ns-2 with ``useHeaders_ false``, ns-3 with a TCP segment of
  packet_size - 40 bytes and no TCP options; ACKs are 40 bytes.
* Start times: ``random.Random(seed).uniform(start_lo, start_hi)`` drawn once
  per flow in flow order, here in Python, and handed to every simulator as an
  explicit list, so all three start the flows at the same instants.
* Measurement window: ``[duration / 2, duration]``.
* ``limit`` is ns-2's queue limit: its Drop Tail lets limit - 1 packets wait
  (the one on the wire counts), its RED lets limit wait; ns-3 is set up to
  match each (docs/peers.md, section 2).
"""

from __future__ import annotations

import dataclasses
import random

PACKET_SIZE = 1000  # bytes on the wire (IP packet)
ACK_SIZE = 40  # bytes on the wire
HEADER = 40  # IP + TCP header without options
MAX_WINDOW = 1000  # receiver window (packets); never the limit in S1/S2
INIT_WINDOW = 2  # ns-2 windowInit_ default, forced on ns-3 too
MIN_RTO = 0.2  # s, ns-2 minrto_ default
TCP_TICK = 0.01  # s, ns-2 tcpTick_ default (timer granularity)
INIT_RTO = 3.0  # s, ns-2 rtxcur_init_ default
#: the timer every simulator of a case is given, aqmlab included (ns-2's defaults)
TIMER = {"min_rto": MIN_RTO, "initial_rto": INIT_RTO, "tick": TCP_TICK}
LIMITED_TRANSMIT = 0  # RFC 3042 off in every simulator: ns-3 3.37's limited
# transmit without SACK collapses (see docs/peers.md)
NEWRENO_AS_NS2 = 1  # ns-3: restart RTO at fast retransmit, fast retransmit
# only if ack > recover, as ns-2 (docs/peers.md)
RED_SAMPLES = 1000  # RED's average is sampled this many times, evenly spaced
# over the measurement window (the queue is integrated exactly)

# The aqmlab cases that follow ns-3 3.37's rules (the "-nsmode" cases) run in aqmlab's
# `ns3` profile (`aqmlab profiles ns3`; docs/peers.md 6.2, 6.3 and
# docs/notes/2026-11-24-cubic-against-ns3.md). What a case gives every simulator wins over
# it: limited transmit off (LIMITED_TRANSMIT), no device queue (`limit` matches ns-2's
# meaning, docs/peers.md 2), and, as ns-3's NewRenoAsNs2 hook gives ns-3 (NEWRENO_AS_NS2;
# ns-3 3.37 alone keeps it running), the timer restarted at a fast retransmit.
NS3_PROFILE = "ns3"
# ns-3 3.37's TcpBbr::HighGain default (Startup's gains; Drain paces at its inverse)
NS3_BBR_HIGH_GAIN = 2.89

ARED = dict(interval=0.5, alpha=0.01, beta=0.9, top=0.5, bottom=0.01)

# The modern AQMs (the M cases), each at its specification's defaults (RFC 8289, 8290,
# 8033), set explicitly in both aqmlab and ns-3 (docs/peers.md 6.2):
MTU = 1500  # bytes: CoDel's maxpacket (no drop while fewer bytes wait), FQ's quantum
CODEL = dict(target=0.005, interval=0.100)
FQ = dict(flows=1024, quantum=MTU, drop_batch_size=64)
PIE = dict(target=0.015, tupdate=0.015, alpha=0.125, beta=1.25, max_burst=0.150)


def _rate_str(bps: float) -> str:
    for unit, div in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= div and bps % div == 0:
            return f"{int(bps // div)}{unit}"
    return f"{int(bps)}bps"


@dataclasses.dataclass
class Case:
    name: str
    flows: int
    paths: int
    bottleneck_rate: float  # b/s
    bottleneck_delay: float  # s
    access_rate: float  # b/s
    limit: int  # packets, counts the one in transmission
    queue: str  # droptail | red | ared | codel | fq_codel | pie
    min_th: float = 0.0
    max_th: float = 0.0
    w_q: float = 0.0
    max_p: float = 0.1
    gentle: bool = True
    duration: float = 100.0
    rtt_min: float = 0.100
    rtt_max: float = 0.160
    start_lo: float = 0.0
    start_hi: float = 1.0
    seed: int = 1
    packet_size: int = PACKET_SIZE
    max_window: int = MAX_WINDOW
    access_limit: int = 10000
    group: str = ""  # S1 / S2 / S3
    timeout: float = 3600.0  # s of wall time before the harness gives up
    quick: bool = False
    tcp: str = "newreno"  # newreno | cubic | bbr (BBR runs with SACK in every simulator)
    # aqmlab's RTO restart on partial ACKs: "impatient" (ns-2's) or "steady" (ns-3's)
    newreno_timer: str = "impatient"
    # aqmlab's behaviour profile: "rfc" (its defaults), "ns3" (ns-3 3.37's rules; the
    # "-nsmode" cases) or "ns2" (ns-2 at its defaults too: the "-ns2mode" cases)
    profile: str = "rfc"
    sims: tuple = ("aqmlab", "ns2", "ns3")  # the simulators that run the case

    # ------------------------------------------------------------------ derived
    def rtts(self) -> list[float]:
        p = self.paths
        if p == 1:
            return [self.rtt_min]
        return [self.rtt_min + (self.rtt_max - self.rtt_min) * i / (p - 1) for i in range(p)]

    def access_delays(self) -> list[float]:
        return [(r / 2 - self.bottleneck_delay) / 2 for r in self.rtts()]

    def flow_paths(self) -> list[int]:
        return [i % self.paths for i in range(self.flows)]

    def starts(self) -> list[float]:
        rng = random.Random(self.seed)
        return [rng.uniform(self.start_lo, self.start_hi) for _ in range(self.flows)]

    @property
    def t_measure(self) -> float:
        return self.duration / 2

    def with_(self, **kw) -> Case:
        return dataclasses.replace(self, **kw)

    # ------------------------------------------------------------ peer params
    def params(self) -> str:
        """Flat ``key value...`` lines read by ns2/dumbbell.tcl and ns3/dumbbell.cc."""
        lines = [
            f"name {self.name}",
            f"flows {self.flows}",
            f"paths {self.paths}",
            f"bottleneck_rate {self.bottleneck_rate:.0f}",
            f"bottleneck_delay {self.bottleneck_delay!r}",
            f"access_rate {self.access_rate:.0f}",
            f"access_limit {self.access_limit}",
            f"limit {self.limit}",
            f"queue {self.queue}",
            f"min_th {self.min_th!r}",
            f"max_th {self.max_th!r}",
            f"w_q {self.w_q!r}",
            f"max_p {self.max_p!r}",
            f"gentle {int(self.gentle)}",
            f"ared_interval {ARED['interval']!r}",
            f"ared_alpha {ARED['alpha']!r}",
            f"ared_beta {ARED['beta']!r}",
            f"ared_top {ARED['top']!r}",
            f"ared_bottom {ARED['bottom']!r}",
            f"duration {self.duration!r}",
            f"t_measure {self.t_measure!r}",
            f"packet_size {self.packet_size}",
            f"ack_size {ACK_SIZE}",
            f"header {HEADER}",
            f"max_window {self.max_window}",
            f"init_window {INIT_WINDOW}",
            f"min_rto {MIN_RTO!r}",
            f"tcp_tick {TCP_TICK!r}",
            f"init_rto {INIT_RTO!r}",
            f"limited_transmit {LIMITED_TRANSMIT}",
            # (ns-2's NewReno rules hooked on ns-3's socket: not for BBR, which sets its
            # window itself and runs with SACK)
            f"newreno_as_ns2 {0 if self.tcp == 'bbr' else NEWRENO_AS_NS2}",
            f"sample_interval {(self.duration - self.t_measure) / RED_SAMPLES!r}",
            f"seed {self.seed}",
            f"ns2_defaults {int(self.profile == 'ns2')}",  # (ns-2 at its defaults)
            f"tcp {self.tcp}",
            f"aqm_target {(PIE if self.queue == 'pie' else CODEL)['target']!r}",
            f"aqm_interval {CODEL['interval']!r}",
            f"codel_min_bytes {MTU}",
            f"fq_flows {FQ['flows']}",
            f"fq_quantum {FQ['quantum']}",
            f"fq_drop_batch {FQ['drop_batch_size']}",
            f"pie_tupdate {PIE['tupdate']!r}",
            f"pie_alpha {PIE['alpha']!r}",
            f"pie_beta {PIE['beta']!r}",
            f"pie_max_burst {PIE['max_burst']!r}",
            "pie_derandomize 0",
            "access_delays " + " ".join(f"{d:.9f}" for d in self.access_delays()),
            "flow_paths " + " ".join(str(p) for p in self.flow_paths()),
            "starts " + " ".join(f"{s:.9f}" for s in self.starts()),
        ]
        if self.tcp == "bbr":
            lines.append("ns3_sack 1")
        return "\n".join(lines) + "\n"

    # --------------------------------------------------------------- aqmlab
    def queue_dict(self) -> dict:
        if self.queue == "droptail":
            return {"type": "droptail", "limit": self.limit}
        ms = lambda s: f"{s * 1e3:g}ms"  # noqa: E731
        if self.queue in ("codel", "fq_codel"):
            q = {"type": self.queue, "limit": self.limit, "target": ms(CODEL["target"])}
            q.update(interval=ms(CODEL["interval"]), ecn=False)
            if self.queue == "codel":
                return {**q, "maxpacket": MTU}
            return {**q, **FQ}
        if self.queue == "pie":
            # (-nsmode: ns-3 3.37's burst rule comes with the profile, docs/peers.md 6.2)
            return {
                "type": "pie",
                "limit": self.limit,
                "target": ms(PIE["target"]),
                "tupdate": ms(PIE["tupdate"]),
                "alpha": PIE["alpha"],
                "beta": PIE["beta"],
                "max_burst": ms(PIE["max_burst"]),
                "ecn": False,
                # as ns-3 3.37's PieQueueDisc is set up here: the delay from timestamps
                # (UseDequeueRateEstimator false), no derandomization, MeanPktSize = the
                # packet size
                "delay_mode": "timestamp",
                "derandomize": False,
                "mean_pkt_size": self.packet_size,
            }
        return {
            "type": self.queue,
            "limit": self.limit,
            "min_th": self.min_th,
            "max_th": self.max_th,
            "w_q": self.w_q,
            "max_p": self.max_p,
            "gentle": self.gentle,
        }

    def flow_keys(self) -> dict:
        """The keys every aqmlab flow of the case carries besides its path and start."""
        keys = dict(TIMER) if self.profile != "ns2" else {}  # (ns2: the profile's)
        if self.tcp == "bbr":  # ns-3's TcpBbr as set up: its gains, ACK aggregation, SACK
            keys.update(sack=True, bbr_extra_acked=True, bbr_high_gain=NS3_BBR_HIGH_GAIN)
            keys["bbr_drain_gain"] = 1 / NS3_BBR_HIGH_GAIN
        if self.newreno_timer != "impatient":
            keys["newreno_timer"] = self.newreno_timer
        if self.profile == NS3_PROFILE:  # (what the case gives every simulator wins)
            keys["limited_transmit"] = bool(LIMITED_TRANSMIT)
            if NEWRENO_AS_NS2 and self.tcp != "bbr":
                keys["fast_retransmit_timer"] = "restart"
        return keys

    def aqmlab_scenario(self) -> dict:
        """The case in aqmlab's scenario shape (a dict mirroring the TOML file)."""
        links = [
            {
                "a": "r1",
                "b": "r2",
                "rate": _rate_str(self.bottleneck_rate),
                "delay": f"{self.bottleneck_delay * 1e3:.6f}ms",
                # the bottleneck's queue r1 -> r2; the ACKs' direction r2 -> r1 is Drop Tail,
                # as in the ns-2 script (simplex links) and the ns-3 program
                "queue_ab": self.queue_dict(),
                "queue_ba": {"type": "droptail", "limit": self.limit},
            }
        ]
        for i, d in enumerate(self.access_delays()):
            for a, b in ((f"s{i}", "r1"), ("r2", f"k{i}")):
                links.append(
                    {
                        "a": a,
                        "b": b,
                        "rate": _rate_str(self.access_rate),
                        "delay": f"{d * 1e3:.6f}ms",
                        "queue": {"type": "droptail", "limit": self.access_limit},
                    }
                )
        flows = []
        for p, s in zip(self.flow_paths(), self.starts()):
            flows.append(
                {
                    "type": "tcp",
                    "variant": self.tcp,
                    "src": f"s{p}",
                    "dst": f"k{p}",
                    "start": f"{s:.9f}s",
                    "packet_size": self.packet_size,
                    "max_window": self.max_window,
                    "packets": 0,
                    "count": 1,
                    **self.flow_keys(),
                }
            )
        if self.profile == NS3_PROFILE:
            for link in links:
                link["device_queue"] = 0
        d = {
            "name": self.name,
            "description": f"peer benchmark case {self.name} (benchmarks/peers/scenarios.py)",
            "duration": f"{self.duration:g}s",
            "warmup": f"{self.t_measure:g}s",
            "seed": self.seed,
            **({"profile": self.profile} if self.profile != "rfc" else {}),
            "bottleneck": "r1->r2",
            "link": links,
            "flow": flows,
        }
        worst = self.worst_case_bytes()
        if worst > 4e9:
            # aqmlab refuses a scenario whose queues and lines could hold more than its
            # memory budget (half the machine's memory by default), counting every line
            # full of the smallest packets: S2's and S3's 10 and 100 Gb/s access lines
            # would hold tens of GB of 40-byte ACKs, which these windows never send; the
            # budget is raised to that worst case and what the run holds is measured
            d["max_memory"] = int(worst * 1.1)
        return d

    def worst_case_bytes(self) -> float:
        """aqmlab's worst case for its memory budget (docs/simulator.md, "Limits"): every
        link direction's buffer and line full of ACK-sized packets at 80 bytes each, plus
        4 KiB and 24 bytes per packet of window per flow."""
        dirs = [(self.bottleneck_rate, self.bottleneck_delay, self.limit)] * 2
        for delay in self.access_delays():
            dirs += [(self.access_rate, delay, self.access_limit)] * 4
        packets = sum(limit + rate * delay / 8 / ACK_SIZE + 1 for rate, delay, limit in dirs)
        return 80 * packets + self.flows * (4096 + 24 * self.max_window)

    def aqmlab_toml(self) -> str:
        return to_toml(self.aqmlab_scenario())


# ---------------------------------------------------------------------------
def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(type(v))


def to_toml(d: dict) -> str:
    out = []
    for k, v in d.items():
        if not (isinstance(v, list) and v and isinstance(v[0], dict)):
            out.append(f"{k} = {_toml_value(v)}")
    for k, v in d.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                out.append("")
                out.append(f"[[{k}]]")
                for kk, vv in item.items():
                    out.append(f"{kk} = {_toml_value(vv)}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
S1_RED = dict(min_th=20, max_th=80, w_q=0.002, max_p=0.1, gentle=True)
S2_RED = dict(min_th=200, max_th=800, w_q=0.0002, max_p=0.1, gentle=True)
S3_RED = dict(min_th=2000, max_th=8000, w_q=0.00002, max_p=0.1, gentle=True)


def s1(n: int, queue: str, duration: float = 100.0) -> Case:
    red = S1_RED if queue != "droptail" else {}
    suffix = "" if duration == 100.0 else f"-{duration:g}s"
    return Case(
        name=f"S1-n{n}-{queue}{suffix}",
        group="S1",
        flows=n,
        paths=n,
        bottleneck_rate=15e6,
        bottleneck_delay=0.020,
        access_rate=100e6,
        limit=200,
        queue=queue,
        duration=duration,
        access_limit=1000,
        **red,
    )


def s2(queue: str = "red", duration: float = 10.0) -> Case:
    """S2 as the issue defines it lasts 10 s, which ends inside the start-up
    transient (after slow start each flow needs ~160 packets of window); the
    60-s variant (not run by default) is the one to judge agreement on."""
    red = S2_RED if queue != "droptail" else {}
    suffix = "" if duration == 10.0 else f"-{duration:g}s"
    return Case(
        name=f"S2-{queue}{suffix}",
        group="S2",
        flows=100,
        paths=100,
        bottleneck_rate=1e9,
        bottleneck_delay=0.020,
        access_rate=10e9,
        limit=2000,
        queue=queue,
        duration=duration,
        access_limit=10000,
        **red,
    )


def s3(flows: int = 10000, rate: float = 10e9, duration: float = 10.0, paths: int = 100) -> Case:
    """The large case: 10,000 flows, 10 Gb/s bottleneck, 100 Gb/s access links.

    Buffer and thresholds scale with the rate from S2 (x10).  The receiver
    window is 200 packets: a flow's fair share is about 20 packets of window,
    and ns-3's send buffer (= the receiver window, BulkSend keeps it full)
    would otherwise cost gigabytes for 10,000 flows.
    """
    scale = rate / 10e9
    red = dict(S3_RED)
    red["min_th"] *= scale
    red["max_th"] *= scale
    red["w_q"] /= scale
    return Case(
        name=f"S3-f{flows}-{_rate_str(rate)}-{duration:g}s",
        group="S3",
        flows=flows,
        paths=min(paths, flows),
        bottleneck_rate=rate,
        bottleneck_delay=0.020,
        access_rate=10 * rate,
        limit=int(20000 * scale),
        queue="red",
        duration=duration,
        access_limit=int(200000 * scale),
        max_window=200,
        timeout=600.0,
        **red,
    )


def sc(flows: int, rate: float, duration: float = 10.0) -> Case:
    """The scaling family: the S1 shape (RED, base RTTs 100-160 ms, access links 10x
    the bottleneck) with `flows` flows through a `rate` bottleneck for `duration`;
    buffer and thresholds scale with the rate from S1's 15 Mb/s (at least S1's)."""
    k = max(1.0, rate / 15e6)
    red = dict(S1_RED)
    red["min_th"] = round(red["min_th"] * k)
    red["max_th"] = round(red["max_th"] * k)
    red["w_q"] = red["w_q"] / k
    return Case(
        name=f"SC-f{flows}-{_rate_str(rate)}",
        group="SC",
        flows=flows,
        paths=min(flows, 100),
        bottleneck_rate=rate,
        bottleneck_delay=0.020,
        access_rate=10 * rate,
        limit=round(200 * k),
        queue="red",
        duration=duration,
        access_limit=round(1000 * k),
        max_window=200,
        timeout=900.0,
        **red,
    )


def m(n: int, queue: str, tcp: str, duration: float = 100.0) -> Case:
    """The modern AQMs beside ns-3: `n` flows of `tcp` through a 10 Mb/s bottleneck with
    `queue` (CoDel, FQ-CoDel or PIE at their RFC defaults; for BBR also a FIFO), base RTTs 50-150 ms (100 ms
    on average, so that the flows' shares differ with their RTTs), a buffer of 1000
    packets that the AQM, not the buffer, keeps short. ns-2's script has none of these:
    the agreement rule reads ns-3 in its place."""
    return Case(
        name=f"M-n{n}-{queue}-{tcp}",
        group="M",
        flows=n,
        paths=n,
        bottleneck_rate=10e6,
        bottleneck_delay=0.010,
        access_rate=100e6,
        limit=1000,
        queue=queue,
        duration=duration,
        rtt_min=0.050,
        rtt_max=0.150,
        access_limit=1000,
        tcp=tcp,
        sims=("aqmlab", "ns3"),
    )


MODERN = [(q, t) for t in ("newreno", "cubic") for q in ("codel", "fq_codel", "pie")]
# BBR beside ns-3 3.37's TcpBbr: a FIFO (Drop Tail of the case's 1000 packets), CoDel and
# FQ-CoDel (docs/peers.md, section 6.6)
MODERN_BBR = [(q, "bbr") for q in ("droptail", "codel", "fq_codel")]


def cubic(n: int, duration: float = 100.0) -> Case:
    """CUBIC beside ns-3 3.37's TcpCubic (HyStart off, fast convergence on, beta 0.7,
    C 0.4, no SACK, classic recovery): `n` flows over S1's dumbbell (15 Mb/s, Drop Tail
    of 200 packets, base RTTs 100-160 ms; one flow: 100 ms). ns-2 does not run. The
    retransmission timer restarts on the first partial ACK of a recovery only, in
    aqmlab (its default) as in ns-3 3.37 (measured, docs/peers.md 6.2)."""
    return s1(n, "droptail", duration).with_(
        name=f"C-n{n}-droptail-cubic",
        group="C",
        tcp="cubic",
        sims=("aqmlab", "ns3"),
    )


def nsmode(case: Case) -> Case:
    """A CUBIC or NewReno case with aqmlab following ns-3 3.37's rules (its `ns3`
    profile, NS3_PROFILE)."""
    return case.with_(name=case.name + "-nsmode", profile=NS3_PROFILE)


def ns2mode(case: Case) -> Case:
    """An S case with aqmlab in its `ns2` profile and ns-2 at its own defaults (only the
    case's numbers set on either side: windows, packet size, thresholds, weights)."""
    return case.with_(name=case.name + "-ns2mode", profile="ns2", sims=("aqmlab", "ns2"))


# flows at 100 Mb/s, and link rates at 100 flows (10 s each)
SCALING = [(f, 100e6) for f in (10, 100, 1000, 10000)] + [(100, r) for r in (10e6, 1e9)]


def all_cases() -> list[Case]:
    cases = [s1(n, q) for n in (5, 20, 100) for q in ("droptail", "red", "ared")]
    cases.append(s1(100, "red", duration=2000.0))
    cases.append(s2("red"))
    cases.append(s2("red", duration=60.0))
    cases.extend(s3_ladder())
    cases.extend(sc(f, r) for f, r in SCALING)
    cases.extend(m(n, q, t) for n in (5, 20) for q, t in MODERN + MODERN_BBR)
    cases.extend(cubic(n) for n in (1, 20))
    cases.extend([nsmode(c) for c in cases if c.group in ("C", "M") and c.tcp != "bbr"])
    cases.extend([ns2mode(c) for c in cases if c.group in ("S1", "S2")])
    return cases


def s3_ladder() -> list[Case]:
    """S3 first, then the fallbacks from large to small: the harness runs a
    peer down this list (600 s timeout each) and reports the largest it finishes."""
    return [
        s3(10000, 10e9, 10.0),
        s3(10000, 10e9, 2.0),
        s3(1000, 1e9, 10.0),
        s3(1000, 1e9, 2.0),
    ]


def quick(case: Case) -> Case:
    """Smoke-test variant: a tenth of the duration (at least 2 s)."""
    return case.with_(duration=max(2.0, case.duration / 10), quick=True, name=case.name + "-quick")


#: the groups (and profile) run when no case is named: S1 and S2 as the issue defines them
S_DEFAULT = ("S1rfc", "S2rfc")
LONG_RUNS = tuple(n + s for n in ("S1-n100-red-2000s", "S2-red-60s") for s in ("", "-ns2mode"))


def select(spec: str | None) -> list[Case]:
    """Cases by comma-separated names or prefixes: 'S1', 'S2', 'S1-n5', 'S1-n100-red' ..."""
    cases = all_cases()
    if not spec:
        return [c for c in cases if c.name not in LONG_RUNS and c.group + c.profile in S_DEFAULT]
    out = []
    for tok in spec.split(","):
        tok = tok.strip()
        if not tok:
            continue
        hit = [c for c in cases if c.name == tok]
        if not hit:
            # prefixes never pick the long runs: name them explicitly
            hit = [
                c
                for c in cases
                if (c.name.startswith(tok + "-") or c.group == tok) and c.name not in LONG_RUNS
            ]
        if not hit:
            raise SystemExit(f"unknown case {tok!r}; known: " + ", ".join(c.name for c in cases))
        out.extend(c for c in hit if c not in out)
    return out


if __name__ == "__main__":  # print the case list, or one case's params / TOML
    import sys

    if len(sys.argv) == 3 and sys.argv[1] in ("params", "toml"):
        c = select(sys.argv[2])[0]
        sys.stdout.write(c.params() if sys.argv[1] == "params" else c.aqmlab_toml())
    else:
        for c in all_cases():
            print(
                f"{c.name:28s} flows={c.flows:5d} rate={_rate_str(c.bottleneck_rate):>7s} "
                f"queue={c.queue:8s} limit={c.limit} duration={c.duration:g}s"
            )
