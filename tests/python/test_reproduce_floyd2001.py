"""Floyd, Gummadi & Shenker 2001 (Adaptive RED) in the catalogue: Fig. 10 and Section 4."""

import numpy as np
import pytest

from aqmlab.analysis import ared_target_band
from aqmlab.reproduce import read_comparison, run
from aqmlab.reproduce.floyd2001 import (
    FIG10_MAX_TH,
    FIG10_MIN_TH,
    INTERVAL,
    drive_ared,
    pseudo_code_step,
)
from aqmlab.reproduce.floyd2001_congestion import (
    BAND,
    CHANGE,
    congestion_scenario,
    recovery_time,
)


def test_pseudo_code_step_adds_alpha_multiplies_beta_and_keeps_the_range():
    """Fig. 10: +min(0.01, max_p/4) above the band, x0.9 below, unchanged inside, within [0.01, 0.5]."""
    lo, hi = 9.0, 11.0
    assert pseudo_code_step(0.02, 12, lo, hi) == pytest.approx(0.025)
    assert pseudo_code_step(0.2, 12, lo, hi) == pytest.approx(0.21)
    assert pseudo_code_step(0.2, 8, lo, hi) == pytest.approx(0.18)
    assert pseudo_code_step(0.2, 10, lo, hi) == 0.2
    assert pseudo_code_step(0.495, 12, lo, hi) == 0.5
    assert pseudo_code_step(0.5, 12, lo, hi) == 0.5
    assert pseudo_code_step(0.0105, 8, lo, hi) == 0.01


def test_library_ared_follows_the_pseudo_code_at_every_boundary():
    """The library's Adaptive RED, driven above then below its target, steps as Fig. 10 says, only
    at the 0.5 s boundaries, and max_p stays within [0.01, 0.5]."""
    steps, trace, off = drive_ared(((0.0, 2.5), (15.0, 0.7)), 30.0, seed=3, initial_max_p=0.1)
    lo, hi = ared_target_band(FIG10_MIN_TH, FIG10_MAX_TH)
    expected = [pseudo_code_step(b, a, lo, hi) for b, a in zip(steps["max_p_before"], steps["avg"])]
    assert np.allclose(steps["max_p"], expected, rtol=0, atol=1e-12)
    assert off == 0
    assert np.allclose(np.diff(steps["time"]), INTERVAL)
    assert steps["max_p"].between(0.01, 0.5).all() and trace["max_p"].between(0.01, 0.5).all()
    # both directions happened: the run is not trivially constant
    assert (steps["max_p"] > steps["max_p_before"]).sum() > 10
    assert (steps["max_p"] < steps["max_p_before"]).sum() > 10


def test_drive_ared_is_deterministic():
    """Same seed, same steps and trace."""
    a = drive_ared(((0.0, 2.0),), 5.0, seed=7)
    b = drive_ared(((0.0, 2.0),), 5.0, seed=7)
    assert a[0].equals(b[0]) and a[1].equals(b[1])


@pytest.mark.slow
def test_fig10_and_section4_run_end_to_end(tmp_path):
    """Both ids write a plot and a comparison; the pseudo-code, bound and target-band rows hold."""
    statuses = run(
        ["floyd2001-fig10", "floyd2001-section4"], tmp_path, quick=True, jobs=1, progress=False
    )
    assert statuses == {"floyd2001-fig10": "done", "floyd2001-section4": "done"}
    fig10 = {
        r["quantity"]: r for r in read_comparison(tmp_path / "floyd2001-fig10" / "comparison.csv")
    }
    for q, r in fig10.items():
        if q.startswith(
            (
                "every step",
                "max_p moves only",
                "max_p stays within",
                "increase steps",
                "decrease steps",
            )
        ):
            assert r["verdict"] == "ok", (q, r)
    sec4 = {
        r["quantity"]: r
        for r in read_comparison(tmp_path / "floyd2001-section4" / "comparison.csv")
    }
    bands = [r for q, r in sec4.items() if q.startswith("target band")]
    assert len(bands) == 4 and all(r["verdict"] == "ok" for r in bands)
    assert list((tmp_path / "floyd2001-fig10").glob("*.png"))


# ---------------------------------------------------------------- Figs. 6-9


