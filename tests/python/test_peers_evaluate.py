"""The converter of the peer benchmark's E cases (benchmarks/peers/evaluate_cases.py):
an `aqmlab evaluate` scenario becomes the parameters of ns3/evaluate.cc. No ns-3 needed."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "peers"))
import evaluate_cases as ec  # noqa: E402
from aqmlab.evaluate import scenarios  # noqa: E402


def _converted(sid, variant, aqm, quick=True):
    pt = ec.point(sid, variant, aqm, quick)
    data = scenarios.build(sid, variant, {"type": aqm}, 1, quick, False)
    norm = ec.normalized(pt)
    return data, norm, ec.params(norm)


def _link(data, a, b):
    for lk in data["link"]:
        if (lk["a"], lk["b"]) in ((a, b), (b, a)):
            return lk
    raise AssertionError(f"no link {a}-{b}")


@pytest.mark.parametrize("sid,variant", [("5.2", "default"), ("5.3.2", "default"), ("6", "10ms")])
def test_flows_and_links_follow_the_scenario(sid, variant):
    data, norm, p = _converted(sid, variant, "red")
    flows = data["flow"]
    assert p["flows"] == len(flows)
    assert p["duration"] == data["duration"] and p["warmup"] == data["warmup"]
    b = _link(data, "l", "r")
    assert p["bottleneck_rate"] == b["rate"] and p["bottleneck_delay"] == b["delay"]
    assert p["limit"] == b["queue_ab"]["limit"] and p["reverse_limit"] == b["queue_ba"]["limit"]
    for i, f in enumerate(flows):
        assert p["flow_name"][i] == f["name"]
        assert p["flow_type"][i] == f["type"]
        assert p["flow_variant"][i] == (f["variant"] if f["type"] == "tcp" else "-")
        src, dst = _link(data, f["src"], "l"), _link(data, "r", f["dst"])
        assert p["flow_src_delay"][i] == src["delay"] and p["flow_dst_delay"][i] == dst["delay"]
        assert p["flow_src_rate"][i] == src["rate"] and p["flow_dst_rate"][i] == dst["rate"]
        # the start time aqmlab drew for the flow, inside the scenario's range
        lo, hi = f["start"]["uniform"]
        assert p["flow_start"][i] == norm["flows"][i]["start"] and lo <= p["flow_start"][i] <= hi
        if f["type"] == "cbr":
            assert p["flow_rate"][i] == pytest.approx(f["rate"])
        else:
            assert p["flow_iw"][i] == f["initial_window"] and p["flow_rate"][i] == 0
    assert p["segment_size"] == p["packet_size"] - 40 == flows[0]["packet_size"] - 40


def test_rtt_variant_sets_the_sender_access_delay():
    # scenario 6: sender access R/2 - 1.5 ms for the flow at R, 50 - 1.5 ms for the other
    for r in (10, 100, 400):
        _, _, p = _converted("6", f"{r}ms", "codel")
        i = p["flow_name"].index("rtt")
        rtt = 2 * (p["flow_src_delay"][i] + p["bottleneck_delay"] + p["flow_dst_delay"][i])
        assert rtt == pytest.approx(r / 1000)


def test_congestion_levels_have_their_flow_counts():
    for sid in ("8.2.2", "8.2.3", "8.2.4"):
        data, _, p = _converted(sid, "default", "red")
        assert p["flows"] == len(data["flow"]) and set(p["flow_variant"]) == {"newreno"}


def test_queue_parameters_are_the_normalised_defaults():
    for aqm in ("red", "codel", "pie", "fq_codel"):
        _, norm, p = _converted("5.1.1", "default", aqm)
        q = norm["links"][0]["queue_ab"]
        assert p["queue"] == aqm and p["limit"] == q["limit"]
        if aqm == "red":
            assert (p["red_min_th"], p["red_max_th"], p["red_w_q"], p["red_max_p"]) == (
                q["min_th"],
                q["max_th"],
                q["w_q"],
                q["max_p"],
            )
        elif aqm == "pie":
            assert (p["pie_target"], p["pie_tupdate"]) == (q["target"], q["tupdate"])
        else:
            assert (p["codel_target"], p["codel_interval"]) == (q["target"], q["interval"])


def test_params_text_round_trips():
    _, _, p = _converted("5.3.1", "default", "red")
    back = ec.parse_params(ec.params_text(p))
    assert back["flow_name"] == p["flow_name"]
    assert [float(x) for x in back["flow_start"]] == p["flow_start"]
    assert float(back["bottleneck_rate"]) == p["bottleneck_rate"]


def test_unsupported_queue_is_named():
    with pytest.raises(ValueError, match="queue.type"):
        ec._queue_params({"type": "sfq", "limit": 10})


def test_verdict_thresholds():
    assert ec.verdict("pp", 0.50, 0.519) == "ok" and ec.verdict("pp", 0.50, 0.53) == "DIFF"
    assert ec.verdict("rel", 0.0114, 0.010) == "ok" and ec.verdict("rel", 0.0116, 0.010) == "DIFF"


def test_ns3_metrics_per_class_loss_from_the_flow_counts():
    """ns-3's per-flow queue-disc drops and arrivals become aqmlab's class_loss_rate
    columns: per class, drops summed over arrivals summed."""
    p = ec.params(ec.normalized(ec.point("5.2", "default", "red", True)))
    res = {
        "flow_goodput_bps": [6e6, 3e6],
        "flow_arrivals": [40000, 20000],
        "flow_drops": [120, 20],
        "utilization": 0.9,
        "delay_mean": 0.005,
        "delay_p95": 0.015,
        "loss_rate": 140 / 60000,
        "wall_time": 1.0,
    }
    m = ec.ns3_metrics("5.2", p, res)
    by_class = dict(zip(p["flow_name"], zip(res["flow_drops"], res["flow_arrivals"])))
    for c, (d, a) in by_class.items():
        assert m[f"class_loss_rate_{c}"] == pytest.approx(d / a)
    del res["flow_drops"]
    assert not any(k.startswith("class_loss_rate_") for k in ec.ns3_metrics("5.2", p, res))


def test_ecn_cases_are_the_scenarios_with_an_ecn_variant():
    from aqmlab.evaluate import point as evaluate_point

    with_ecn = []
    for sid in ec.SCENARIO_IDS:
        variant = "10ms" if sid == "6" else "default"
        try:
            evaluate_point.scenario_of(ec.point(sid, variant, "codel", True, 1, True))
        except ValueError:
            continue
        with_ecn.append(sid)
    assert tuple(with_ecn) == ec.ECN_SCENARIO_IDS
    names = [c[0] for c in ec.all_cases() if c[4] and not c[5]]
    assert len(names) == len(ec.ECN_SCENARIO_IDS) * len(ec.AQMS)
    assert all(n.endswith("-ecn") for n in names)


def test_ecn_case_converts_with_ecn_on():
    p = ec.params(ec.normalized(ec.point("5.2", "default", "pie", True, 1, True)))
    assert p["ecn"] and p["queue_ecn"]
    p = ec.params(ec.normalized(ec.point("5.2", "default", "pie", True)))
    assert not p["ecn"] and not p["queue_ecn"]


def test_an_exact_name_selects_that_case_alone():
    assert [c[0] for c in ec.select("E-5.2-codel")] == ["E-5.2-codel"]
    assert [c[0] for c in ec.select("E-5.2-codel-ecn")] == ["E-5.2-codel-ecn"]
    assert {c[0] for c in ec.select("E-5.2-cod")} == {"E-5.2-codel", "E-5.2-codel-ecn"}


def test_nsmode_cases_are_every_case_in_the_ns3_profile():
    """Each E case runs again as `-nsmode`, aqmlab in its `ns3` profile; an item selects
    those only when it says `-nsmode`."""
    plain = [c for c in ec.all_cases() if not c[5]]
    ns = [c for c in ec.all_cases() if c[5]]
    assert [c[0] for c in ns] == [c[0] + "-nsmode" for c in plain]
    assert [c[1:5] for c in ns] == [c[1:5] for c in plain]
    assert {c[5] for c in ns} == {"ns3"} and {c[5] for c in plain} == {""}
    assert [c[0] for c in ec.select("E-*-nsmode")] == [c[0] for c in ns]
    assert [c[0] for c in ec.select("E-5.2-codel-nsmode")] == ["E-5.2-codel-nsmode"]
    assert [c[0] for c in ec.select("E-*-red")] == [c[0] for c in plain if c[0].endswith("-red")]


def test_nsmode_runs_aqmlab_in_the_profile(monkeypatch):
    """aqmlab's side of a `-nsmode` case builds the point's scenario in the ns3 profile:
    the profile named, ns-3's device queue on the bottleneck and the queue one shorter
    (evaluate_rules.apply); ns-3's side is the point as it is."""
    from aqmlab.evaluate import point as evaluate_point

    pt = ec.point("5.2", "default", "codel", True)
    base = evaluate_point.scenario_of(pt)
    seen = {}

    def fake_run(p):
        seen["scenario"] = evaluate_point.scenario_of(p)
        return {"utilization": 1.0}

    monkeypatch.setattr(evaluate_point, "run", fake_run)
    assert ec.aqmlab_metrics(dict(pt, profile="ns3")) == {"utilization": 1.0}
    d = seen["scenario"]
    assert d["profile"] == "ns3"
    bott = next(lk for lk in d["link"] if {lk["a"], lk["b"]} == set(d["bottleneck"].split("->")))
    base_bott = next(
        lk for lk in base["link"] if {lk["a"], lk["b"]} == set(base["bottleneck"].split("->"))
    )
    assert bott["device_queue"] == 1
    for k in ("queue_ab", "queue_ba"):
        assert bott[k]["limit"] == base_bott[k]["limit"] - 1
    assert evaluate_point.scenario_of(pt) == base  # put back
    ec.aqmlab_metrics(pt)
    assert "profile" not in seen["scenario"] or seen["scenario"]["profile"] != "ns3"


