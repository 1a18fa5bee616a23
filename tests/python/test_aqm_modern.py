"""PIE, BLUE, CHOKe, PI and DualPI2 through the Python API (``aqm.Pie`` ... ``aqm.Queue``)."""

import pytest

from aqmlab import aqm


def _queue_holds_qdiscs() -> bool:
    """Whether ``aqm.Queue`` runs the disciplines that hold their packets."""
    try:
        aqm.Queue({"type": "pie"})
    except ValueError as e:
        return "holds its packets" not in str(e)
    return True


needs_qdisc = pytest.mark.skipif(
    not _queue_holds_qdiscs(), reason="aqm.Queue does not run packet-holding queues yet"
)


def test_types_are_listed():
    """The modern types are queue types."""
    assert {"pie", "blue", "sfb", "choke", "pi", "dualpi2"} <= set(aqm.QUEUE_TYPES)


def test_blue_constructor_is_the_dict():
    """aqm.Blue builds the same queue as the dict, with the defaults filled in."""
    b = aqm.Blue(limit=10, freeze_time="50ms")
    assert b.kind == "blue"
    assert b.config == aqm.Queue({"type": "blue", "limit": 10, "freeze_time": "50ms"}).config
    assert (b.config["d1"], b.config["d2"], b.config["freeze_time"]) == (0.02, 0.002, "50ms")


def test_blue_raises_p_m_on_overflow_and_drops_early():
    """Overflows raise p_m by d1 each (freeze time 0): after 1/d1 of them every arrival
    is dropped early, and each link idle event lowers p_m by d2 again."""
    q = aqm.Blue(limit=5, d1=0.1, d2=0.5, freeze_time=0)
    t = 0.0
    for _ in range(5):
        assert q.enqueue(t, 1000, 1) == "enqueue"
    for _ in range(10):
        t += 0.001
        assert q.enqueue(t, 1000, 1) == "drop_forced"
    # p_m = 1: with one packet left waiting (no idle event) every arrival is dropped.
    for _ in range(4):
        q.dequeue(t)
    assert [q.enqueue(t, 1000, 2) for _ in range(100)] == ["drop_early"] * 100
    # The queue empties: one idle event, p_m = 1 - d2 = 0.5. Keeping one or two packets
    # waiting (no further idle event, no overflow), about half the arrivals are dropped.
    t += 0.001  # after the last change: the freeze time (0) is over only once time moves
    q.dequeue(t)
    verdicts = []
    for i in range(400):
        v = q.enqueue(t + 1e-6 * i, 1000, 3)
        verdicts.append(v)
        if v == "enqueue" and len(q) > 1:
            q.dequeue(t + 1e-6 * i)
    early = verdicts.count("drop_early")
    # Binomial(400, 0.5): mean 200, sd 10.
    assert abs(early - 200) < 45, early
    assert set(verdicts) == {"enqueue", "drop_early"}


def test_pi_drops_once_the_queue_stays_above_q_ref():
    """With the queue held above q_ref the PI probability grows at every sample and
    arrivals start to be dropped; below q_ref they are not."""
    q = aqm.Pi(limit=100, q_ref=5, a=0.002, b=0.0019, sample_freq=100)
    t = 0.0
    verdicts = []
    for i in range(3000):
        t += 0.001
        verdicts.append(q.enqueue(t, 1000, i % 4))
        if len(q) > 20:
            q.dequeue(t)
    assert verdicts[:50].count("drop_early") == 0
    assert verdicts[-1000:].count("drop_early") > 0


