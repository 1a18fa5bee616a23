"""Bonald, May & Bolot 2000 (the whole paper's models) as computed by aqmlab.analysis.bonald."""

import math
import time

import numpy as np
import pytest

from aqmlab.analysis import bonald

# Example 1 (Sec. II-A): K = 40, min_th = 20, max_th = 40, max_p = 1.
EX1 = dict(min_th=20, max_th=40, max_p=1.0)
# Example 2 (Sec. II-C): K = 40, min_th = 10, max_th = 30, max_p = 0.1.
EX2 = dict(min_th=10, max_th=30, max_p=0.1)


def test_taildrop_consecutive_drops_match_table_1():
    """Sec. III-A / Table I: Tail Drop's consecutive drops have mean 3 and variance 6 at rho = 2."""
    mean, var = bonald.consecutive_drops("taildrop", 2.0, 40)
    assert mean == pytest.approx(3.0, abs=1e-9)
    assert var == pytest.approx(6.0, abs=1e-9)


def test_taildrop_consecutive_drops_agree_with_exact_chain():
    """The memoryless argument of Sec. III-A agrees with the exact chain of drop runs for several rho."""
    for rho in (0.8, 2.0, 5.0):
        m = bonald.BonaldModel("taildrop", rho, 30)
        mean, var = m.consecutive_drops()[:2]
        assert m.consecutive_drops_exact() == pytest.approx((mean, var), rel=1e-9)


def test_taildrop_queue_moments_match_table_3():
    """Table III: Tail Drop's queue has mean 39.0 and variance 2.0 at rho = 2, K = 40."""
    mean, var = bonald.queue_moments("taildrop", 2.0, 40)
    assert mean == pytest.approx(39.0, abs=0.05)
    assert var == pytest.approx(2.0, abs=0.05)


def test_red_queue_moments_match_table_3():
    """Table III: RED (Example 1) has mean 29.0 and variance 10.0 at rho = 2 with the default convention."""
    mean, var = bonald.queue_moments("red", 2.0, 40, **EX1)
    assert mean == pytest.approx(29.0, abs=0.05)
    assert var == pytest.approx(10.0, abs=0.05)


def test_literal_eq5_reading_is_one_packet_off_table_3():
    """Eq. 5 read literally (d of the queue excluding the arrival) gives mean 30.0: one packet above Table III."""
    m = bonald.BonaldModel("red", 2.0, 40, convention="excluding", **EX1)
    mean, var = m.queue_moments()
    assert mean == pytest.approx(30.0, abs=0.05)
    assert var == pytest.approx(10.0, abs=0.05)
    assert abs(mean - 29.0) > 0.9


def test_chain_equals_closed_forms_for_poisson_input():
    """For B = 1 the Markov chain equals M/M/1/K (Sec. IV-A) and eq. 5 (Sec. IV-B), by both solvers."""
    for rho in (0.5, 1.0, 2.0):
        for method in ("cut", "lu"):
            td = bonald.BonaldModel("taildrop", rho, 40).distribution(method)
            assert np.allclose(td, bonald.mm1k_distribution(rho, 40), atol=1e-12)
            for conv in bonald.CONVENTIONS:
                red = bonald.BonaldModel("red", rho, 40, convention=conv, **EX1).distribution(
                    method
                )
                assert np.allclose(
                    red, bonald.red_eq5_distribution(rho, 40, convention=conv, **EX1), atol=1e-12
                )


def test_mm1k_loss_formula():
    """Sec. II-A: the chain's drop probability equals 1 - (1 - rho^K)/(1 - rho^(K+1))."""
    for rho in (0.5, 0.9, 1.5):
        K = 20
        formula = 1 - (1 - rho**K) / (1 - rho ** (K + 1))
        assert bonald.drop_probability("taildrop", rho, K) == pytest.approx(formula, rel=1e-9)
        assert bonald.mm1k_loss(rho, K) == pytest.approx(formula, rel=1e-9)


def test_taildrop_batch_drop_probability_is_the_papers_sum():
    """Sec. II-A: P_TD = pi(K) + pi(K-1)(B-1)/B + ... + pi(K-B+1)/B for batch arrivals."""
    K, B, rho = 40, 5, 0.9
    pi = bonald.queue_distribution("taildrop", rho, K, burst=B)
    paper = sum(pi[K - j] * (B - j) / B for j in range(B))
    assert bonald.drop_probability("taildrop", rho, K, burst=B) == pytest.approx(paper, rel=1e-9)


