"""The list of the n most recently marked packets and the flows it flags
(aqmlab.analysis.misbehaving, Floyd & Jacobson 1993 Section X), on synthetic traces
whose answer is known by construction."""

import math

import numpy as np
import pandas as pd
import pytest

from aqmlab import analysis
from aqmlab.analysis import misbehaving as mb


def _trace(flows, times=None, link="g->d", event="x", ack=0):
    """A packets trace with one event per entry of `flows`."""
    k = len(flows)
    t = np.arange(k, dtype=float) * 0.01 if times is None else np.asarray(times, dtype=float)
    return pd.DataFrame(
        {
            "time": t,
            "link": link,
            "event": event,
            "flow": np.asarray(flows),
            "seq": np.arange(k),
            "size": 1000,
            "ack": ack,
            "ce": 0,
        }
    )


def _iid_marks(shares, k, seed):
    rng = np.random.default_rng(seed)
    return rng.choice(len(shares), size=k, p=np.asarray(shares) / np.sum(shares))


def test_counts_equal_a_brute_force_window():
    rng = np.random.default_rng(3)
    flows = rng.integers(0, 5, size=300)
    n = 17
    rm = mb.recent_marks(flows, n)
    assert list(rm.flows) == [0, 1, 2, 3, 4]
    for k in range(len(flows)):
        window = flows[max(0, k - n + 1) : k + 1]
        assert rm.listed[k] == len(window)
        for j, f in enumerate(rm.flows):
            assert rm.counts[k, j] == np.sum(window == f)
    # every list holds exactly `listed` marks
    assert np.array_equal(rm.counts.sum(axis=1), rm.listed)
    assert np.allclose(rm.shares().sum(axis=1), 1.0)


def test_flows_argument_orders_columns_and_rejects_unknown_marks():
    rm = mb.recent_marks([2, 7, 2], 2, flows=[7, 2, 9])
    assert list(rm.flows) == [7, 2, 9]
    assert rm.counts[-1].tolist() == [1, 1, 0]
    with pytest.raises(ValueError, match="not in flows"):
        mb.recent_marks([1, 2], 2, flows=[1])
    with pytest.raises(ValueError, match="n must be"):
        mb.recent_marks([1, 2], 0)


def test_a_flow_with_half_the_marks_is_flagged_and_fair_flows_are_not():
    # flow 0 owns 50% of the marks, ten flows share the rest at 5% each
    shares = [0.5] + [0.05] * 10
    flows = _iid_marks(shares, 5000, seed=1)
    res = mb.identify_misbehaving(_trace(flows), n=100, reference_share=1 / 11, alpha=0.01)
    per = res["per_flow"].set_index("flow")
    th = mb.flag_threshold(100, 1 / 11, 0.01)
    assert per.loc[0, "threshold"] == pytest.approx(th)
    assert per.loc[0, "flagged_fraction"] > 0.99
    assert per.drop(index=0)["flagged_fraction"].max() == 0.0
    assert per.loc[0, "mark_share"] == pytest.approx(0.5, abs=0.03)
    # the flagged column lists flow 0 at (nearly) every full list
    assert np.mean([0 in f for f in res["flagged"]["flagged"]]) > 0.99


def test_default_reference_is_the_fair_share_of_the_flows_seen():
    flows = _iid_marks([1, 1, 1, 1], 400, seed=2)
    res = mb.identify_misbehaving(_trace(flows), n=50, alpha=0.05)
    for th in res["thresholds"].values():
        assert th == pytest.approx(0.25 + math.sqrt(math.log(20) / 100))


def test_false_flag_rate_at_the_reference_share_stays_below_alpha():
    # marks i.i.d. with every flow exactly at the reference share: Hoeffding caps the
    # probability of a flag at each mark by alpha (the empirical rate is far lower)
    n, alpha, n_flows = 50, 0.05, 5
    flows = _iid_marks([1] * n_flows, 20000, seed=4)
    res = mb.identify_misbehaving(_trace(flows), n=n, reference_share=1 / n_flows, alpha=alpha)
    assert res["per_flow"]["flagged_fraction"].max() <= alpha
    # and the per-flow bound reported is 1 - nothing, just alpha's exponent
    th = mb.flag_threshold(n, 1 / n_flows, alpha)
    assert mb.false_flag_bound(n, 1 / n_flows, th) == pytest.approx(alpha)


