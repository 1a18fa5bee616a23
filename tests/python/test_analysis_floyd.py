"""Floyd & Jacobson 1993 (Sections VI, VII, X, Appendix) as computed by aqmlab.analysis."""

import math

import numpy as np
import pytest

from aqmlab import analysis
from aqmlab.analysis import floyd


def test_eq2_burst_average_matches_paper():
    """Eq. 2 for w_q = 0.001, L = 100 gives the paper's 4.88 packets (4.887, printed truncated)."""
    avg = analysis.red_burst_average(0.001, 100)
    assert avg == pytest.approx(floyd.red_burst_average_sum(0.001, 100), rel=1e-12)
    assert math.floor(avg * 100) / 100 == 4.88
    assert abs(avg - 4.88) < 0.01


def test_eq2_closed_form_equals_sum_on_a_grid():
    """The closed form of eq. 2 equals its defining sum over a grid of w_q and L (Fig. 7's axes)."""
    for w in (0.001, 0.002, 0.003, 0.005, 0.2, 1.0):
        for L in (1, 10, 50, 100):
            assert analysis.red_burst_average(w, L) == pytest.approx(
                floyd.red_burst_average_sum(w, L), rel=1e-9
            )


def test_eq2_vectorised():
    """red_burst_average broadcasts over numpy arrays."""
    w = np.array([0.001, 0.002, 0.005])
    L = np.array([[10], [100]])
    out = analysis.red_burst_average(w, L)
    assert out.shape == (2, 3)
    assert out[1, 0] == pytest.approx(analysis.red_burst_average(0.001, 100))


def test_eq3_largest_w_q_matches_paper():
    """Eq. 3 for min_th = 5, L = 50 gives w_q <= 0.0042, and at that w_q avg_L equals min_th."""
    w = analysis.red_max_w_q(5, 50)
    assert round(w, 4) == 0.0042
    assert analysis.red_burst_average(w, 50) == pytest.approx(5.0, rel=1e-9)
    assert analysis.red_burst_average(w * 0.999, 50) < 5.0


def test_eq3_no_constraint_when_min_th_exceeds_burst():
    """When min_th >= L no w_q lets the burst reach min_th: the bound is 1."""
    assert analysis.red_max_w_q(60, 50) == 1.0


def test_time_constants_match_paper():
    """-1/ln(1-w_q) is within one arrival of the paper's 1000, 500 and 333 (which are 1/w_q)."""
    for w, paper in ((0.001, 1000), (0.002, 500), (0.003, 333)):
        tc = analysis.ewma_time_constant(w)
        assert abs(tc - paper) < 1.0
        assert floyd.ewma_step_response(w, tc) == pytest.approx(1 - 1 / math.e, rel=1e-12)
        assert analysis.ewma_w_q_for_time_constant(tc) == pytest.approx(w, rel=1e-12)


def test_method1_geometric_pmf_and_mean():
    """Method 1: Prob[X = n] = (1-p_b)^(n-1) p_b sums to 1 with mean 1/p_b."""
    p = 0.02
    n = np.arange(1, 5000)
    pmf = analysis.intermark_pmf_geometric(n, p)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert (n * pmf).sum() == pytest.approx(floyd.intermark_mean_geometric(p), rel=1e-9)
    assert floyd.intermark_mean_geometric(p) == pytest.approx(50.0)


def test_method2_uniform_pmf_from_the_product():
    """Method 2's product formula telescopes to p_b on {1..1/p_b} and 0 beyond, mean 1/(2 p_b) + 1/2."""
    for p in (0.1, 0.05, 0.01, 0.25):
        m = round(1 / p)
        n = np.arange(1, m + 5)
        pmf = analysis.intermark_pmf_uniform(n, p)
        assert np.allclose(pmf[:m], p, rtol=1e-9)
        assert np.all(pmf[m:] == 0)
        assert analysis.intermark_mean_uniform(p) == pytest.approx(1 / (2 * p) + 0.5, rel=1e-9)


def test_method2_non_integer_inverse_still_a_distribution():
    """With 1/p_b not an integer, Method 2 (p_a clamped at 1) is still a distribution."""
    p = 0.3
    pmf = analysis.intermark_pmf_uniform(np.arange(1, 10), p)
    assert pmf.sum() == pytest.approx(1.0)
    assert np.allclose(pmf[:3], p)


def test_fig8_both_methods_mark_about_100_of_5000():
    """Fig. 8: Method 1 with p = 0.02 and Method 2 with p = 0.01 both mark roughly 100 of 5000 packets."""
    m1 = 5000 / floyd.intermark_mean_geometric(0.02)
    m2 = 5000 / analysis.intermark_mean_uniform(0.01)
    assert 95 <= m1 <= 105 and 95 <= m2 <= 105


def test_section7_marking_rates_quoted_in_the_text():
    """Sec. VII: halfway with max_p = 1/50 about one in 50 is marked; near max_th with max_p = 0.1 close to 1/5."""
    halfway = floyd.red_initial_probability(15.0, 10.0, 20.0, 1 / 50)
    assert analysis.intermark_mean_uniform(halfway) == pytest.approx(50, rel=0.02)
    near_max = floyd.red_initial_probability(19.999, 10.0, 20.0, 0.1)
    assert 1 / analysis.intermark_mean_uniform(near_max) == pytest.approx(1 / 5, rel=0.1)


def test_marking_probability_clamps():
    """p_a = p_b / (1 - count p_b) grows with count and is clamped to 1 once count p_b >= 1."""
    pa = floyd.red_marking_probability(0.1, np.arange(12))
    assert pa[0] == pytest.approx(0.1)
    assert np.all(np.diff(pa) >= 0)
    assert pa[9] == 1.0 and pa[10] == 1.0


def test_hoeffding_bound_is_a_bound():
    """Sec. X / Fig. 16: the bound (and the Appendix's tighter form) exceed the exact binomial tail, n = 100."""
    for c in (2, 4):
        p = np.linspace(0.01, 1 / c, 25)
        simple = analysis.hoeffding_bound(p, c, 100)
        tight = analysis.hoeffding_bound_kl(p, c, 100)
        exact = floyd.binomial_tail(p, c, 100)
        assert np.all(simple >= tight - 1e-15)
        assert np.all(tight >= exact - 1e-12)
        assert np.all(np.diff(simple) <= 0)  # Fig. 16 falls with p
    assert analysis.hoeffding_bound(0.1, 2, 100) == pytest.approx(math.exp(-2.0))


def test_hoeffding_bound_rejects_c_outside_range():
    """c must be in [1, 1/p]; the message names c."""
    with pytest.raises(ValueError, match="c must be"):
        analysis.hoeffding_bound(0.5, 3, 100)
    with pytest.raises(ValueError, match="p must be"):
        analysis.hoeffding_bound(0.0, 2, 100)
    with pytest.raises(ValueError, match="n must be"):
        analysis.hoeffding_bound(0.1, 2, 0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: analysis.red_burst_average(0, 10), "w_q"),
        (lambda: analysis.red_burst_average(0.1, 0), "burst"),
        (lambda: analysis.red_max_w_q(-1, 10), "min_th"),
        (lambda: analysis.red_max_w_q(5, 2.5), "burst"),
        (lambda: analysis.ewma_time_constant(1.5), "w_q"),
        (lambda: floyd.red_initial_probability(5, 10, 10, 0.1), "min_th"),
        (lambda: analysis.intermark_pmf_uniform(3, 0), "p_b"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    """Bad inputs raise ValueError whose message names the argument."""
    with pytest.raises(ValueError, match=name):
        call()