@pytest.mark.parametrize(
    "cls, kwargs, field",
    [
        (aqm.Blue, {"limit": 5, "d1": 0}, "d1"),
        (aqm.Blue, {"limit": 5, "freeze_time": "-1ms"}, "freeze_time"),
        (aqm.Pi, {"limit": 5, "sample_freq": 0}, "sample_freq"),
        (aqm.Pi, {"limit": 5, "a": -1}, "a"),
        (aqm.Pi, {}, "limit"),
    ],
)
def test_invalid_arrival_time_parameters_name_the_field(cls, kwargs, field):
    """A value out of range is a ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        cls(**kwargs)


@needs_qdisc
def test_holding_constructors_fill_the_defaults():
    """aqm.Pie, aqm.Choke and aqm.DualPi2 build the dict's queue with the specs' defaults."""
    p = aqm.Pie()
    assert p.kind == "pie" and p.config == aqm.Queue({"type": "pie"}).config
    assert (p.config["alpha"], p.config["beta"], p.config["limit"]) == (0.125, 1.25, 1000)
    assert (
        p.config["burst_reset"] == "rfc"
        and aqm.Pie(burst_reset="quiet").config["burst_reset"] == "quiet"
    )
    c = aqm.Choke(limit=50)
    assert c.kind == "choke" and c.config["candidates"] == 1
    d = aqm.DualPi2()
    assert d.kind == "dualpi2" and (d.config["k"], d.config["limit"]) == (2.0, 10000)


@needs_qdisc
@pytest.mark.parametrize(
    "cls, kwargs, field",
    [
        (aqm.Pie, {"target": 0}, "target"),
        (aqm.Pie, {"dq_threshold": 0}, "dq_threshold"),
        (aqm.Pie, {"burst_reset": "never"}, "burst_reset"),
        (aqm.Choke, {"limit": 5, "candidates": 0}, "candidates"),
        (aqm.DualPi2, {"k": 0.5}, "k"),
        (aqm.DualPi2, {"c_protection": 1.5}, "c_protection"),
        (aqm.DualPi2, {"mtu": 70000}, "mtu"),
        (aqm.DualPi2, {"scheduler": "fifo"}, "scheduler"),
        (aqm.DualPi2, {"tshift": 11}, "tshift"),
    ],
)
def test_invalid_holding_parameters_name_the_field(cls, kwargs, field):
    """A value out of range is a ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        cls(**kwargs)


@needs_qdisc
def test_pie_drops_under_a_standing_queue_after_the_burst_allowance():
    """A queue held at 100 packets of 1500 bytes sent every 1.2 ms (120 ms of delay):
    no early drop within max_burst, early drops later."""
    q = aqm.Pie(delay_mode="timestamp")
    t, verdicts = 0.0, []
    for i in range(3000):
        t += 0.0012
        verdicts.append((t, q.enqueue(t, 1500, i % 8)))
        if len(q) > 100:
            q.dequeue(t)
    assert all(v != "drop_early" for s, v in verdicts if s < 0.150)
    assert any(v == "drop_early" for s, v in verdicts)


@needs_qdisc
def test_choke_drops_the_hog():
    """A flow holding most of the queue loses far more packets to matches than the others."""
    q = aqm.Choke(limit=100, min_th=2, max_th=90, w_q=0.5, max_p=0.01)
    drops = {0: 0, 1: 0}
    t = 0.0
    for i in range(20000):
        t += 0.001
        flow = 0 if i % 10 else 1  # flow 0 sends 90% of the packets
        if q.enqueue(t, 1000, flow).startswith("drop"):
            drops[flow] += 1
        if i % 2:
            q.dequeue(t)
    assert drops[0] > 20 * drops[1]


def _pi_update(p: float, prevq: float, curq: float, alpha=0.16, beta=3.2, target=0.015):
    """RFC 9332 Appendix A.1's p' update, p' kept in [0, 1]."""
    return min(1.0, max(0.0, p + alpha * (curq - target) + beta * (curq - prevq)))


