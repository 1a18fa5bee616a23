"""Hollot, Misra, Towsley & Gong 2001, "On designing improved controllers for AQM
routers supporting TCP flows" (INFOCOM 2001), Section V -- the PI controller's design
rule, and its discrete gains for the ``pi`` queue (``crates/aqm/src/pi.rs``).

The linearised TCP/queue plant of a link of capacity C (packets/s) shared by N TCP
flows with round-trip time R (s) is

    P(s) = (C^2 / 2N) e^{-sR} / ((s + 2N/(R^2 C)) (s + 1/R)),

with DC gain (R C)^3 / (2N)^2, a "TCP" pole p_TCP = 2N/(R^2 C) and a "queue" pole
p_queue = 1/R. The PI controller C(s) = K_PI (s/z + 1)/s is designed for the worst
case of a load of at least N- flows and round-trip times up to R+: its zero cancels the
TCP pole, z = p_TCP, and K_PI puts the loop's unity-gain crossover at w_g = z:

    |L(j w_g)| = (R+ C)^3/(2N-)^2 * K_PI / (w_g |j w_g/p_queue + 1|) = 1
    =>  K_PI = w_g |j w_g R+ + 1| (2N-)^2 / (R+ C)^3.

Sampled at f_s = 1/T with the bilinear (Tustin) transform, C(s) becomes
p(k) = p(k-1) + a e(k) - b e(k-1) with e = q - q_ref and

    a = K_PI (1/z + T/2),    b = K_PI (1/z - T/2),

which reproduces the paper's printed a = 1.822e-5, b = 1.816e-5 from its K_PI =
9.6426e-6, z = 0.53 rad/s and 160 Hz (:func:`pi_gains`). For the paper's example
network (N- = 60, C = 3750 packets/s, R+ = 0.246 s) the rule above gives
z = 0.529 (printed 0.53) and K_PI = 9.78e-6, 1.4% above the printed 9.6426e-6: the
printed K_PI puts the crossover at 0.521 rad/s instead of z. aqmlab computes the rule
as stated; the difference is recorded in docs/algorithms.md.

Units: C in packets/s, R in seconds, q and q_ref in packets, a and b per packet.
"""

from __future__ import annotations

import math

from ..base import positive

__all__ = ["pi_design", "pi_gains", "pi_loop_gain"]


def pi_gains(k_pi: float, z: float, sample_freq: float) -> dict[str, float]:
    """The discrete PI gains ``a`` and ``b`` of ``K_PI (s/z + 1)/s`` sampled at
    ``sample_freq`` Hz with the bilinear transform: a = K_PI (1/z + T/2),
    b = K_PI (1/z - T/2), T = 1/sample_freq."""
    k = positive("k_pi", k_pi)
    zz = positive("z", z)
    t = 1.0 / positive("sample_freq", sample_freq)
    return {"a": k * (1.0 / zz + t / 2.0), "b": k * (1.0 / zz - t / 2.0)}


def pi_loop_gain(omega: float, k_pi: float, z: float, n: float, c: float, r: float) -> float:
    """|L(j omega)| of the PI controller K_PI (s/z + 1)/s on the plant of N flows, capacity
    C (packets/s) and round-trip time R (s), the delay factor aside (its modulus is 1)."""
    w = positive("omega", omega)
    k = positive("k_pi", k_pi)
    zz = positive("z", z)
    nn = positive("n", n)
    cc = positive("c", c)
    rr = positive("r", r)
    p_tcp = 2.0 * nn / (rr * rr * cc)
    plant = (
        (rr * cc) ** 3
        / (2.0 * nn) ** 2
        / (abs(complex(1.0, w / p_tcp)) * abs(complex(1.0, w * rr)))
    )
    return plant * k * abs(complex(1.0, w / zz)) / w


def pi_design(n_min: float, c: float, r_max: float, sample_freq: float = 160.0) -> dict[str, float]:
    """The paper's design rule for N >= ``n_min`` flows, capacity ``c`` (packets/s) and
    round-trip times up to ``r_max`` (s), sampled at ``sample_freq`` Hz (160 in the
    paper). Returns ``p_tcp``, ``p_queue``, ``z``, ``omega_g``, ``k_pi``, ``a`` and ``b``
    (see the module documentation)."""
    n = positive("n_min", n_min)
    cc = positive("c", c)
    r = positive("r_max", r_max)
    f = positive("sample_freq", sample_freq)
    p_tcp = 2.0 * n / (r * r * cc)
    p_queue = 1.0 / r
    z = p_tcp
    w_g = z
    k_pi = w_g * math.hypot(1.0, w_g / p_queue) * (2.0 * n) ** 2 / (r * cc) ** 3
    gains = pi_gains(k_pi, z, f)
    return {
        "p_tcp": p_tcp,
        "p_queue": p_queue,
        "z": z,
        "omega_g": w_g,
        "k_pi": k_pi,
        "a": gains["a"],
        "b": gains["b"],
    }
