"""Zheng & Atiquzzaman 2008 (Sections 3-4): the bounds on w and their inputs from a queue trace."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from aqmlab import analysis
from aqmlab.analysis import zheng

# Section 4.3's example: b, K_l, q0, l1, g, m2 (lower), m2 (upper).
EXAMPLE = (4, 5, 5, 14, 16, 30, 65)


def paper_model_trace(l1=14, q0=5.0, b=4.0, n=3000):
    """q(i) = g(i) f(i) (eq. 1): triangular g of slope 1 and half-period l1, f alternating q0, b q0 (eq. 10)."""
    i = np.arange(1, n + 1)
    g = l1 - np.abs((i % (2 * l1)) - l1)
    f = np.where(i % 2 == 1, q0, b * q0)
    return g * f


def test_upper_bound_matches_paper():
    """Eq. 21 for the Sec. 4.3 example gives 0.0707, the paper's 0.071."""
    lower, upper = analysis.zheng_w_bounds(*EXAMPLE)
    assert round(upper, 3) == 0.071


def test_upper_bound_closed_form_solves_eq20():
    """Eq. 21 is the root of eq. 20 (K_l = q0 l1 (b+2)/2 (1-w)^(m2-l1)) found numerically."""
    b, K_l, q0, l1, g, _, m2 = EXAMPLE
    root = optimize.brentq(lambda w: zheng.zheng_delta_upper(w, b, q0, l1, m2) - K_l, 1e-9, 0.999)
    assert analysis.zheng_w_bounds(*EXAMPLE)[1] == pytest.approx(root, rel=1e-9)


def test_lower_bound_is_the_larger_root_of_eq14():
    """Eq. 14's larger root is 0.0438 (the paper prints 0.045): delta equals K_l there and falls beyond."""
    b, K_l, q0, l1, g, m2, _ = EXAMPLE
    lower = analysis.zheng_w_bounds(*EXAMPLE)[0]
    assert zheng.zheng_delta_lower(lower, b, q0, g, m2) == pytest.approx(K_l, rel=1e-9)
    assert lower > 1 / (m2 - 1)  # right of the peak of (1-w)^(m2-2) w
    assert zheng.zheng_delta_lower(lower * 1.01, b, q0, g, m2) < K_l
    assert round(lower, 4) == 0.0438
    assert abs(lower - 0.045) > 0.001  # the documented difference from the printed 0.045


def test_unapproximated_equations():
    """Eq. 12 gives 0.0424; eq. 15 summed gives tracking only for w in [0.0048, 0.0445]; eq. 18 implies b + 1."""
    ex = analysis.zheng_w_bounds_exact(*EXAMPLE)
    b, K_l, q0, l1, g, m2_lo, m2_up = EXAMPLE
    assert zheng.zheng_delta_lower_eq12(ex["lower_eq12"], b, q0, g, m2_lo) == pytest.approx(
        K_l, rel=1e-9
    )
    assert zheng.zheng_delta_upper_eq15(ex["upper_eq15"], b, q0, l1, m2_up) == pytest.approx(
        K_l, rel=1e-9
    )
    assert zheng.zheng_delta_upper_eq15(ex["upper_eq15_lowest"], b, q0, l1, m2_up) == pytest.approx(
        K_l, rel=1e-9
    )
    assert ex["upper_eq15_lowest"] < ex["upper_eq15"] < analysis.zheng_w_bounds(*EXAMPLE)[1]
    assert ex["lower_eq14_small_root"] < 1 / (m2_lo - 1) < ex["lower_eq12"]
    assert ex["upper_eq21_b_plus_1"] < analysis.zheng_w_bounds(*EXAMPLE)[1]


def test_eq15_direct_sum_matches_eq8():
    """Eq. 15 equals eq. 8 summed with g(i) = i and f from eq. 10."""
    b, q0, l1, m2, w = 4.0, 5.0, 14, 65, 0.03
    i = np.arange(1, l1 + 1)
    f = q0 * ((1 - (-1.0) ** i) / 2 + b * (1 - (-1.0) ** (i - 1)) / 2)
    eq8 = np.sum((1 - w) ** (m2 - i) * w * i * f)
    assert zheng.zheng_delta_upper_eq15(w, b, q0, l1, m2) == pytest.approx(eq8, rel=1e-12)


