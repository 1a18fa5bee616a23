"""The RFC 7928 metrics of ``aqmlab evaluate`` (``aqmlab.evaluate.metrics``) on synthetic
inputs whose answers follow from the definitions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from aqmlab.evaluate import metrics as M


def test_periodic_signals_have_cv_zero() -> None:
    """Signals every 250 ms: mean interval 0.25 s, coefficient of variation 0."""
    t = [0.25 * k for k in range(41)]
    mean, cv = M.loss_intervals(t[::-1])  # order does not matter
    assert mean == pytest.approx(0.25) and cv == pytest.approx(0.0, abs=1e-12)


def test_alternating_gaps_and_exponential_gaps() -> None:
    """Gaps alternating a, b: mean (a + b) / 2 and standard deviation |a - b| / 2, so CV
    |a - b| / (a + b); exponential gaps (a Poisson process) have CV 1."""
    a, b = 0.1, 0.3
    t = np.concatenate(([0.0], np.cumsum([a, b] * 50)))  # 50 gaps of each
    mean, cv = M.loss_intervals(t)
    assert mean == pytest.approx((a + b) / 2)
    assert cv == pytest.approx(abs(a - b) / (a + b))
    gaps = np.random.default_rng(7).exponential(0.2, 40000)
    mean, cv = M.loss_intervals(np.cumsum(gaps))
    assert mean == pytest.approx(0.2, rel=0.03) and cv == pytest.approx(1.0, abs=0.03)


def test_too_few_signals_give_nan() -> None:
    """No interval without two signals."""
    for t in ([], [3.0]):
        assert all(math.isnan(x) for x in M.loss_intervals(t))


def test_window_keeps_signals_inside() -> None:
    """Signals before the warm-up or after the end are dropped; the rest sorted."""
    t, f = M.in_window([5.0, 1.0, 2.0, 9.5, 3.0], [1, 2, 3, 4, 5], 2.0, 9.0)
    assert t.tolist() == [2.0, 3.0, 5.0] and f.tolist() == [3, 5, 1]
    with pytest.raises(ValueError, match="differ in length"):
        M.in_window([1.0], [1, 2], 0, 1)


RTT = 0.1


def test_synchronised_drops_give_one() -> None:
    """Every event signals every long-lived flow (within a few ms): synchronization 1."""
    n = 5
    times, flows = [], []
    for e in range(30):
        for i in range(n):
            times.append(e * 1.0 + 0.003 * i)
            flows.append(i)
    assert M.loss_sync(times, flows, range(n), RTT) == pytest.approx(1.0)


def test_alternating_single_flow_events_give_one_over_n() -> None:
    """Each event signals one flow, a different one each time: 1/N."""
    for n in (2, 4, 7):
        times = [0.5 * e for e in range(40)]
        flows = [e % n for e in range(40)]
        assert M.loss_sync(times, flows, range(n), RTT) == pytest.approx(1 / n)


def test_events_group_signals_closer_than_the_rtt() -> None:
    """A chain of signals each less than an RTT after the previous is one event however
    long; a gap of exactly one RTT starts a new event; the signals of flows that are not
    long-lived are left out (flow 9's would join the two events). Events {0, 1} (over
    1.8 RTT) and {2} of 4 flows score 2/4 and 1/4."""
    step = 0.9 * RTT
    times = [0.0, step, 2 * step, 2 * step + RTT / 2, 2 * step + RTT]
    flows = [0, 1, 0, 9, 2]
    assert M.loss_sync(times, flows, [0, 1, 2, 3], RTT) == pytest.approx((2 / 4 + 1 / 4) / 2)


def test_sync_needs_two_long_lived_flows_and_a_signal() -> None:
    """With one long-lived flow the measure is meaningless; without signals undefined."""
    assert math.isnan(M.loss_sync([1.0, 2.0], [0, 0], [0], RTT))
    assert math.isnan(M.loss_sync([1.0], [5], [0, 1], RTT))


def test_jain() -> None:
    """Equal shares 1; one flow taking everything 1/n; (1, 3): 16 / (2 x 10) = 0.8."""
    assert M.jain([2.5, 2.5, 2.5]) == pytest.approx(1.0)
    assert M.jain([0, 0, 7.0, 0]) == pytest.approx(1 / 4)
    assert M.jain([1.0, 3.0]) == pytest.approx(0.8)
    assert math.isnan(M.jain([])) and math.isnan(M.jain([0.0, 0.0]))


def test_fair_shares() -> None:
    """Window [0, 30]: flows a, b throughout, c over [10, 20]: a and b have 1/2 for 20 s
    and 1/3 for 10 s (share (10 + 10/3) / 30 of the capacity each), c 1/3 for 10 s."""
    a, c = (10 + 10 / 3) / 30, (10 / 3) / 30
    got = M.fair_shares([(-5.0, 99.0), (0.0, 30.0), (10.0, 20.0)], 0.0, 30.0)
    assert got == pytest.approx([a, a, c]) and sum(got) == pytest.approx(1.0)
    assert M.fair_shares([(0.0, 1.0)] * 4, 0.0, 1.0) == pytest.approx([0.25] * 4)
    assert M.fair_shares([(0.0, 1.0), (2.0, 3.0)], 0.0, 1.0) == pytest.approx([1.0, 0.0])


def test_classes() -> None:
    """Web connections take their pool's class; sums and loss rates per class."""
    assert [M.class_of(n) for n in ("bulk", "web#3.7", None)] == ["bulk", "web", ""]
    cls = ["bulk", "udp", "bulk", "web"]
    assert M.class_sums(cls, [1, 2, 3, 4]) == {"bulk": 4.0, "udp": 2.0, "web": 4.0}
    loss = M.class_loss_rates(cls, [1, 5, 3, 0], [100, 10, 100, 0])
    assert loss["bulk"] == pytest.approx(4 / 200) and loss["udp"] == pytest.approx(0.5)
    assert math.isnan(loss["web"])