def test_queue_set_reaches_both_sides():
    import evaluate_run

    qs = evaluate_run.parse_queue_set("derandomize=false,target=0.02")
    assert qs == {"derandomize": False, "target": 0.02}
    pt = ec.point("8.2.3", "default", "pie", True, 1, True)
    name = evaluate_run.with_queue_set("E-8.2.3-pie-ecn", pt, qs)
    assert name == "E-8.2.3-pie-ecn+derandomize=false+target=0.02"
    p = ec.params(ec.normalized(pt))
    assert p["pie_derandomize"] is False and p["pie_target"] == 0.02
    with pytest.raises(SystemExit, match="KEY=VALUE"):
        evaluate_run.parse_queue_set("derandomize")


def test_profile_ns3_gives_the_bottleneck_alone_a_device_queue():
    """`evaluate_rules.py --profiles ns3`: the profile's one-packet device queue (ns-3's,
    under its queue disc) on the bottleneck link only, its queues' limit one less; the
    profile's TCP keys reach the flows through the scenario reader."""
    import aqmlab
    import evaluate_rules as er

    data = scenarios.build("5.1.1", "default", {"type": "codel"}, 1, True, False)
    before = _link(data, "l", "r")["queue_ab"]["limit"]
    er.apply("ns3", data)
    b = _link(data, "l", "r")
    assert data["profile"] == "ns3"
    assert b["device_queue"] == 1 and b["queue_ab"]["limit"] == before - 1
    assert [lk["device_queue"] for lk in data["link"] if lk is not b] == [0] * (
        len(data["link"]) - 1
    )
    norm = aqmlab.Scenario(data).normalized()
    assert [lk["device_queue"] for lk in norm["links"]] == [
        1 if lk["a"] in ("l", "r") and lk["b"] in ("l", "r") else 0 for lk in norm["links"]
    ]


