"""Adaptive RED (Floyd, Gummadi & Shenker 2001, Sections 4.1-4.3 and 6) as computed by aqmlab.analysis."""

import math

import pytest

from aqmlab import analysis
from aqmlab.analysis import ared


def test_auto_parameters_follow_the_formulas():
    """w_q = 1 - exp(-1/C), min_th = max(5, d C / 2), max_th = 3 min_th, with C = rate / (8 size)."""
    p = analysis.ared_auto_parameters(100e6, 500, 0.005)
    C = 100e6 / (8 * 500)
    assert p["C"] == pytest.approx(C)
    assert p["w_q"] == pytest.approx(1 - math.exp(-1 / C), rel=1e-12)
    assert p["min_th"] == pytest.approx(max(5, 0.005 * C / 2))
    assert p["max_th"] == pytest.approx(3 * p["min_th"])
    assert set(p) >= {"min_th", "max_th", "w_q"}


def test_auto_w_q_time_constant_is_one_second():
    """The automatic w_q's time constant is C arrivals, one second at full load (Sec. 4.3)."""
    for rate in (1e6, 15e6, 1e9, 1e11):
        p = analysis.ared_auto_parameters(rate)
        assert analysis.ewma_time_constant(p["w_q"]) / p["C"] == pytest.approx(1.0, rel=1e-9)


def test_auto_w_q_for_15_mbps_matches_paper():
    """Sec. 3: the automatic w_q for a 15 Mb/s link (500-byte packets) is the paper's 0.00027."""
    assert round(analysis.ared_auto_parameters(15e6)["w_q"], 5) == 0.00027


def test_500_arrivals_are_a_fiftieth_of_an_rtt_at_1_gbps():
    """Sec. 4.3: at 1 Gb/s with 500-byte packets, w_q = 0.002's 500 arrivals are 1/50 of a 100 ms RTT."""
    C = analysis.link_capacity_pkts(1e9, 500)
    assert analysis.ewma_time_constant(0.002) / C / 0.100 == pytest.approx(1 / 50, rel=2e-3)


def test_min_th_worked_example_is_the_formula_without_the_half():
    """Sec. 6 prints 12.5 and 125 packets for 10 and 100 Mb/s: that is delay_target*C; the formula gives half."""
    for rate, paper in ((10e6, 12.5), (100e6, 125.0)):
        p = analysis.ared_auto_parameters(rate, 500, 0.005)
        assert p["min_th_worked_example"] == pytest.approx(paper)
        assert p["min_th"] == pytest.approx(paper / 2)
        # the formula is the one that gives the stated target delay
        assert p["target_delay_s"] == pytest.approx(0.005)


def test_min_th_floor_of_five_packets():
    """On a slow link min_th is 5 packets and the target delay is missed (flagged)."""
    p = analysis.ared_auto_parameters(1e6, 1500, 0.005)
    assert p["min_th"] == 5.0 and p["min_th_floor_applied"]
    assert p["target_delay_s"] > 0.005


def test_target_band():
    """Fig. 10's target band is [1.8, 2.2] min_th when max_th = 3 min_th."""
    assert analysis.ared_target_band(10, 30) == pytest.approx((18.0, 22.0))


def test_adaptation_up_time_matches_paper():
    """Sec. 4.2: at least 0.49/alpha = 49 intervals, 24.5 s, for max_p to climb from 0.01 to 0.5."""
    t = analysis.ared_adaptation_times()
    assert t["up_intervals_bound"] == pytest.approx(49.0)
    assert t["up_s_bound"] == pytest.approx(24.5)


def test_adaptation_down_time_differs_from_paper():
    """Sec. 4.2's formula log(0.02)/log(0.9) gives 37.1 intervals = 18.6 s, not the printed 20.1 s."""
    t = analysis.ared_adaptation_times()
    assert t["down_intervals_bound"] == pytest.approx(math.log(0.02) / math.log(0.9))
    assert t["down_s_bound"] == pytest.approx(18.56, abs=0.01)
    assert abs(t["down_s_bound"] - 20.1) > 1.0  # documented in docs/analysis.md