def test_goodput_ratio() -> None:
    """5.2: cubic/bulk, 5.4: ledbat/bulk, 6: rtt/ref (ECN variants alike); NaN
    elsewhere; infinite when only the denominator is zero."""
    g = {"cubic": 6e6, "bulk": 3e6, "ledbat": 1e6, "rtt": 2e6, "ref": 8e6}
    assert M.goodput_ratio("5.2", g) == pytest.approx(2.0)
    assert M.goodput_ratio("5.2+ecn", g) == pytest.approx(2.0)
    assert M.goodput_ratio("5.4", g) == pytest.approx(1 / 3)
    assert M.goodput_ratio("6", g) == pytest.approx(0.25)
    assert math.isnan(M.goodput_ratio("8.2.3", g))
    assert M.goodput_ratio("6", {"rtt": 1.0, "ref": 0.0}) == math.inf
    assert math.isnan(M.goodput_ratio("6", {}))


def test_fct() -> None:
    """Finite flows 1..20 s: mean 10.5, 95th percentile at rank 0.95 x 19 = 18.05
    between 19 and 20 (19.05). Connections (10 transfers, mean 1, p95 2) and (30, 2, 4):
    mean (10 + 60) / 40, percentile (20 + 120) / 40."""
    mean, p95 = M.fct([float(x) for x in range(20, 0, -1)], [])
    assert mean == pytest.approx(10.5) and p95 == pytest.approx(19.05)
    mean, p95 = M.fct([], [(10, 1.0, 2.0), (30, 2.0, 4.0), (0, None, None)])
    assert mean == pytest.approx(70 / 40) and p95 == pytest.approx(140 / 40)
    mean, p95 = M.fct([3.0], [(1, 1.0, None)])  # a row without its percentile
    assert mean == pytest.approx(2.0) and p95 == pytest.approx(3.0)
    assert all(math.isnan(x) for x in M.fct([], [(0, None, None)]))


def test_startup_mean() -> None:
    """Transfer-weighted: a flow of 0.3 s and a connection of 3 transfers at mean 0.1."""
    assert M.startup_mean([0.3], [(3, 0.1), (0, None)]) == pytest.approx(0.6 / 4)
    assert math.isnan(M.startup_mean([], []))


def _flow(i: int, name: str, goodput: float, **kw: Any) -> dict[str, Any]:
    f = {"id": i, "name": name, "type": "tcp", "start": 0.0, "goodput_bps": goodput}
    f.update({"drops": 0, "sent": 100, "completion_time": None})
    f.update(kw)
    return f