def test_congestion_scenario_adds_twenty_staggered_flows():
    """Twenty flows of window 20, 0.1 s apart from 25 s (increase) or from 0 s, stopping at 25 s (decrease)."""
    from aqmlab.sim import Scenario

    for case, t0 in (("increase", CHANGE), ("decrease", 0.0)):
        for queue in ("red", "ared"):
            norm = Scenario.from_dict(congestion_scenario(case, queue, seed=1)).normalized()
            new = [f for f in norm["flows"] if f["tcp"]["max_window"] == 20]
            assert len(new) == 20
            assert [f["start"] for f in new] == pytest.approx([t0 + 0.1 * k for k in range(20)])
            if case == "decrease":
                assert all(f["stop"] == pytest.approx(CHANGE) for f in new)
            (d,) = [d for d in norm["directions"] if d["name"] == "r1->r2"]
            assert d["queue"]["type"] == queue and d["queue"]["limit"] == 35
    with pytest.raises(ValueError, match="case"):
        congestion_scenario("sideways", "red", 1)


def test_recovery_time_measures_the_return_to_the_band():
    """A trace that leaves the band upward at 26 s and comes back at 33 s recovers in about 8 s (1 s smoothing)."""
    import pandas as pd

    t = np.arange(0, 50, 0.02)
    avg = np.where((t > 26) & (t < 33), 15.0, 10.0)
    q = pd.DataFrame({"time": t, "avg": avg})
    r = recovery_time(q, "increase", BAND)
    assert 8.0 <= r <= 9.0
    assert recovery_time(q, "decrease", BAND) == 0.0  # never fell below the band
    stuck = pd.DataFrame({"time": t, "avg": np.where(t > 26, 15.0, 10.0)})
    assert np.isnan(recovery_time(stuck, "increase", BAND))


@pytest.mark.slow
def test_fig6_to_fig9_run_end_to_end(tmp_path):
    """The four ids run as one group; each plots its figure and compares the paper's numbers."""
    ids = [f"floyd2001-fig{i}" for i in (6, 7, 8, 9)]
    statuses = run(ids, tmp_path, quick=True, jobs=1, progress=False)
    assert statuses == dict.fromkeys(ids, "done")
    for i in ids:
        rows = read_comparison(tmp_path / i / "comparison.csv")
        assert any(r["verdict"] != "not-reported" for r in rows)
        assert list((tmp_path / i).glob("fig*.png"))
    rows = {
        r["quantity"]: r for r in read_comparison(tmp_path / "floyd2001-fig6" / "comparison.csv")
    }
    assert any(q.startswith("drop rate, 25-50 s") for q in rows)


# ---------------------------------------------------------------- Figs. 15-17


def test_wq_scenarios_differ_only_in_w_q_and_the_diagnostic_ssthresh():
    """Figs. 15-17 change RED's w_q alone; the diagnostic variant sets the first flow's ssthresh."""
    from aqmlab.reproduce.floyd2001_wq import STEADY_SSTHRESH, WQ, wq_scenario

    base = wq_scenario(0.002, 1)
    for w in WQ.values():
        sc = wq_scenario(w, 1)
        assert sc["link"][0]["queue_ab"]["w_q"] == w
        sc["link"][0]["queue_ab"]["w_q"] = 0.002
        assert sc == base
    steady = wq_scenario(0.0001, 1, steady=True)
    assert steady["flow"][0]["ssthresh"] == STEADY_SSTHRESH and "ssthresh" not in steady["flow"][1]


@pytest.mark.slow
def test_fig15_to_fig17_run_end_to_end(tmp_path):
    """The three ids run as one group, plot their figure and compare the window and the spike."""
    ids = [f"floyd2001-fig{i}" for i in (15, 16, 17)]
    statuses = run(ids, tmp_path, quick=True, jobs=1, progress=False)
    assert statuses == dict.fromkeys(ids, "done")
    rows = {
        r["quantity"]: r for r in read_comparison(tmp_path / "floyd2001-fig17" / "comparison.csv")
    }
    assert any(q.startswith("largest queue after the second flow starts") for q in rows)
    for i in ids:
        assert list((tmp_path / i).glob("fig*.png"))


# ---------------------------------------------------------------- Figs. 1-5


@pytest.mark.parametrize("quick", [True, False])
def test_tradeoff_sweeps_are_valid_and_cover_the_grid(quick):
    """Each queue's sweep validates and has one point per (N, max_p); N splits evenly over five groups."""
    from aqmlab import sweeps
    from aqmlab.reproduce.floyd2001_tradeoff import QUEUES, settings, spec

    s = settings(quick)
    for tag in QUEUES:
        sp = sweeps.load_spec(spec(tag, quick))
        assert len(sp.points) == len(s["flows"]) * len(s["max_p"])
        assert all(n % 5 == 0 for n in s["flows"])
    assert min(s["max_p"]) == 0.02 and max(s["max_p"]) == 0.5