@needs_qdisc
def test_dualpi2_puts_ect1_packets_in_the_l_queue_and_marks_them_with_k_p():
    """100 Classic packets wait from t = 0; after 4 updates (t = 64 ms) p' is what the PI
    update gives for a head that waited t. An ECT(1) packet then leaves first (the L
    queue is served before the older Classic packets), and L packets are marked with
    p_L = min(k p', 1) (no step: they leave as they arrive), RFC 9332 Section 2.1."""
    q = aqm.DualPi2(tupdate=0.016, seed=7)
    for _ in range(100):
        assert q.enqueue(0.0, 1500, 1) == "enqueue"
    p = prevq = 0.0
    for n in range(1, 5):
        t = 0.016 * n
        q.poll(t)
        p, prevq = _pi_update(p, prevq, t), t
    assert q.signal == pytest.approx(p, rel=1e-9)
    p_l = min(2 * p, 1.0)
    assert 0 < p_l < 1 and p * p <= 0.25  # below overload: L packets are not dropped
    now, marked, sent = 0.064, 0, 20000
    for i in range(sent):
        q.enqueue(now, 1000, 2, ect1=True)
        while True:  # Classic packets the WRR serves in between are put back
            size, flow, m = q.dequeue_marked(now)
            if flow == 2:
                break
            q.enqueue(now, 1500, 1)
        if i == 0:
            assert size == 1000, "the ECT(1) packet overtook the waiting Classic ones"
        marked += m
    sd = (sent * p_l * (1 - p_l)) ** 0.5
    assert abs(marked - sent * p_l) <= 4.42 * sd, (marked, sent * p_l)


@needs_qdisc
def test_dualpi2_classifies_ce_into_l_and_refuses_contradictory_flags():
    q = aqm.DualPi2()
    for _ in range(5):
        q.enqueue(0.0, 1500, 1, ecn_capable=True)
    q.enqueue(0.0, 1000, 2, ce=True)
    assert q.dequeue(0.0) == (1000, 2), "a CE packet is classified into the L queue"
    fifo = aqm.Pie()
    fifo.enqueue(0.0, 1500, 1)
    fifo.enqueue(0.0, 1000, 2, ect1=True)
    assert fifo.dequeue(0.0) == (1500, 1), "one-queue disciplines keep arrival order"
    with pytest.raises(ValueError, match="ecn_capable"):
        q.enqueue(0.0, 1000, 2, ecn_capable=False, ect1=True)
    with pytest.raises(ValueError, match="ect1"):
        q.enqueue(0.0, 1000, 2, ect1=1)
    with pytest.raises(ValueError, match="ce"):
        q.enqueue(0.0, 1000, 2, ce="yes")


def _tcp_beside_udp(queue: dict) -> list:
    """Four NewReno flows and a 20 Mb/s UDP flow through a 10 Mb/s bottleneck: the
    goodputs, b/s, the TCP flows first."""
    from aqmlab import Scenario, simulate

    def link(a, b, rate, delay, **q):
        return {
            "a": a,
            "b": b,
            "rate": rate,
            "delay": delay,
            "queue": {"type": "droptail", "limit": 1000},
            **q,
        }

    scen = {
        "name": "tcp-beside-udp",
        "duration": "40s",
        "warmup": "10s",
        "seed": 1,
        "bottleneck": "r1->r2",
        "link": [
            link("r1", "r2", "10Mbps", "10ms", queue_ab=queue),
            link("s", "r1", "100Mbps", "20ms"),
            link("u", "r1", "100Mbps", "1ms"),
            link("r2", "k", "100Mbps", "20ms"),
        ],
        "flow": [
            {
                "type": "tcp",
                "variant": "newreno",
                "src": "s",
                "dst": "k",
                "count": 4,
                "start": {"uniform": [0, 1]},
                "packet_size": 1000,
                "max_window": 20,
                "name": "tcp",
            },
            {
                "type": "cbr",
                "src": "u",
                "dst": "k",
                "rate": "20Mbps",
                "packet_size": 1000,
                "name": "udp",
            },
        ],
    }
    return simulate(Scenario(scen)).flows.goodput_bps.tolist()


def test_sfb_protects_tcp_flows_from_a_non_responsive_flow():
    """Through drop tail the UDP flow at twice the line takes it all; SFB confines it
    to its bins and every TCP flow gets at least half of its fair share (10 Mb/s / 5)."""
    fair = 10e6 / 5
    dt = _tcp_beside_udp({"type": "droptail", "limit": 200})
    assert all(g < 0.05 * fair for g in dt[:4]), dt
    sfb = _tcp_beside_udp({"type": "sfb", "limit": 200})
    assert all(g > 0.5 * fair for g in sfb[:4]), sfb
    assert sum(sfb) > 0.95 * 10e6, "the line stays busy"
