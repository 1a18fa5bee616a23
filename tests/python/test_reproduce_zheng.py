"""Zheng & Atiquzzaman 2008 in the catalogue: the bounds of Section 4.3 and the
measurements of Section 5's runs (drops by kind, waiting times, load, synchronization)."""

import numpy as np
import pandas as pd
import pytest

from aqmlab.reproduce import read_comparison, run
from aqmlab.reproduce.zheng2008_runs import (
    LINK,
    base,
    classify_drops,
    simulate_run,
    sync_stats,
)


def test_bounds_quick(tmp_path):
    """The bounds id: eq. 21 reproduces 0.071; eq. 14's root is where delta = K_l, and
    0.045 is the first multiple of 0.005 past it."""
    from aqmlab.analysis.zheng import zheng_delta_lower

    st = run(["zheng2008-bounds"], tmp_path, quick=True, jobs=1, progress=False)
    assert st == {"zheng2008-bounds": "done"}
    rows = {
        r["quantity"]: r for r in read_comparison(tmp_path / "zheng2008-bounds" / "comparison.csv")
    }
    up = rows["upper bound of w (eq. 21)"]
    assert up["verdict"] == "ok"
    lo = float(rows["lower bound of w (eq. 14)"]["aqmlab"])
    assert zheng_delta_lower(lo, 4, 5, 16, 30) == pytest.approx(5, rel=1e-6)
    assert zheng_delta_lower(0.040, 4, 5, 16, 30) > 5 >= zheng_delta_lower(0.045, 4, 5, 16, 30)
    assert lo < 0.045
    traces = pd.read_csv(tmp_path / "zheng2008-bounds" / "trace_bounds.csv")
    assert set(traces["w_run"]) == {0.002, 0.05}


@pytest.fixture(scope="module")
def short_run():
    sc = base(0.0042)
    sc["duration"] = "20s"
    return simulate_run(sc)


def test_waiting_times_match_the_link_summary(short_run):
    """The FIFO matching of accepted arrivals to departures gives the summary's mean delay."""
    r = short_run
    assert len(r.delay) == r.link["departures"]
    assert r.delay["delay"].min() >= 0
    assert r.delay["delay"].mean() == pytest.approx(r.link["mean_delay"], rel=1e-9)


def test_drops_and_load_account_for_every_packet(short_run):
    """Every drop is classified; the kinds agree with the summary's counters within a few
    drops (the classification reads the queue sample of the same instant); the load
    series holds every arrival."""
    r = short_run
    assert len(r.drops) == r.link["drops"]
    kinds = r.drops["kind"].value_counts()
    early = kinds.get("early", 0)
    assert abs(early - r.link["early_drops"]) <= max(3, 0.02 * r.link["drops"])
    size_bits = 1500 * 8
    offered = (r.load[["server0", "server1", "server2"]].sum().sum() * 0.1 * 1e6) / size_bits
    assert offered == pytest.approx(r.link["arrivals"], rel=1e-9)


def test_classify_drops_by_queue_and_average():
    q = pd.DataFrame({"time": [1.0, 2.0, 3.0], "queue": [50, 10, 8], "avg": [12.0, 16.0, 7.0]})
    pk = pd.DataFrame({"time": [1.0, 2.0, 3.0], "event": ["x", "x", "x"], "flow": [0, 1, 2]})
    d = classify_drops(pk, q, 5, 15, 50)
    assert list(d["kind"]) == ["overflow", "forced", "early"]


def test_sync_stats_counts_common_silence_and_shared_losses():
    t = np.arange(0, 5, 0.1)
    load = pd.DataFrame({"time": t, "a": 1.0, "b": 1.0, "c": 1.0})
    load.loc[(t > 2.0) & (t < 2.35), ["a", "b", "c"]] = 0.0  # 3 bins all silent
    load.loc[(t > 3.0) & (t < 3.5), "a"] = 0.0  # one server alone: not counted
    drops = pd.DataFrame(
        {"time": [1.0, 1.01, 1.02, 4.0, 4.01], "flow": [0, 1, 2, 0, 0], "kind": "early"}
    )
    s = sync_stats(load, drops, 3)
    assert s["silent_all_s"] == pytest.approx(0.3)
    assert s["silences"] == 1
    assert s["loss_episodes"] == 2 and s["episodes_hitting_all"] == 1


def test_scenario_is_the_papers_network():
    """Link rates, delays, buffer and RED parameters of Section 5.1."""
    from aqmlab.sim import Scenario

    norm = Scenario.from_dict(base(0.05)).normalized()
    (d,) = (d for d in norm["directions"] if d["name"] == LINK)
    assert d["rate_bps"] == 10e6 and d["delay"] == pytest.approx(0.005)
    red = d["queue"]
    assert (red["min_th"], red["max_th"], red["max_p"], red["w_q"], red["limit"]) == (
        5,
        15,
        0.1,
        0.05,
        50,
    )
    delays = sorted(x["delay"] for x in norm["directions"] if x["name"].startswith("server"))
    assert delays == pytest.approx([0.001, 0.003, 0.005])