def test_tradeoff_box_and_equivalent_max_p_on_made_up_runs():
    """Fig. 3's box spans Adaptive RED's runs; the equivalent max_p is RED's nearest average queue."""
    import pandas as pd

    from aqmlab.reproduce.floyd2001_tradeoff import Tradeoff, _equivalent_max_p, box

    rows = [
        {
            "queue": "ared",
            "flows": 20,
            "max_p": m,
            "mean_queue": 50 + k,
            "utilization": 0.99 - 0.001 * k,
        }
        for k, m in enumerate((0.5, 0.1, 0.02))
    ]
    rows += [
        {"queue": "red_wq000026", "flows": 20, "max_p": m, "mean_queue": q, "utilization": 0.98}
        for m, q in ((0.5, 30), (0.1, 45), (0.04, 52), (0.02, 70))
    ]
    d = Tradeoff(pd.DataFrame(rows))
    x0, x1, y0, y1 = box(d)
    assert x0 < 50 and x1 > 52 and y0 < 0.988 and y1 > 0.99
    assert _equivalent_max_p(d, 20) == 0.04


# ---------------------------------------------------------------- Fig. 18


def test_routing_scenario_uses_the_alternate_path_only_while_the_link_is_down():
    """Routes with every link up avoid r1-r3-r2 (higher cost); the failure is 50-60 s on r1-r2."""
    from aqmlab.reproduce.floyd2001_routing import routing_scenario
    from aqmlab.sim import Scenario

    norm = Scenario.from_dict(routing_scenario()).normalized()
    for f in norm["flows"]:
        assert not any("r3" in d for d in f["path"])
    assert [(e["at"], e["action"]) for e in norm["events"]] == [(50.0, "down"), (60.0, "up")]
    alt = [lk for lk in norm["links"] if "r3" in (lk["a"], lk["b"])]
    assert len(alt) == 2 and all(lk["rate_bps"] == 7.5e6 for lk in alt)


# ---------------------------------------------------------------- Figs. 11-14


def test_oscillation_scenarios_set_queue_mix_and_ecn():
    """Figs. 11-14: RED or Adaptive RED with ECN; one-way runs keep only the 100 long-lived flows."""
    from aqmlab.reproduce.floyd2001_oscillations import FIGS, oscillation_scenario
    from aqmlab.sim import Scenario

    for fig, (queue, rich) in FIGS.items():
        norm = Scenario.from_dict(oscillation_scenario(fig, 1, 10.0, 5.0)).normalized()
        (d,) = [d for d in norm["directions"] if d["name"] == "r1->r2"]
        assert d["queue"]["type"] == queue and d["queue"]["ecn"]
        assert all(f["ecn"] for f in norm["flows"])
        long_lived = [f for f in norm["flows"] if f["src"] == "s0"]
        assert len(long_lived) == 100
        assert (len(norm["flows"]) > 100) == rich


def test_marks_above_max_th_uses_the_last_average_before_each_mark():
    """A mark counts when the latest avg sample at or before it exceeds max_th (80)."""
    import pandas as pd

    from aqmlab.reproduce.floyd2001_oscillations import marks_above_max_th

    q = pd.DataFrame({"time": [0.0, 1.0, 2.0], "avg": [50.0, 90.0, 70.0]})
    pk = pd.DataFrame({"time": [0.5, 1.0, 1.5, 2.5, 3.0], "event": ["m", "m", "a", "m", "x"]})
    assert marks_above_max_th(pk, q, 0.0) == 1
    assert marks_above_max_th(pk, q, 1.1) == 0


# ---------------------------------------------------------------- the ns-2 cross-check


def test_ns2_agreement_rule():
    """Utilization within one point, queue within 10%, drop rate within 10% or 0.001."""
    from aqmlab.reproduce.floyd2001_ns2 import agree

    assert agree("utilization", 0.955, 0.96) and not agree("utilization", 0.94, 0.96)
    assert agree("mean_queue", 44.0, 48.0) and not agree("mean_queue", 40.0, 48.0)
    assert agree("drop_rate", 0.0015, 0.0010) and not agree("drop_rate", 0.05, 0.04)