def test_fixed_threshold_and_larger_n_reduce_false_flags():
    # a well-behaved flow at 10% against a threshold of 20%: flagged less often with
    # longer lists (Section X: "when the number of marked packets is sufficiently large")
    shares = [0.1] + [0.9 / 9] * 9
    flows = _iid_marks(shares, 20000, seed=5)
    rates = []
    for n in (10, 40, 160):
        res = mb.identify_misbehaving(_trace(flows), n=n, threshold=0.2)
        rates.append(res["per_flow"].set_index("flow").loc[0, "flagged_fraction"])
        assert rates[-1] <= mb.false_flag_bound(n, 0.1, 0.2) + 0.01
    assert rates[0] > rates[1] > rates[2]


def test_false_flag_bound_is_the_section_x_bound_at_c_times_p():
    for p in (0.05, 0.1, 0.2):
        for c in (2, 4):
            if c * p <= 1:
                assert mb.false_flag_bound(100, p, c * p) == pytest.approx(
                    analysis.hoeffding_bound(p, c, 100)
                )
    assert mb.false_flag_bound(100, 0.3, 0.2) == 1.0
    assert np.allclose(mb.false_flag_bound(10, np.array([0.1, 0.5]), 0.5), [math.exp(-3.2), 1.0])


@pytest.mark.slow
def test_exceedance_matches_the_binomial_tail_for_iid_marks():
    from aqmlab.analysis.floyd import binomial_tail

    p, n = 0.2, 100
    flows = _iid_marks([p, 1 - p], 50000, seed=6)
    rm = mb.recent_marks(flows, n)
    emp = rm.exceedance(0, 1.5 * p * n)
    assert emp == pytest.approx(binomial_tail(p, 1.5, n), abs=0.02)
    assert emp <= analysis.hoeffding_bound(p, 1.5, n)


def test_marks_from_trace_selects_link_events_and_acks():
    a = _trace([1, 2, 3], times=[0.3, 0.1, 0.2])
    b = _trace([4], times=[0.05], link="d->g")
    c = _trace([5], times=[0.15], ack=1)
    d = _trace([6], times=[0.25], event="m")
    e = _trace([7], times=[0.12], event="a")
    pk = pd.concat([a, b, c, d, e], ignore_index=True)
    m = mb.marks_from_trace(pk, link="g->d")
    assert m["flow"].tolist() == [2, 3, 6, 1]  # time order, drops and ECN marks, no ACK, no arrival
    assert mb.marks_from_trace(pk, link="g->d", include_acks=True)["flow"].tolist() == [
        2,
        5,
        3,
        6,
        1,
    ]
    assert mb.marks_from_trace(pk, link="g->d", events=("x",), start=0.15)["flow"].tolist() == [
        3,
        1,
    ]
    with pytest.raises(ValueError, match="give link"):
        mb.marks_from_trace(pk)
    with pytest.raises(ValueError, match="columns"):
        mb.marks_from_trace(pd.DataFrame({"time": [0.0]}))


def test_packet_shares_sum_to_one():
    flows = [1] * 30 + [2] * 10
    pk = _trace(flows, event="d")
    s = mb.packet_shares(pk, link="g->d")
    assert s == {1: 0.75, 2: 0.25}
    pk.loc[pk["flow"] == 2, "size"] = 3000
    assert mb.packet_shares(pk, link="g->d", by="bytes") == {1: 0.5, 2: 0.5}


def test_identify_uses_throughput_shares_from_the_trace():
    # flow 1 sends 3 of 4 packets; its marks follow; per-flow bound uses that share
    dep = _trace([1, 1, 1, 2] * 500, event="d")
    marks = _trace(list(_iid_marks([0.75, 0.25], 2000, seed=7) + 1))
    res = mb.identify_misbehaving(pd.concat([dep, marks], ignore_index=True), n=100, link="g->d")
    per = res["per_flow"].set_index("flow")
    assert per.loc[1, "throughput_share"] == pytest.approx(0.75)
    assert per.loc[1, "mark_share"] == pytest.approx(0.75, abs=0.03)
    assert per.loc[1, "flagged_fraction"] > 0.99 and per.loc[2, "flagged_fraction"] == 0.0


def test_argument_validation():
    with pytest.raises(ValueError, match="alpha"):
        mb.flag_threshold(100, 0.1, 1.5)
    with pytest.raises(ValueError, match="reference_share"):
        mb.flag_threshold(100, -0.1)
    with pytest.raises(ValueError, match="share"):
        mb.false_flag_bound(10, 1.5, 0.5)
    with pytest.raises(ValueError, match="threshold"):
        mb.identify_misbehaving(_trace([1, 2]), n=1, threshold=0.0)