def test_red_drops_more_than_taildrop():
    """Sec. II-A: the drop probability is always higher with RED than with Tail Drop (Example 1, several B, rho)."""
    for B in (1, 3, 10):
        for rho in (0.3, 0.8, 1.0, 2.0):
            td = bonald.drop_probability("taildrop", rho, 40, burst=B)
            red = bonald.drop_probability("red", rho, 40, burst=B, **EX1)
            assert red >= td - 1e-12


def test_eq1_high_load_limit():
    """Eq. 1: for rho >> 1, P_RED ~ P_TD ~ 1 - 1/rho whatever the burst size."""
    rho = 50.0
    for B in (1, 5, 20):
        td = bonald.drop_probability("taildrop", rho, 40, burst=B)
        red = bonald.drop_probability("red", rho, 40, burst=B, **EX1)
        assert red == pytest.approx(1 - 1 / rho, abs=1 / rho)
        assert td == pytest.approx(1 - 1 / rho, abs=1 / rho)


def test_taildrop_is_biased_against_bursty_traffic():
    """Sec. II-B: with Tail Drop P(b) > P(s); the load-weighted mean is the overall drop probability."""
    f = 0.5
    pb, ps = bonald.class_drop_probabilities("taildrop", 2.0, 40, burst=3, bursty_fraction=f)
    assert pb > ps
    total = bonald.drop_probability("taildrop", 2.0, 40, burst=3, bursty_fraction=f)
    assert total == pytest.approx(f * pb + (1 - f) * ps)


def test_red_has_no_bias_and_matches_fig5():
    """Sec. II-B / Fig. 5: with RED (Example 2, rho = 2) P(b) = P(s) ~ 0.5, the Tail Drop average (eq. 2)."""
    for f in (0.1, 0.5, 0.9):
        pb, ps = bonald.class_drop_probabilities("red", 2.0, 40, burst=3, bursty_fraction=f, **EX2)
        assert pb == pytest.approx(ps, rel=1e-6)
        assert pb == pytest.approx(0.5, abs=0.02)
        td = bonald.drop_probability("taildrop", 2.0, 40, burst=3, bursty_fraction=f)
        assert pb == pytest.approx(td, abs=0.02)


def test_red_eq4_consecutive_drops_and_table_1():
    """Table I prints RED 2.3/4.1; eq. 4 gives 2.52/6.60 (printed variance formula 5.21); the exact chain 2.10/2.65."""
    m = bonald.BonaldModel("red", 2.0, 40, **EX1)
    cd = m.consecutive_drops()
    # eq. 4's mean, recomputed as the sum of its survival function
    n = np.arange(0, 400)
    assert cd.mean == pytest.approx(m.consecutive_drop_survival(n).sum(), rel=1e-9)
    # the paper's own mean expression 1 + sum pi d^2/(1-d) / sum pi d
    pi, d = m.distribution(), m.arrival_drop()
    ok = d < 1
    paper_mean = 1 + (pi[ok] * d[ok] ** 2 / (1 - d[ok])).sum() / (pi[ok] * d[ok]).sum()
    assert cd.mean == pytest.approx(paper_mean, rel=1e-9)
    assert cd.excluded_share < 1e-3
    assert cd.variance > cd.variance_paper_formula  # the printed formula omits var(E[N | k])
    # Approximation 2 is an upper bound; Table I's 2.3 lies between the exact chain and eq. 4
    exact_mean, exact_var = m.consecutive_drops_exact()
    assert exact_mean < 2.3 < cd.mean
    run = m.consecutive_drops("run")
    assert exact_mean < run.mean < cd.mean
    assert (
        round(cd.mean, 2) == 2.52 and round(cd.variance, 1) == 6.6
    )  # documented in docs/analysis.md


def test_consecutive_drops_do_not_depend_on_the_convention():
    """Eq. 4's mean and variance are the same under both conventions (one shifts the other by a packet)."""
    a = bonald.BonaldModel("red", 2.0, 40, convention="including", **EX1).consecutive_drops()
    b = bonald.BonaldModel("red", 2.0, 40, convention="excluding", **EX1).consecutive_drops()
    assert a.mean == pytest.approx(b.mean, rel=1e-6) and a.variance == pytest.approx(
        b.variance, rel=1e-6
    )


