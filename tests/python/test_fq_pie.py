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
    """A packet of a flow new to the scheduler leaves before a backlogged flow's
    (the new-flows list of RFC 8290 Section 4.2, which FQ-PIE keeps)."""
    q = aqm.FqPie(seed=1)
    for _ in range(20):
        q.enqueue(0.0, 1000, flow=1)
    assert q.dequeue(0.001) == (1000, 1)
    q.enqueue(0.001, 500, flow=2)
    assert q.dequeue(0.002) == (500, 2)