def test_no_constraint_and_infeasible_cases():
    """Lower bound 0 when delta never reaches K_l; upper bound 0 when even w -> 0 cannot track."""
    assert analysis.zheng_w_bounds(4, 5, 5, 14, 16, 31, 65)[0] == 0.0  # peak of eq. 14 below K_l
    assert analysis.zheng_w_bounds(4, 500, 5, 14, 16, 30, 65)[1] == 0.0


def test_estimator_recovers_the_model_inputs():
    """On a trace drawn from the paper's own model the estimator recovers l1 exactly and b, q0 within 10 %."""
    inp = analysis.estimate_zheng_inputs(paper_model_trace())
    assert inp.l1 == pytest.approx(14)
    assert inp.b == pytest.approx(4.0, rel=0.1)
    assert inp.q0 == pytest.approx(5.0, rel=0.1)
    assert inp.m2_lower == pytest.approx(14, abs=1)
    assert inp.g == pytest.approx(13, rel=0.1)  # g(m-bar) = m-bar = m2_lower - 1 on the first rise


def test_estimator_scales_with_calculations_per_sample():
    """Sampling every k-th calculation scales l1 and m2 by k and q0 by 1/k."""
    a = analysis.estimate_zheng_inputs(paper_model_trace())
    b = analysis.estimate_zheng_inputs(paper_model_trace(), calculations_per_sample=3)
    assert (
        b.l1 == pytest.approx(3 * a.l1)
        and b.q0 == pytest.approx(a.q0 / 3)
        and b.b == pytest.approx(a.b)
    )


def test_estimator_reads_simulator_parquet(tmp_path):
    """A Parquet queue trace in the simulator's layout (time, link, queue, avg) is read, one link chosen."""
    q = paper_model_trace()
    df = pd.DataFrame({"time": np.arange(len(q)) * 1e-3, "link": "r1->r2", "queue": q, "avg": 0.0})
    other = df.assign(link="r2->r1", queue=0.0)
    path = tmp_path / "trace_queue.parquet"
    pd.concat([df, other]).to_parquet(path, index=False)
    from_file = analysis.estimate_zheng_inputs(str(path), link="r1->r2")
    assert from_file == analysis.estimate_zheng_inputs(q)
    with pytest.raises(ValueError, match="link"):
        analysis.estimate_zheng_inputs(str(path))
    res = analysis.zheng_bounds_from_trace(str(path), 5, link="r1->r2")
    assert set(res) >= {"inputs", "lower", "upper", "feasible"}


def test_estimator_rejects_unusable_traces():
    """Short, constant or aperiodic traces raise ValueError saying why."""
    with pytest.raises(ValueError, match="trace"):
        analysis.estimate_zheng_inputs(np.ones(10))
    with pytest.raises(ValueError, match="trace"):
        analysis.estimate_zheng_inputs(np.full(500, 7.0))
    with pytest.raises(ValueError, match="trace"):
        analysis.estimate_zheng_inputs(np.linspace(1, 100, 500))


@pytest.mark.parametrize(
    "args, name",
    [
        ((-1, 5, 5, 14, 16, 30, 65), "b"),
        ((4, 0, 5, 14, 16, 30, 65), "K_l"),
        ((4, 5, 5, 14, 16, 2, 65), "m2_lower"),
        ((4, 5, 5, 14, 16, 30, 14), "m2_upper"),
        ((4, 5, 5, 14, -16, 30, 65), "g"),
    ],
)
def test_bad_arguments_name_the_argument(args, name):
    """Bad inputs raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=name):
        analysis.zheng_w_bounds(*args)


def test_bounds_are_finite_for_many_inputs():
    """Eqs. 14 and 21 give finite bounds in [0, 1) over a grid of inputs ("any inputs")."""
    for b in (1.5, 4, 10):
        for m2 in (5, 30, 100):
            lo, up = analysis.zheng_w_bounds(b, 5, 5, 4, 3, m2, m2 + 10)
            assert 0 <= lo < 1 and 0 <= up < 1 and math.isfinite(lo + up)