def test_consecutive_drops_infinite_when_max_th_below_K():
    """Sec. III-C: with max_th < K, Approximation 2 makes runs infinite with positive probability."""
    m = bonald.BonaldModel("red", 2.0, 40, **EX2)
    cd = m.consecutive_drops()
    assert math.isinf(cd.mean) and cd.excluded_share > 0.5
    tail = m.consecutive_drop_survival(np.array([1000]))[0]
    assert tail >= cd.excluded_share - 1e-12
    assert math.isfinite(m.consecutive_drops_exact()[0])


def test_consecutive_drop_pmf_sums_to_one():
    """The pmf of Fig. 8 (eq. 4 and Sec. III-A) sums to one over enough n."""
    for policy, kw in (("taildrop", {}), ("red", EX1)):
        pmf = bonald.consecutive_drop_pmf(policy, 2.0, 40, n_max=300, **kw)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-9)
        assert np.all(pmf >= 0)


def test_exact_run_lengths_match_a_simulation():
    """consecutive_drops_exact agrees with a direct simulation of the Poisson/exponential RED queue."""
    rng = np.random.default_rng(7)
    m = bonald.BonaldModel("red", 2.0, 40, **EX1)
    d = m.arrival_drop()
    n_events = 150_000
    u = rng.random((n_events, 2))
    q, run, runs = 30, 0, []
    p_dep = 1.0 / 3.0  # mu / (lambda + mu)
    for a, b in u:
        if a < p_dep:  # a service completion (ignored when empty: uniformisation)
            q = q - 1 if q > 0 else 0
            continue
        if b < d[q]:
            run += 1
        else:
            if run:
                runs.append(run)
                run = 0
            q += 1
    runs = np.array(runs)
    mean, var = m.consecutive_drops_exact()
    se = math.sqrt(var / len(runs))
    assert abs(runs.mean() - mean) < 4 * se
    assert runs.var() == pytest.approx(var, rel=0.1)


def test_batch_red_drop_probability_counts_overflow():
    """With B > 1 RED's drop probability is the paper's sum pi(k) d(k) plus the overflow that sum neglects."""
    m = bonald.BonaldModel("red", 1.0, 40, burst=10, **EX1)
    pi, d = m.distribution(), m.arrival_drop()
    paper = float(pi @ d)
    got = m.drop_probabilities().total
    assert got >= paper - 1e-12
    assert got == pytest.approx(paper, rel=0.2)


def test_large_K_is_fast_and_normalised():
    """K = 3000 with bursts of 20 solves in well under a second and sums to one."""
    t0 = time.perf_counter()
    pi = bonald.queue_distribution("red", 0.95, 3000, min_th=500, max_th=3000, max_p=0.5, burst=20)
    assert time.perf_counter() - t0 < 2.0
    assert len(pi) == 3001 and pi.sum() == pytest.approx(1.0) and np.all(pi >= 0)
    td = bonald.queue_distribution("taildrop", 2.0, 3000)
    assert np.allclose(td, bonald.mm1k_distribution(2.0, 3000), atol=1e-12)


def test_summary_for_simulation_comparison():
    """summary() gathers every prediction a simulation can be compared with."""
    s = bonald.BonaldModel("red", 2.0, 40, **EX1).summary()
    for key in (
        "drop_probability",
        "queue_mean",
        "queue_variance",
        "consecutive_drops_mean_exact",
        "consecutive_drops_mean_runs",
        "consecutive_drops_mean_eq4",
    ):
        assert key in s


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(policy="red", rho=0, K=40, min_th=20, max_p=1), "rho"),
        (dict(policy="red", rho=-1, K=40, min_th=20, max_p=1), "rho"),
        (dict(policy="taildrop", rho=1, K=0), "K"),
        (dict(policy="red", rho=1, K=40, min_th=30, max_th=20, max_p=1), "min_th"),
        (dict(policy="red", rho=1, K=40, min_th=40, max_p=1), "min_th"),
        (dict(policy="red", rho=1, K=40, min_th=20, max_p=0), "max_p"),
        (dict(policy="red", rho=1, K=40, max_p=0.1), "min_th"),
        (dict(policy="fifo", rho=1, K=40), "policy"),
        (dict(policy="taildrop", rho=1, K=40, burst=0), "burst"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, name):
    """Bad inputs (rho <= 0, K < 1, min_th >= max_th, ...) raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=name):
        bonald.queue_distribution(**kwargs)
