"""CoDel and FQ-CoDel through the Python API (``aqm.CoDel``, ``aqm.FqCoDel``, ``aqm.Queue``)."""

import math

import pytest

from aqmlab import aqm


def _queue_holds_qdiscs() -> bool:
    """Whether ``aqm.Queue`` runs the disciplines that hold their packets."""
    try:
        aqm.Queue({"type": "codel"})
    except ValueError as e:
        return "holds its packets" not in str(e)
    return True


needs_qdisc = pytest.mark.skipif(
    not _queue_holds_qdiscs(), reason="aqm.Queue does not run packet-holding queues yet"
)


def test_types_are_listed():
    """codel and fq_codel are queue types."""
    assert {"codel", "fq_codel"} <= set(aqm.QUEUE_TYPES)


@needs_qdisc
def test_constructors_fill_the_rfc_defaults():
    """The classes build the same queue as the dict, with RFC 8289/8290's defaults."""
    c = aqm.CoDel()
    assert c.kind == "codel"
    assert c.config == aqm.Queue({"type": "codel"}).config
    assert (c.config["target"], c.config["interval"], c.config["limit"]) == (0.005, 0.1, 1000)
    f = aqm.FqCoDel(target="2ms", flows=64)
    assert f.kind == "fq_codel"
    assert f.config["flows"] == 64 and f.config["quantum"] == 1514 and f.config["ecn"] is True
    assert f.config == aqm.Queue({"type": "fq_codel", "target": "2ms", "flows": 64}).config


@needs_qdisc
@pytest.mark.parametrize(
    "cls, kwargs, field",
    [
        (aqm.CoDel, {"target": 0}, "target"),
        (aqm.CoDel, {"interval": "-5ms"}, "interval"),
        (aqm.CoDel, {"limit": 0}, "limit"),
        (aqm.FqCoDel, {"flows": 0}, "flows"),
        (aqm.FqCoDel, {"quantum": 0}, "quantum"),
        (aqm.FqCoDel, {"memory_limit": 0}, "memory_limit"),
        (aqm.FqCoDel, {"drop_batch_size": 0}, "drop_batch_size"),
    ],
)
def test_invalid_parameters_name_the_field(cls, kwargs, field):
    """A value out of range is a ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        cls(**kwargs)


@needs_qdisc
def test_codel_drop_schedule_under_overload():
    """Under constant overload the first drop comes one interval after the sojourn time
    reached target, and the next ones interval/sqrt(count) apart (RFC 8289 Section 4.5)."""
    target, interval = 0.005, 0.1
    q = aqm.CoDel(target=target, interval=interval, limit=100000)
    drop_times = []
    seen = 0
    ta, td = 0.0, 0.0005
    while td < 1.5:
        if ta <= td:
            q.enqueue(ta, 1000, 1)
            ta += 0.0005
        else:
            got = q.dequeue(td)
            assert got == (1000, 1)
            drops = q.stats["forced_drops"]
            drop_times += [td] * (drops - seen)
            seen = drops
            td += 0.001
    assert len(drop_times) >= 10
    # The k-th departure (from 0) sends the packet that arrived at k * 0.5 ms: its
    # sojourn time, 0.5 ms + k * 0.5 ms, first reaches target at k = 9.
    first_above = 0.0005 + 9 * 0.001
    assert drop_times[0] == pytest.approx(first_above + interval, abs=1e-9)
    scheduled = drop_times[0]
    for count, t in enumerate(drop_times[1:], start=1):
        scheduled += interval / math.sqrt(count)
        # the first departure (every 1 ms, at 0.5 ms offsets) at or after the schedule
        assert scheduled - 1e-9 <= t < scheduled + 0.001


@needs_qdisc
def test_fq_codel_serves_a_new_flow_first():
    """A sparse flow's packet leaves before the backlogged flows' (RFC 8290 Section 4.2)."""
    q = aqm.FqCoDel(seed=1)
    for _ in range(40):
        q.enqueue(0.0, 1500, 1)
        q.enqueue(0.0, 1500, 2)
    for _ in range(6):
        assert q.dequeue(0.0)[1] in (1, 2)
    q.enqueue(0.0, 100, 3)
    assert q.dequeue(0.0) == (100, 3)


@needs_qdisc
def test_fq_codel_byte_fair_shares():
    """Two backlogged flows with 1500- and 300-byte packets get equal bytes, within one
    quantum and one packet (deficit round robin)."""
    q = aqm.FqCoDel(seed=1)
    for _ in range(200):
        q.enqueue(0.0, 1500, 1)
    for _ in range(1000):
        q.enqueue(0.0, 300, 2)
    sent = {1: 0, 2: 0}
    while min(sent.values()) < 150_000:
        size, flow = q.dequeue(0.0)
        sent[flow] += size
        assert abs(sent[1] - sent[2]) < 1514 + 1500


@needs_qdisc
@pytest.mark.parametrize("ecn_capable", [True, False])
def test_codel_ecn_marks_instead_of_dropping(ecn_capable):
    """With ecn=True, ECN-capable packets are marked where others are dropped."""
    q = aqm.CoDel(ecn=True, limit=100000)
    ta, td = 0.0, 0.0005
    while td < 1.0:
        if ta <= td:
            q.enqueue(ta, 1000, 1, ecn_capable=ecn_capable)
            ta += 0.0005
        else:
            q.dequeue(td)
            td += 0.001
    s = q.stats
    signals = s["marks"] if ecn_capable else s["forced_drops"]
    others = s["forced_drops"] if ecn_capable else s["marks"]
    assert signals >= 5 and others == 0
