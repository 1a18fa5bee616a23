"""Helpers of aqmlab.analysis.bonald_sim used by the Bonald, May & Bolot reproductions
(Figs. 6-9, 11, Tables I, II, IV)."""

import math

import numpy as np
import pandas as pd
import pytest

from aqmlab.analysis import bonald_sim


def _trace(events, link="s->d", t0=0.0):
    return pd.DataFrame(
        {"time": t0 + np.arange(len(events)) * 1e-3, "link": link, "event": list(events)}
    )


def test_drop_run_lengths_counts_maximal_runs_and_ignores_departures():
    pk = _trace(["a", "x", "x", "d", "x", "a", "m", "x", "a", "x", "x"])
    # the first run is 3 drops (the departure does not break it); the run open at the end is left out
    assert bonald_sim.drop_run_lengths(pk).tolist() == [3, 1]


def test_drop_run_lengths_respects_link_and_warmup():
    pk = pd.concat(
        [_trace(["x", "x", "a", "x", "a"]), _trace(["x", "a"], link="d->s")], ignore_index=True
    )
    assert bonald_sim.drop_run_lengths(pk).tolist() == [2, 1]
    assert bonald_sim.drop_run_lengths(pk, since=0.0015).tolist() == [1]
    assert bonald_sim.drop_run_lengths(pk.iloc[:0]).size == 0


def test_router_queue_histogram_is_a_distribution_with_the_right_idle_share():
    rng = np.random.default_rng(1)
    q = rng.integers(0, 10, size=1000)
    h = bonald_sim.router_queue_histogram(q, utilization=0.95, K=12)
    assert h.shape == (13,) and math.isclose(h.sum(), 1.0) and (h >= 0).all()
    assert math.isclose(h[0], 0.05)
    # q > 0 waiting packets are q + 1 in the router
    assert math.isclose(h[5], float((q == 4).mean()))


def test_t_interval_matches_student_t():
    m, half = bonald_sim.t_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and math.isclose(half, 9.925 * 1.0 / math.sqrt(3))
    with pytest.raises(ValueError):
        bonald_sim.t_interval([1.0])


def test_with_average_sets_red_weight_only():
    red = bonald_sim.with_average(bonald_sim.scenario("red", 2.0, 40, 10, 30, 0.1), 0.002)
    assert red["link"][0]["queue_ab"]["w_q"] == 0.002
    td = bonald_sim.with_average(bonald_sim.scenario("taildrop", 2.0, 40), 0.002)
    assert "w_q" not in td["link"][0]["queue_ab"]


def test_pareto_scenario_offers_the_bursty_share_of_the_load():
    from aqmlab.sim import simulate

    sc = bonald_sim.pareto_scenario("taildrop", 1.0, 40, bursty_fraction=0.9, duration=40.0, seed=3)
    kinds = {f["name"]: f["type"] for f in sc["flow"]}
    assert kinds == {"bursty": "pareto_onoff", "smooth": "poisson"}
    flows = {f["name"]: f for f in simulate(sc, progress=False).summary["flows"]}
    bursty_pps = flows["bursty"]["arrivals"] / 30.0
    # heavy tails (shape 1.4): only a loose check of the nominal 900 packets/s
    assert 600 < bursty_pps < 1300
    assert abs(flows["smooth"]["arrivals"] / 30.0 - 100) < 15
