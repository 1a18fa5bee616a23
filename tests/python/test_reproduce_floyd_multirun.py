"""Helpers of the Floyd & Jacobson 1993 multi-run experiments (Fig. 5, Figs. 12-15)."""

import copy
import math

import numpy as np
import pandas as pd
import pytest

from aqmlab.reproduce import floyd1993_multirun as fm
from aqmlab.sim import simulate
from aqmlab.sweeps.execute import validate_points
from aqmlab.sweeps.spec import load_spec


def _key(flow, seq):
    return np.asarray(flow, dtype=np.int64) * (1 << 40) + np.asarray(seq, dtype=np.int64)


def test_evictions_only_for_packets_already_queued():
    # packet (0,1) accepted then dropped later (eviction); (0,2) dropped on arrival
    ev = np.array(["a", "x", "x", "a", "d"])
    key = _key([0, 0, 0, 0, 0], [1, 1, 2, 3, 3])
    assert fm.evictions(ev, key).tolist() == [False, True, False, False, False]
    # a retransmission dropped on arrival after its original left is not an eviction
    ev = np.array(["a", "d", "x"])
    assert fm.evictions(ev, _key([1, 1, 1], [5, 5, 5])).tolist() == [False, False, False]


def test_queue_seen_counts_waiting_packets_before_each_arrival():
    # two back-to-back arrivals on a busy line, a departure, a drop, an eviction + accept
    ev = np.array(["a", "d", "a", "a", "x", "d", "x", "a"])
    t = np.array([0.0, 0.0, 1.0, 1.1, 1.2, 1.3, 2.0, 2.0])
    key = _key([0] * 8, [1, 1, 2, 3, 4, 2, 3, 5])
    is_arr, seen = fm.queue_seen(ev, t, key)
    # rows 0, 2, 3, 4 (drop on arrival) and 7 are arrivals; row 6 is the eviction of packet 3
    assert is_arr.tolist() == [True, False, True, True, True, False, False, True]
    assert seen[is_arr].tolist() == [0, 0, 1, 2, 1]  # the last saw packet 3 before its eviction


@pytest.mark.parametrize(
    "queue", [{"type": "randomdrop", "limit": 6}, {"type": "droptail", "limit": 6}]
)
def test_queue_seen_matches_the_simulators_queue_trace(queue):
    """Rebuilt from the packet trace, the queue after each arrival equals the simulator's
    own queue trace sampled at every arrival (so evictions are classified right)."""
    sc = fm.run_periods.base("floyd1993_fig12.toml")
    sc["duration"] = "1s"
    sc["link"][4]["queue_ab"] = queue
    sc["trace"] = {"packets": ["g->s"], "queue": ["g->s"], "interval": 0}
    res = simulate(sc, progress=False)
    pk = res.traces["packets"]
    pk = pk[pk["link"] == "g->s"].reset_index(drop=True)
    qt = res.traces["queue"]
    qt = qt[qt["link"] == "g->s"].reset_index(drop=True)
    ev = pk["event"].to_numpy().astype(str)
    key = _key(pk["flow"], pk["seq"])
    is_arr, seen = fm.queue_seen(ev, pk["time"].to_numpy(), key)
    assert is_arr.sum() == len(qt)
    assert int((ev == "x").sum()) > 0
    acc = np.isin(ev, ("a", "m"))
    delta = acc.astype(int) - (ev == "d") - fm.evictions(ev, key)
    after = np.cumsum(delta)
    idx = np.flatnonzero(is_arr)
    nxt = np.minimum(idx + 1, len(ev) - 1)
    started = (
        (ev[nxt] == "d")
        & (key[nxt] == key[idx])
        & (pk["time"].to_numpy()[nxt] == pk["time"].to_numpy()[idx])
    )
    expected_after = np.where(acc[idx] & started, after[nxt], after[idx])
    assert expected_after.tolist() == qt["queue"].tolist()
    assert seen[is_arr].max() <= queue["limit"]
    if queue["type"] == "droptail":  # a Drop Tail drop finds the buffer full
        assert set(seen[(ev == "x")].tolist()) == {queue["limit"]}


def test_drop_episodes():
    assert fm.drop_episodes([], []) == (0, 0)
    times = [0.0, 0.05, 0.5, 0.52, 2.0]
    flows = [0, 1, 1, 1, 0]
    assert fm.drop_episodes(times, flows, gap=0.1) == (3, 1)
    assert fm.drop_episodes(times, flows, gap=10) == (1, 1)


