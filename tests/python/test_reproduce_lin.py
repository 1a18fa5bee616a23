"""Lin & Morris 1997 in the catalogue: the scenarios are the paper's networks (with the
ATM cell overhead folded into the rates), the event search of Figs. 3-4, and the
properties the tables and figures rest on, computed on short runs."""

import numpy as np
import pandas as pd
import pytest

from aqmlab.reproduce.common import scenario_dict
from aqmlab.reproduce.lin1997 import CELL_FACTOR, fragile_scenario, run_fragile
from aqmlab.reproduce.lin1997_many import FLOWS, scenario, simulate_sampled
from aqmlab.reproduce.lin1997_symmetric import SPAN, find_event
from aqmlab.sim import Scenario


def _direction(sc, name):
    norm = Scenario.from_dict(sc).normalized()
    (d,) = (d for d in norm["directions"] if d["name"] == name)
    return d, norm


def test_cell_overhead_folded_into_every_rate():
    """A link carries as many 552-byte packets per second as the paper's carries cells / 12."""
    assert CELL_FACTOR == pytest.approx(1 - 0.132, abs=5e-4)
    for name, paper in (
        ("lin1997_fig1.toml", {"gw->sink": 45e6, "r1->gw": 100e6, "fragile->gw": 45e6}),
        ("lin1997_fig2.toml", {"gw->sink": 77.5e6, "sender1->gw": 155e6}),
        ("lin1997_fig5.toml", {"gw->sink": 10e6, "cbr->gw": 100e6}),
        ("lin1997_fig8.toml", {"gw->sink": 10e6, "src->gw": 100e6}),
    ):
        norm = Scenario.from_dict(scenario_dict(name)).normalized()
        rates = {d["name"]: d["rate_bps"] for d in norm["directions"]}
        for link, r in paper.items():
            pkts_per_s = rates[link] / (552 * 8)
            cells_per_s = r / (53 * 8)
            assert pkts_per_s == pytest.approx(cells_per_s / 12, rel=1e-5), (name, link)


def test_fig1_round_trip_times_and_red_parameters():
    """RTTs 6 ms (robust) and 36 ms (fragile); RED min_th BS/4, max_th BS/2."""
    sc = fragile_scenario("red", 40, 16, 1, quick=True)
    d, norm = _direction(sc, "gw->sink")
    assert (d["queue"]["min_th"], d["queue"]["max_th"], d["queue"]["limit"]) == (10, 20, 40)
    delay = {x["name"]: x["delay"] for x in norm["directions"]}
    assert 2 * (delay["fragile->gw"] + delay["gw->sink"]) == pytest.approx(0.036)
    assert 2 * (delay["r1->gw"] + delay["gw->sink"]) == pytest.approx(0.006)
    fl = {f["name"]: f for f in norm["flows"]}
    assert fl["fragile"]["tcp"]["max_window"] == 16


def test_fragile_flow_is_protected_by_fred():
    """One short run per gateway at BS = 32: under RED the fragile 16-packet connection
    stays below its window-limited rate and loses packets; under FRED it gets closer to it
    with a lower loss rate than a robust connection."""
    red = run_fragile("red", 16, [32], [1], quick=True).iloc[0]
    fred = run_fragile("fred", 16, [32], [1], quick=True).iloc[0]
    assert red["bw_max"] < 0.9 and red["loss_fragile"] > 0
    assert fred["bw_max"] > red["bw_max"]
    assert fred["loss_fragile"] < fred["loss_r1"]


def _cw(rows):
    return pd.DataFrame(rows, columns=["time", "flow", "cwnd", "ssthresh"])


def test_find_event_needs_repeated_cuts_of_one_connection_only():
    # flow 0: two cuts just before it stalls, then a timeout 1 s later; flow 1 grows steadily
    victim = [
        (0.0, 0, 2, -1),
        (0.05, 0, 20, -1),
        (0.20, 0, 12, 10),
        (0.25, 0, 7, 6),
        (0.26, 0, 8, 6),
    ]
    victim.append((1.26, 0, 1, 4))
    other = [(0.0, 1, 2, -1)] + [(0.01 * k, 1, 2 + k, -1) for k in range(1, 30)]
    ev = find_event(_cw(victim + other))
    assert ev == {"flow": 0, "time": 1.26, "stall": 0.26, "cuts_before": 2}
    # the other connection cut in the same span: no event
    other_cut = other + [(0.22, 1, 10, 9)]
    assert find_event(_cw(victim + other_cut)) is None
    # only one cut before the stall: no event
    assert find_event(_cw([r for r in victim if r[0] != 0.20] + other)) is None
    # the other connection had not started by stall - SPAN: no event
    late = [(0.0, 1, 2, -1), (0.26 - SPAN / 2, 1, 3, -1)]
    assert find_event(_cw(victim + late)) is None


@pytest.fixture(scope="module")
def many_runs():
    out = {}
    for name in ("RED-16", "FRED-32"):
        sc = scenario(name, quick=True)
        sc["duration"] = "20s"
        out[name] = simulate_sampled(sc)
    return out


def test_two_packet_buffers_share_smoothly(many_runs):
    """FRED's two-packet-buffer extension (32 buffers): few timeouts, every connection near
    its fair share in nearly every 140 ms interval; RED with 16 buffers: many timeouts and
    connections idle in many intervals."""
    red, fred = many_runs["RED-16"], many_runs["FRED-32"]
    rto = lambda r: sum(f["timeouts"] for f in r.summary["flows"])  # noqa: E731
    assert rto(fred) * 10 < rto(red)
    after = slice(int(2 / 0.14), None)  # past the starts
    assert np.mean(fred.share[after] == 0) < 0.05 < np.mean(red.share[after] == 0)
    assert red.share.shape[1] == FLOWS
    # with the link full, the connections' shares of each interval add up to about 1
    assert np.median(fred.share[after].sum(axis=1)) == pytest.approx(1.0, abs=0.1)
