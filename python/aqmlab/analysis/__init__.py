"""The papers' analytic models, as a library.

- :mod:`aqmlab.analysis.floyd` -- Floyd & Jacobson 1993: eq. 2 and eq. 3 (average
  after a burst, largest w_q), the EWMA time constant, Methods 1 and 2 inter-mark
  distributions, the Hoeffding bound of Section X / Fig. 16;
- :mod:`aqmlab.analysis.ared` -- Floyd, Gummadi & Shenker 2001: Adaptive RED's
  automatic parameters, the alpha/beta conditions, adaptation times;
- :mod:`aqmlab.analysis.bonald` -- Bonald, May & Bolot 2000: M/M/1/K and the
  batch-Poisson Markov chains of Tail Drop and RED, drop probabilities per class,
  consecutive drops, queue-size distribution;
- :mod:`aqmlab.analysis.zheng` -- Zheng & Atiquzzaman 2008: lower and upper bounds of
  w (eqs. 14 and 21) and their inputs estimated from a queue trace;
- :mod:`aqmlab.analysis.fred` -- Lin & Morris 1997: FRED's parameter rules;
- :mod:`aqmlab.analysis.pi` -- Hollot, Misra, Towsley & Gong 2001: the PI
  controller's design rule (a, b from N-, C, R+) and its discrete gains;
- :mod:`aqmlab.analysis.misbehaving` -- Floyd & Jacobson 1993 Section X: the list of
  the n most recently marked packets from a packet trace, and flows flagged by it.

None of this touches the compiled extension. Every function validates its inputs
and raises ValueError naming the argument. See docs/analysis.md.
"""

from __future__ import annotations

from . import ared, bonald, floyd, fred, misbehaving, pi, zheng
from .ared import (
    ared_adaptation_times,
    ared_alpha,
    ared_alpha_ok,
    ared_auto_parameters,
    ared_beta_ok,
    ared_target_band,
    link_capacity_pkts,
)
from .floyd import (
    binomial_tail,
    ewma_time_constant,
    ewma_w_q_for_time_constant,
    hoeffding_bound,
    hoeffding_bound_kl,
    intermark_mean_geometric,
    intermark_mean_uniform,
    intermark_pmf_geometric,
    intermark_pmf_uniform,
    red_burst_average,
    red_max_w_q,
)
from .fred import fred_parameters
from .misbehaving import (
    false_flag_bound,
    flag_threshold,
    identify_misbehaving,
    marks_from_trace,
    packet_shares,
    recent_marks,
)
from .pi import pi_design, pi_gains, pi_loop_gain
from .zheng import (
    estimate_zheng_inputs,
    zheng_bounds_from_trace,
    zheng_w_bounds,
    zheng_w_bounds_exact,
)

__all__ = [
    "ared",
    "bonald",
    "floyd",
    "fred",
    "misbehaving",
    "pi",
    "zheng",
    "red_burst_average",
    "red_max_w_q",
    "ewma_time_constant",
    "ewma_w_q_for_time_constant",
    "binomial_tail",
    "hoeffding_bound",
    "hoeffding_bound_kl",
    "intermark_pmf_geometric",
    "intermark_pmf_uniform",
    "intermark_mean_geometric",
    "intermark_mean_uniform",
    "ared_auto_parameters",
    "ared_adaptation_times",
    "ared_alpha",
    "ared_alpha_ok",
    "ared_beta_ok",
    "ared_target_band",
    "link_capacity_pkts",
    "fred_parameters",
    "zheng_w_bounds",
    "zheng_w_bounds_exact",
    "estimate_zheng_inputs",
    "zheng_bounds_from_trace",
    "marks_from_trace",
    "recent_marks",
    "flag_threshold",
    "false_flag_bound",
    "identify_misbehaving",
    "packet_shares",
    "pi_design",
    "pi_gains",
    "pi_loop_gain",
]
