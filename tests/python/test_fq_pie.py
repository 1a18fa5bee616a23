"""FQ-PIE through the Python API (``aqm.FqPie``, ``aqm.Queue``)."""

import pytest

from aqmlab import aqm


def _queue_holds_qdiscs() -> bool:
    """Whether ``aqm.Queue`` runs the disciplines that hold their packets."""
    try:
        aqm.Queue({"type": "fq_pie"})
    except ValueError as e:
        return "holds its packets" not in str(e)
    return True


needs_qdisc = pytest.mark.skipif(
    not _queue_holds_qdiscs(), reason="aqm.Queue does not run packet-holding queues yet"
)


def test_type_is_listed():
    assert "fq_pie" in aqm.QUEUE_TYPES


@needs_qdisc
def test_constructor_fills_linux_defaults():
    q = aqm.FqPie()
    assert q.kind == "fq_pie"
    assert q.config == aqm.Queue({"type": "fq_pie"}).config
    c = q.config
    assert (c["limit"], c["flows"], c["target"], c["tupdate"]) == (10240, 1024, 0.015, 0.015)


@needs_qdisc
@pytest.mark.parametrize(
    "kwargs, field",
    [({"flows": 0}, "flows"), ({"target": 0}, "target"), ({"alpha": -1.0}, "alpha")],
)
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        aqm.FqPie(**kwargs)


@needs_qdisc
def test_a_sparse_flow_goes_first():
    """A flow new to the scheduler is served as soon as the backlogged flow ahead of it
    on the new list has used its first quantum (RFC 8290 Section 4.2, which FQ-PIE
    keeps): flow 1's 1000-byte packets take ceil(quantum / 1000) turns, then flow 2's
    packet leaves before the rest of flow 1's."""
    quantum = 1514
    q = aqm.FqPie(seed=1, quantum=quantum)
    for _ in range(20):
        q.enqueue(0.0, 1000, flow=1)
    out = [q.dequeue(0.001)]
    q.enqueue(0.001, 500, flow=2)
    first_round = -(-quantum // 1000)
    out += [q.dequeue(0.002 + i * 1e-3) for i in range(first_round + 1)]
    assert out == [(1000, 1)] * first_round + [(500, 2), (1000, 1)]