def _summary(flows: list[dict[str, Any]]) -> dict[str, Any]:
    link = {"arrivals": 1000, "drops": 20, "marks": 5, "utilization": 0.9}
    link.update({"mean_delay": 0.01, "delay_p50": 0.008, "delay_p95": 0.03, "delay_p99": 0.05})
    return {"warmup": 10.0, "duration": 60.0, "links": {"l->r": link}, "flows": flows}


def test_row_assembles_the_columns() -> None:
    """One run's row: totals from the summary, signals restricted to the window, the
    long-lived classes for Jain and synchronization, NaN for absent classes."""
    flows = [
        _flow(0, "ref", 6e6, drops=4, sent=200),
        _flow(1, "rtt", 2e6, drops=1, sent=100),
        _flow(2, "short", 1e5, start=15.0, completion_time=16.5, startup_time=0.2),
        dict(_flow(3, "web#3.0", 5e4), type="web", transfers=4, mean_fct=0.5, mean_startup=0.1),
    ]
    # events: {0, 1} at 20 s, {0} at 30 s; a signal before the warm-up is ignored
    times, ids = [5.0, 20.0, 20.01, 30.0, 30.05], [1, 0, 1, 0, 2]
    r = M.row(
        M.Layout("6", ("ref", "rtt", "udp"), ("ref", "rtt"), 0.1), _summary(flows), times, ids
    )
    assert r["goodput_bps"] == pytest.approx(6e6 + 2e6 + 1e5 + 5e4)
    assert r["loss_rate"] == pytest.approx(0.02) and r["mark_rate"] == pytest.approx(0.005)
    assert r["loss_interval_mean"] == pytest.approx((30.05 - 20.0) / 3)
    assert r["loss_sync"] == pytest.approx((1 + 1 / 2) / 2)
    assert r["jain"] == pytest.approx((8e6) ** 2 / (2 * (36e12 + 4e12)))
    assert r["goodput_ratio"] == pytest.approx(2 / 6)
    assert r["goodput_bps_ref"] == 6e6 and math.isnan(r["goodput_bps_udp"])
    assert r["class_loss_rate_ref"] == pytest.approx(0.02)
    assert r["fct_mean"] == pytest.approx((1.5 + 4 * 0.5) / 5)
    assert r["startup_mean"] == pytest.approx((0.2 + 4 * 0.1) / 5)
    assert r["utilization"] == 0.9 and r["delay_p99"] == 0.05


def test_row_jain_startup_and_pools() -> None:
    """Window [10, 60]. Two bulk flows throughout and two from 30 s to their stop at 40 s,
    each getting exactly its fair share (while four run, a quarter; otherwise a half):
    Jain's index is 1. A flow started before the warm-up has no start-up time here; the
    completion-time percentile weighs each pool's by all its transfers."""
    cap = 8e6
    both = cap * (40 / 2 + 10 / 4) / 50  # the whole-window goodput of a persistent flow
    part = cap * (10 / 4) / 50
    web = dict(type="web", mean_startup=0.1)
    flows = [
        _flow(0, "bulk", both, startup_time=0.05),
        _flow(1, "bulk", both, startup_time=0.05),
        _flow(2, "bulk", part, start=30.0, startup_time=0.3),
        _flow(3, "bulk", part, start=30.0, startup_time=0.5),
        dict(_flow(4, "web#0.0", 1e4), transfers=2, mean_fct=1.0, fct_p95=3.0, **web),
        dict(_flow(5, "web#0.1", 1e4), transfers=6, mean_fct=1.0, **web),
        dict(_flow(6, "burst#0.0", 1e4), transfers=4, mean_fct=2.0, fct_p95=5.0, **web),
    ]
    stops = {2: 40.0, 3: 40.0}
    r = M.row(M.Layout("8.2.5", ("bulk",), ("bulk",), 0.1), _summary(flows), [], [], stops=stops)
    assert r["jain"] == pytest.approx(1.0)
    plain = M.jain([both, both, part, part])
    assert plain < 0.8  # the plain index of the goodputs would call this unfair
    assert r["startup_mean"] == pytest.approx((0.3 + 0.5 + 12 * 0.1) / 14)
    assert r["fct_mean"] == pytest.approx((8 * 1.0 + 4 * 2.0) / 12)
    assert r["fct_p95"] == pytest.approx((8 * 3.0 + 4 * 5.0) / 12)
