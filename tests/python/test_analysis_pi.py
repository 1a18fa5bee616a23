"""Hollot, Misra, Towsley & Gong 2001 (Section V) as computed by aqmlab.analysis.pi."""

import cmath
import math

import pytest

from aqmlab import analysis

#: The paper's example network: N- = 60 flows, C = 3750 packets/s (15 Mb/s of 500-byte
#: packets), R+ = 0.246 s, sampled at 160 Hz.
N, C, R, FS = 60, 3750.0, 0.246, 160.0


def _sig(x, digits):
    """x rounded to `digits` significant digits."""
    return float(f"{x:.{digits - 1}e}")


def test_paper_example_poles_and_zero():
    """The TCP pole 2N/(R^2 C) is the paper's 0.53 rad/s, and the zero is put on it."""
    d = analysis.pi_design(N, C, R, FS)
    assert round(d["p_tcp"], 2) == 0.53
    assert d["z"] == d["p_tcp"] == d["omega_g"]
    assert d["p_queue"] == pytest.approx(1 / R)


def test_paper_gains_from_its_k_and_zero():
    """Tustin at 160 Hz turns the paper's K_PI = 9.6426e-6, z = 0.53 into its printed
    a = 1.822e-5 and b = 1.816e-5 (four significant digits)."""
    g = analysis.pi_gains(9.6426e-6, 0.53, FS)
    assert _sig(g["a"], 4) == 1.822e-5
    assert _sig(g["b"], 4) == 1.816e-5
    assert g["a"] - g["b"] == pytest.approx(9.6426e-6 / FS, rel=1e-12)


def test_design_crosses_over_at_the_zero_with_positive_phase_margin():
    """|L(j w_g)| = 1 at w_g = z, and the phase margin (delay included) is positive."""
    d = analysis.pi_design(N, C, R, FS)
    w = d["omega_g"]
    assert analysis.pi_loop_gain(w, d["k_pi"], d["z"], N, C, R) == pytest.approx(1.0, rel=1e-12)
    s = 1j * w
    p_tcp, p_q = d["p_tcp"], 1 / R
    loop = (
        (R * C) ** 3
        / (2 * N) ** 2
        * d["k_pi"]
        * (s / d["z"] + 1)
        / s
        * cmath.exp(-s * R)
        / ((s / p_tcp + 1) * (s / p_q + 1))
    )
    assert abs(loop) == pytest.approx(1.0, rel=1e-12)
    margin = math.degrees(math.pi + cmath.phase(loop))
    assert 0 < margin < 180


@pytest.mark.parametrize("n, r", [(60, 0.246), (120, 0.246), (60, 0.1), (300, 0.05)])
def test_design_is_robust_for_more_flows_and_shorter_rtts(n, r):
    """Designed for N- and R+, the loop stays stable (gain below 1 where the phase
    reaches -180 degrees) for any N >= N- and R <= R+, as Section V argues."""
    from scipy.optimize import brentq

    d = analysis.pi_design(N, C, R, FS)
    k, z = d["k_pi"], d["z"]
    p_tcp, p_q = 2 * n / (r * r * C), 1 / r

    def phase(w):
        # The unwrapped phase of L(jw): integrator, zero, two poles, delay.
        return -math.pi / 2 + math.atan(w / z) - math.atan(w / p_tcp) - math.atan(w / p_q) - w * r

    w180 = brentq(lambda w: phase(w) + math.pi, 1e-6, 10 * math.pi / r)
    gain = analysis.pi_loop_gain(w180, k, z, n, C, r)
    assert gain < 1.0, f"gain {gain} at the -180 degree frequency {w180}"


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n_min": 0, "c": C, "r_max": R}, "n_min"),
        ({"n_min": N, "c": -1, "r_max": R}, "c"),
        ({"n_min": N, "c": C, "r_max": "x"}, "r_max"),
        ({"n_min": N, "c": C, "r_max": R, "sample_freq": 0}, "sample_freq"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, name):
    """Invalid arguments raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=name):
        analysis.pi_design(**kwargs)