def test_adaptation_exact_step_counts():
    """With alpha = min(0.01, max_p/4) recomputed each step the climb takes 53 steps; the descent 38."""
    t = analysis.ared_adaptation_times()
    # Climb: max_p grows by a quarter until it reaches 0.04, then by 0.01.
    k = math.ceil(math.log(4) / math.log(1.25))
    steps = k + math.ceil((0.5 - 0.01 * 1.25**k) / 0.01)
    assert t["up_intervals_exact"] == steps == 53
    assert t["up_intervals_exact"] >= t["up_intervals_bound"]
    assert t["down_intervals_exact"] == math.ceil(t["down_intervals_bound"]) == 38
    assert t["up_s_exact"] == pytest.approx(26.5) and t["down_s_exact"] == pytest.approx(19.0)


def test_alpha_condition_default_meets_it():
    """Sec. 4.2: the default alpha satisfies alpha/(max_p + alpha) <= 0.2 over [0.01, 0.5], with equality below 0.04."""
    for mp in (0.01, 0.02, 0.04, 0.05, 0.1, 0.5):
        assert analysis.ared_alpha_ok(analysis.ared_alpha(mp), mp)
    assert analysis.ared_alpha(0.02) / (0.02 + analysis.ared_alpha(0.02)) == pytest.approx(0.2)
    assert not analysis.ared_alpha_ok(0.01, 0.02)


def test_beta_condition():
    """Sec. 4.2: (1 - beta)/beta < 0.2 means beta > 0.83; 0.9 passes, 0.8 fails."""
    assert analysis.ared_beta_ok(0.9)
    assert not analysis.ared_beta_ok(0.8)
    assert analysis.ared_beta_ok(5 / 6 + 1e-9) and not analysis.ared_beta_ok(5 / 6 - 1e-3)


def test_avg_shift_formulas_match_direct_computation():
    """The shifts of avg in Sec. 4.2 equal the difference of min_th + p/max_p (max_th - min_th) before and after."""
    mn, mx, p, mp, a, b = 10.0, 30.0, 0.05, 0.1, 0.01, 0.9
    avg = lambda m: mn + p / m * (mx - mn)  # noqa: E731
    assert ared.ared_avg_decrease_on_increase(p, mp, a, mn, mx) == pytest.approx(
        avg(mp) - avg(mp + a)
    )
    assert ared.ared_avg_increase_on_decrease(p, mp, b, mn, mx) == pytest.approx(
        avg(mp * b) - avg(mp)
    )
    # With alpha <= max_p/4 the drop is at most 0.2 (max_th - min_th): the band's width.
    assert ared.ared_avg_decrease_on_increase(mp * 0.999, mp, mp / 4, mn, mx) <= 0.2 * (mx - mn)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: analysis.ared_auto_parameters(-1), "link_rate_bps"),
        (lambda: analysis.ared_auto_parameters(1e9, 0), "mean_pkt_size"),
        (lambda: analysis.ared_auto_parameters(1e9, 500, -0.1), "delay_target"),
        (lambda: analysis.ared_target_band(30, 10), "min_th"),
        (lambda: analysis.ared_adaptation_times(beta=1.0), "beta"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    """Bad inputs raise ValueError whose message names the argument."""
    with pytest.raises(ValueError, match=name):
        call()


def test_overshoot_factor_of_footnote_4():
    """Sec. 4.1 / footnote 4: avg can exceed the target by 4k/(k+1): 3 for k = 3, approaching the paper's four."""
    assert ared.ared_max_overshoot(3) == pytest.approx(3.0)
    assert ared.ared_max_overshoot(1e6) == pytest.approx(4.0, rel=1e-5)
    assert all(ared.ared_max_overshoot(k) < 4 for k in (1.5, 2, 3, 10, 100))