def test_committed_ns2_results_cover_the_cross_checked_points():
    """floyd2001_ns2.csv holds Figs. 1-3's subset for every queue and Figs. 6-9 for every seed."""
    from aqmlab.reproduce import floyd2001_ns2
    from aqmlab.reproduce.floyd2001_tradeoff import QUEUES

    ns = floyd2001_ns2.load()
    assert len(ns), "floyd2001_ns2.csv is missing"
    tr = ns[ns["experiment"] == "fig1-3"]
    for tag in QUEUES:
        t = tr[tr["queue"] == tag]
        assert set(t["flows"]) >= {5, 20, 100} and set(t["max_p"]) >= {0.5, 0.1, 0.02}
    # every point of every queue with seeds 1-5
    for (tag, _n, _mp), g in tr.groupby(["queue", "flows", "max_p"]):
        assert sorted(g["seed"]) == [1, 2, 3, 4, 5], (tag, _n, _mp, sorted(g["seed"]))
    assert len(tr) == len(QUEUES) * 3 * 3 * 5  # queues x N x max_p x seeds
    cg = ns[ns["experiment"] == "fig6-9"]
    assert len(cg) == 2 * 2 * 5 * 3  # cases x queues x seeds x windows
    assert ns["utilization"].between(0, 1.0001).all() and ns["drop_rate"].between(0, 1).all()


def test_cross_check_seeds_sweep_runs_the_other_seeds():
    """Full mode adds, per queue, the cross-check's 3 N x 3 max_p with seeds 2-5 (seed 1 is the
    main sweep's run)."""
    from aqmlab import sweeps
    from aqmlab.reproduce.floyd2001_tradeoff import QUEUES, seeds_spec, spec

    for tag in QUEUES:
        sp = sweeps.load_spec(seeds_spec(tag, False))
        assert len(sp.points) == 3 * 3 * 4
        assert {p.seed for p in sp.points} == {2, 3, 4, 5}
        assert spec(tag, False)["base"]["seed"] == 1


def test_cross_check_compares_means_over_seeds_1_to_5():
    """Figs. 1-3's cross-check sets aqmlab's mean beside ns-2's over the seeds ns-2 ran (the rows
    of floyd2001_ns2.csv, seeds 1-5) at every N and max_p, and keeps each seed 1."""
    import pandas as pd

    from aqmlab.reproduce import floyd2001_ns2
    from aqmlab.reproduce.floyd2001_tradeoff import (
        NS2_FLOWS,
        NS2_MAX_P,
        NS2_SEEDS,
        QUEUES,
        ns2_points,
    )

    ns = floyd2001_ns2.load()
    csv_rows = ns.to_dict("records")
    metrics = ("utilization", "mean_queue", "drop_rate")
    mine = [
        {"queue": tag, "flows": n, "max_p": mp, "seed": s}
        | {"utilization": 0.5 + 0.01 * s + n / 1000, "mean_queue": 10.0 * s + mp}
        | {"drop_rate": 0.0001 * s * n}
        for tag in QUEUES
        for n in NS2_FLOWS
        for mp in NS2_MAX_P
        for s in NS2_SEEDS
    ]
    seeds = pd.DataFrame(mine)

    def at(rows, tag, p):
        return [
            r for r in rows if (r["queue"], r["flows"], r["max_p"]) == (tag, p["flows"], p["max_p"])
        ]

    for tag in QUEUES:
        points = ns2_points(seeds, ns, tag)
        want = [(n, mp) for n in NS2_FLOWS for mp in sorted(NS2_MAX_P, reverse=True)]
        assert [(p["flows"], p["max_p"]) for p in points] == want
        for p in points:
            runs = [r for r in at(csv_rows, tag, p) if r["experiment"] == "fig1-3"]
            used = sorted(r["seed"] for r in runs)
            ours = [r for r in at(mine, tag, p) if r["seed"] in used]
            for m in metrics:
                k = len(used)
                assert p["ns2"][m] == pytest.approx(sum(r[m] for r in runs) / k, rel=1e-12)
                assert p["aqmlab"][m] == pytest.approx(sum(r[m] for r in ours) / k, rel=1e-12)
                if k > 1:
                    assert p["seed1"]["ns2"][m] == next(r[m] for r in runs if r["seed"] == 1)
                    assert p["seed1"]["aqmlab"][m] == next(r[m] for r in ours if r["seed"] == 1)
    assert ns2_points(seeds[seeds["seed"] != 3], ns, "ared") == [], "a seed missing: no point"
    assert ns2_points(seeds, ns, "ared")[0]["name"] == "means of seeds 1-5, N=5, max_p 0.5"


def test_floyd2001_groups_can_be_sent_to_worker_processes():
    """The catalogue pickles a group to run it in a worker: no closures in the experiments."""
    import pickle

    from aqmlab.reproduce.catalogue import GROUPS

    groups = [g for g in GROUPS if g.paper.startswith("Floyd, Gummadi")]
    assert len(groups) >= 7
    for g in groups:
        assert pickle.loads(pickle.dumps(g)).name == g.name