def test_profile_spec_adds_keys_by_scope():
    import evaluate_rules as er

    name, keys = er.parse("rfc+fast_retransmit_timer=keep+queue.min_backlog=2+link.device_queue=1")
    assert name == "rfc"
    assert keys == {
        "flow": {"fast_retransmit_timer": "keep"},
        "queue": {"min_backlog": 2},
        "link": {"device_queue": 1},
    }
    data = scenarios.build("5.1.1", "default", {"type": "red"}, 1, True, False)
    before = _link(data, "l", "r")["queue_ab"]["limit"]
    er.apply("rfc+prep_delay=0+queue.min_backlog=2+link.device_queue=1", data)
    b = _link(data, "l", "r")
    assert b["device_queue"] == 1 and b["queue_ab"]["limit"] == before - 1
    assert b["queue_ab"]["min_backlog"] == 2
    assert all(f["prep_delay"] == 0 for f in data["flow"] if f.get("type", "tcp") == "tcp")
    with pytest.raises(SystemExit, match="KEY=VALUE"):
        er.parse("rfc+keep")
    with pytest.raises(SystemExit, match="unknown"):
        er.apply("ns4", scenarios.build("5.1.1", "default", {"type": "red"}, 1, True, False))


def test_queue_keys_go_to_the_bottleneck_direction_alone():
    """A profile spec's queue.KEY is written into the queue of the bottleneck's direction
    only: the reverse direction's Drop Tail, which has no CoDel keys, is left as it was
    (and the scenario still reads); a `queue` table shared by both directions is split."""
    import aqmlab
    import evaluate_rules as er

    data = scenarios.build("8.2.2", "default", {"type": "codel"}, 1, True, False)
    reverse = dict(_link(data, "l", "r")["queue_ba"])
    er.apply("rfc+queue.maxpacket=1499", data)
    b = _link(data, "l", "r")
    assert data["bottleneck"] == "l->r" and (b["a"], b["b"]) == ("l", "r")
    assert b["queue_ab"]["maxpacket"] == 1499 and b["queue_ba"] == reverse
    norm = aqmlab.Scenario(data).normalized()
    bott = next(lk for lk in norm["links"] if (lk["a"], lk["b"]) == ("l", "r"))
    assert bott["queue_ab"]["maxpacket"] == 1499 and "maxpacket" not in bott["queue_ba"]
    # a link written r -> l with one queue table: the bottleneck l -> r is its queue_ba
    link = {"a": "r", "b": "l", "queue": {"type": "codel", "limit": 100}}
    d = {"bottleneck": "l->r", "flow": [], "link": [link]}
    er.apply("rfc+queue.maxpacket=1499", d)
    assert link["queue_ba"] == {"type": "codel", "limit": 100, "maxpacket": 1499}
    assert link["queue"] == {"type": "codel", "limit": 100} and "queue_ab" not in link


