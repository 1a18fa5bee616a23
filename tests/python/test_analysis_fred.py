"""FRED's parameter rules (Lin & Morris 1997, Section 4.5) as computed by aqmlab.analysis.fred."""

import pytest

from aqmlab.analysis import fred_parameters


def test_section6_fig8_parameters():
    """Sec. 6 (Fig. 8): BS = RTT = 16 gives Lin & Morris's minth = 4, maxth = 8, maxp = 0.02, wq = 0.002, minq = 2."""
    p = fred_parameters(16, 16)
    assert (p["min_th"], p["max_th"], p["max_p"], p["w_q"], p["minq"]) == (4, 8, 0.02, 0.002, 2)
    assert p["maxq"] == p["min_th"] and p["min_th_rule"] == "buffer/4"


def test_rtt_term_wins_for_short_rtts():
    """minth = MIN(buffer/4, RTT): a short round trip (in packets) sets minth."""
    p = fred_parameters(400, 20)
    assert p["min_th"] == 20 and p["max_th"] == 40 and p["min_th_rule"] == "RTT in packets"
    assert p["minq"] == 4  # a large buffer


@pytest.mark.parametrize("args, name", [((0, 16), "buffer"), ((16, -1), "rtt_packets")])
def test_bad_arguments_name_the_argument(args, name):
    """Bad inputs raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=name):
        fred_parameters(*args)