def test_interval_stats_counts_per_flow_and_utilization():
    pk = pd.DataFrame(
        {
            "time": [0.1, 0.1, 0.2, 0.3, 1.5],
            "event": ["a", "d", "x", "d", "d"],
            "flow": [0, 0, 1, 1, 1],
            "size": [1000] * 5,
            "seq": [1, 1, 2, 3, 4],
        }
    )
    pk["is_arrival"] = [True, False, True, False, False]
    pk["seen"] = [0, 0, 4, 0, 0]
    st = fm.interval_stats(pk, 8e6, 0.0, 1.0, 2)
    assert st["departures"] == 2 and st["drops"] == 1 and st["arrivals"] == 2
    assert st["dep0"] == 1 and st["dep1"] == 1 and st["drop1"] == 1 and st["drop0"] == 0
    assert st["q_seen"] == 2.0
    assert st["utilization"] == pytest.approx(2 * 8000 / 8e6)


def test_window_limited_rate_of_node5():
    # two 45 Mb/s links of 16 and 2 ms: RTT = 36 ms + 2 (0.1778 + 0.0071) ms
    r = fm.window_limited_rate(8, [(45e6, 0.016), (45e6, 0.002)])
    rtt = 0.036 + 2 * (8000 / 45e6 + 320 / 45e6)
    assert r == pytest.approx(8 / rtt)
    assert fm.node5_max_rate() == pytest.approx(r)


def test_fit_constant_recovers_the_curve():
    x = np.linspace(0.3, 0.95, 20)
    for c, p in ((1.73, 1), (0.1, 3)):
        assert fm.fit_constant(x, c / (1 - x) ** p, p) == pytest.approx(c)
    assert math.isnan(fm.fit_constant([1.0], [3.0], 1))


def test_spearman_share_and_centroid():
    assert fm.spearman([1, 2, 3, 4], [10, 20, 25, 100]) == pytest.approx(1.0)
    assert fm.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert fm.share([1, 2], [4, 4]) == pytest.approx(3 / 8)
    assert math.isnan(fm.share([1], [0]))
    assert fm.centroid_ratio([0.1, 0.3], [0.1, 0.1]) == pytest.approx(2.0)


def test_periods_long_reshapes_wide_columns():
    df = pd.DataFrame(
        {
            "setting": ["a", "b"],
            "seed": [1, 2],
            "periods[0].drops": [1.0, 2.0],
            "periods[1].drops": [3.0, 4.0],
            "periods[0].dep4": [5.0, 6.0],
            "periods[1].dep4": [7.0, 8.0],
        }
    )
    long = fm.periods_long(df, ["setting", "seed"])
    assert len(long) == 4
    row = long[(long["setting"] == "b") & (long["period"] == 1)].iloc[0]
    assert row["drops"] == 4.0 and row["dep4"] == 8.0


def test_settings_span_the_papers_ranges():
    dt, red, reps = fm.fig5_settings(False)
    assert len(dt) == 11 and len(red) == 11 and reps == 5
    assert (dt[0], dt[-1], red[0], red[-1]) == (15, 140, 3, 50)
    bufs, mins, _ = fm.fig12_settings(False)
    assert (bufs[0], bufs[-1], mins[0], mins[-1]) == (8, 22, 3, 14)


@pytest.mark.parametrize("quick", [True, False])
def test_sweep_specs_are_valid(quick):
    s5 = load_spec(fm.fig5_spec(quick))
    dt, red, reps = fm.fig5_settings(quick)
    assert len(s5.points) == (len(dt) + len(red)) * reps
    validate_points(s5)
    s12 = load_spec(fm.fig12_spec(quick))
    bufs, mins, reps = fm.fig12_settings(quick)
    assert len(s12.points) == (2 * len(bufs) + len(mins)) * reps
    validate_points(s12)
    # RED points follow the paper's rules: max_th = 3 min_th, buffer 100 (Fig. 5); 2 min_th, 4 min_th (Fig. 14)
    for p in s5.points:
        q = s5.scenario(p)["link"][2]["queue_ab"]
        if q["type"] == "red":
            assert q["max_th"] == 3 * q["min_th"] and q["limit"] == 100
        else:
            assert all(f["prep_delay"] == fm.PREP_T for f in s5.scenario(p)["flow"])
    for p in s12.points:
        sc = s12.scenario(p)
        q = sc["link"][4]["queue_ab"]
        if q["type"] == "red":
            assert q["max_th"] == 2 * q["min_th"] and q["limit"] == 4 * q["min_th"]
        assert all((f["prep_delay"] > 0) == (q["type"] == "droptail") for f in sc["flow"])


def test_run_periods_agrees_with_the_summary():
    sc = fm.run_periods.base("floyd1993_fig12.toml")
    sc["duration"] = "2s"
    out = fm.run_periods(copy.deepcopy(sc))
    g, link = out["gateway"], out["links"]["g->s"]
    assert g["departures"] == link["departures"]
    assert g["drops"] == link["drops"]
    # bytes that started transmission vs busy time inside the window: at most one packet apart
    assert g["utilization"] == pytest.approx(link["utilization"], abs=8000 / 45e6 / 2 + 1e-9)
    assert len(out["periods"]) == 2
    assert sum(p["departures"] for p in out["periods"]) == g["departures"]
    assert sum(p[f"dep{i}"] for i in range(5) for p in out["periods"]) == g["departures"]