def test_nsmode_keeps_what_ns3_is_given(monkeypatch):
    """ns3/evaluate.cc runs PIE with the point's derandomization (params'
    pie_derandomize), so aqmlab's side of a -nsmode case keeps it too, over the ns3
    profile's derandomize = false."""
    from aqmlab.evaluate import point as evaluate_point

    pt = ec.point("8.2.2", "default", "pie", True)
    given = ec.params(ec.normalized(pt))["pie_derandomize"]
    seen = {}

    def fake_run(p):
        seen["scenario"] = evaluate_point.scenario_of(p)
        return {}

    monkeypatch.setattr(evaluate_point, "run", fake_run)
    ec.aqmlab_metrics(dict(pt, profile="ns3"))
    d = seen["scenario"]
    bott = next(lk for lk in d["link"] if {lk["a"], lk["b"]} == set(d["bottleneck"].split("->")))
    pies = [q for q in (bott.get("queue_ab"), bott.get("queue_ba")) if q and q["type"] == "pie"]
    assert pies and all(q["derandomize"] == bool(given) for q in pies)


def test_nsmode_runs_without_the_send_jitter(monkeypatch):
    """ns3/evaluate.cc's senders have no send jitter (params carries no prep_delay), so
    aqmlab's side of a -nsmode case runs each TCP flow with prep_delay 0; the plain case
    keeps the point's, and a prep_delay key of the profile spec still sets one."""
    from aqmlab.evaluate import point as evaluate_point
    from aqmlab.sim import Scenario

    pt = ec.point("5.3.1", "default", "codel", True)
    flows = ec.normalized(pt)["flows"]
    own = [f["prep_delay"] for f in flows]
    tcp = [f["type"] == "tcp" for f in flows]
    assert any(tcp) and not all(tcp)
    assert all(d == scenarios.PREP_DELAY > 0 for d, t in zip(own, tcp) if t)
    assert not any("prep_delay" in k for k in ec.params(ec.normalized(pt)))
    seen = {}

    def fake_run(p):
        norm = Scenario(evaluate_point.scenario_of(p)).normalized()
        seen["prep"] = [f["prep_delay"] for f in norm["flows"]]
        return {}

    monkeypatch.setattr(evaluate_point, "run", fake_run)
    ec.aqmlab_metrics(dict(pt, profile="ns3"))
    assert seen["prep"] == [0.0 if t else d for d, t in zip(own, tcp)]
    ec.aqmlab_metrics(pt)
    assert seen["prep"] == own
    ec.aqmlab_metrics(dict(pt, profile="ns3+prep_delay=0.001"))
    assert seen["prep"] == [0.001 if t else d for d, t in zip(own, tcp)]


def test_delay_split_follows_the_device_queue():
    """Three packets arrive together at an idle line of one time unit per packet, over a
    one-packet device queue: the first goes to the line at once, the second to the device
    (the line is busy), the third waits in the queue disc until the first leaves the line
    (the second then leaves the device for it) and in the device until the second has.
    Queueing delays (arrival to the start of transmission) 0, 1, 2."""
    arrivals, starts = [0.0, 0.0, 0.0], [0.0, 1.0, 2.0]
    in_disc = [0.0, 0.0, 1.0]  # until the device has room
    in_device = [s - a - q for a, s, q in zip(arrivals, starts, in_disc)]
    disc, dev = ec.delay_split(arrivals, starts, device=1)
    assert disc == pytest.approx(sum(in_disc) / 3)
    assert dev == pytest.approx(sum(in_device) / 3)
    assert disc + dev == pytest.approx(sum(s - a for a, s in zip(arrivals, starts)) / 3)
    # without a device queue all of the waiting is in the queue disc
    assert ec.delay_split(arrivals, starts, device=0) == pytest.approx((1.0, 0.0))
    # a packet arriving while the line is busy and the device empty goes to the device
    assert ec.delay_split([0.0, 0.5], [0.0, 1.0], device=1, window=(0.5, 2)) == (0.0, 0.5)
    with pytest.raises(ValueError, match="before it arrives"):
        ec.delay_split([1.0], [0.5])


def test_ns3_transmissions_read_the_tx_trace():
    trace = "tx 31.000000000 0 0.002400000\nqueue 31.1 3\ntx 31.001200000 1 0.001200000\n"
    a, s = ec.ns3_transmissions(trace)
    assert s == [31.0, 31.0012]
    assert a == pytest.approx([31.0 - 0.0024, 31.0012 - 0.0012])


def test_aqmlab_delay_counts_the_device_queue():
    """aqmlab's `delay_mean` is RFC 7928's queueing delay at the bottleneck, the packet's
    arrival at the queue to the start of its transmission, as ns3/evaluate.cc measures it
    (queue disc's Enqueue to the device's PhyTxBegin): with the `ns3` profile's one-packet
    device queue it is the mean of the packet trace's departure minus arrival over the
    window, the time in the device included (delay_split's two parts)."""
    import evaluate_rules as er
    from aqmlab.sim import Scenario, simulate

    data = scenarios.build("8.2.2", "default", {"type": "codel"}, 1, True, False)
    er.apply("ns3", data)
    data["trace"] = {"packets": [scenarios.BOTTLENECK]}
    res = simulate(Scenario(data), progress=False)
    link = res.summary["links"][scenarios.BOTTLENECK]
    w = (float(res.summary["warmup"]), float(res.summary["duration"]))
    a, s = ec.aqmlab_transmissions(res.traces["packets"], scenarios.BOTTLENECK)
    waits = [t - x for x, t in zip(a, s) if w[0] <= t <= w[1]]
    assert len(waits) == link["departures"]
    assert sum(waits) / len(waits) == pytest.approx(link["mean_delay"], rel=1e-9)
    disc, dev = ec.delay_split(a, s, 1, w)
    assert disc + dev == pytest.approx(link["mean_delay"], rel=1e-9)
    # the device holds one packet: at most one transmission time (1500 bytes) each
    tx = 1500 * 8 / float(_link(data, "l", "r")["rate"])
    assert 0 < dev <= tx and disc > 0, (disc, dev, tx)
