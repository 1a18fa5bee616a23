"""Turning a scenario into a testbed plan (no root needed)."""

import pytest

import aqmlab
from aqmlab.testbed import KERNEL_CC, gateway_args, plan
from aqmlab.testbed.flows import goodput, iperf_client_args
from aqmlab.testbed.scenario import PRIME_LEAD_S, dumps, load, window_clamps
from aqmlab.testbed.testing import dumbbell, tcp_flows

RED = {"type": "red", "limit": 100, "min_th": 5, "max_th": 15}


def test_dumbbell_is_recognised():
    """The slowest link every flow crosses is the bottleneck; senders sit on side a."""
    pl = plan(dumbbell(RED, tcp_flows(3), senders=2, access_delay="5ms"))
    assert pl.link_name == "r1->r2" and pl.link_name_back == "r2->r1"
    assert pl.rate_ab == 10e6
    assert pl.delay_s == pytest.approx(0.025), "bottleneck delay plus the access delays on the path"
    assert pl.hosts == {"a": ["s1"], "b": ["k1"]}
    assert [f.src_side for f in pl.flows] == ["a"] * 3
    assert pl.queue_ab == RED and pl.queue_ba == RED


def test_variants_map_to_kernel_reno():
    """tahoe, reno and newreno all run as the kernel's reno."""
    for v in ("tahoe", "reno", "newreno"):
        assert KERNEL_CC[v] == "reno"
        pl = plan(dumbbell(RED, [{"type": "tcp", "variant": v}]))
        assert pl.flows[0].kernel_cc == "reno"
    assert any(
        "tahoe" in n for n in plan(dumbbell(RED, [{"type": "tcp", "variant": "tahoe"}])).notes
    )


def test_count_and_uniform_start_expand_as_the_simulator_does():
    """`count` makes copies; uniform start times are the simulator's, drawn from the scenario seed."""
    sc = dumbbell(RED, [{"type": "tcp", "count": 5, "start": {"uniform": [0, 1]}}])
    a = plan(sc)
    assert len(a.flows) == 5
    starts = [f["start"] for f in aqmlab.Scenario(sc).normalized()["flows"]]
    assert [f.start_s for f in a.flows] == starts
    assert all(0 <= f.start_s <= 1 for f in a.flows)


def test_routes_are_the_simulators():
    """Flows follow the simulator's routes, link costs included, so the access delay is that of the cheaper path."""
    sc = dumbbell(RED, tcp_flows(1), access_delay="1ms")
    sc["link"][0]["cost"] = 5  # s1 - r1 direct: one hop but dear
    sc["link"] += [
        {"a": "s1", "b": "x", "rate": "1Gbps", "delay": "10ms"},
        {"a": "x", "b": "r1", "rate": "1Gbps", "delay": "10ms"},
    ]
    assert plan(sc).flows[0].path_delay_s == pytest.approx(0.02)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda sc: sc["flow"][0].update(type="udp"), "flow[0].type"),
        (lambda sc: sc["flow"][0].update(variant="vegas"), "flow[0].variant"),
        (lambda sc: sc["flow"][0].update(bogus=1), "flow[0].bogus"),
        (lambda sc: sc["link"][1].pop("delay"), "link[1]"),
    ],
)
def test_keys_the_simulator_refuses_are_refused(mutate, field):
    """The testbed accepts only scenarios the simulator accepts, with the simulator's message."""
    sc = dumbbell(RED, tcp_flows(1))
    mutate(sc)
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        plan(sc)


def test_a_variant_linux_lacks_is_refused_unless_kernel_cc_is_given():
    """LEDBAT has no Linux module: refused naming the flow's variant; with kernel_cc the
    flow runs with that algorithm instead."""
    sc = dumbbell(RED, [{"type": "tcp", "variant": "ledbat"}])
    with pytest.raises(ValueError, match=r"flow\[0\]\.variant = 'ledbat': Linux has no module"):
        plan(sc)
    assert plan(sc, kernel_cc="cubic").flows[0].kernel_cc == "cubic"


def test_kernel_cc_runs_every_tcp_flow_with_another_algorithm():
    """kernel_cc (e.g. cubic for every variant) replaces the variant's mapping."""
    pl = plan(dumbbell(RED, tcp_flows(2)), kernel_cc="cubic")
    assert [f.kernel_cc for f in pl.flows] == ["cubic", "cubic"]
    assert [f.variant for f in pl.flows] == ["reno", "reno"]


def test_cbr_flow_becomes_udp_at_its_rate():
    """A cbr flow runs as iperf3 UDP at the scenario's rate and packet size."""
    pl = plan(dumbbell(RED, [{"type": "cbr", "rate": "20Mbps", "packet_size": 1000}]))
    f = pl.flows[0]
    args = iperf_client_args(pl, f)
    assert f.kind == "udp" and f.rate_bps == 20e6
    assert (
        "-u" in args
        and args[args.index("-b") + 1] == "20000000"
        and args[args.index("-l") + 1] == "972"
    )


def test_tcp_client_arguments():
    """TCP flows name the congestion control and the MSS for the packet size; max_window
    clamps the sender's window to its receiver, in packets."""
    pl = plan(
        dumbbell(
            RED, [{"type": "tcp", "variant": "newreno", "packet_size": 1000, "max_window": 20}]
        )
    )
    args = iperf_client_args(pl, pl.flows[0])
    assert args[args.index("-C") + 1] == "reno"
    assert args[args.index("-M") + 1] == "960"
    assert window_clamps(pl) == {("a", "s1", "k1"): 20}


def test_simulator_defaults_apply():
    """A flow without packet_size, max_window or variant gets the simulator's defaults
    (1000 B, no receive-window limit, newreno): no route's window is clamped."""
    pl = plan(dumbbell(RED, [{"type": "tcp"}]))
    f = pl.flows[0]
    assert (f.packet_size, f.max_window, f.variant, f.kernel_cc) == (1000, None, "newreno", "reno")
    assert window_clamps(pl) == {}


def test_ecn_queue_turns_ecn_on():
    """Flows with ecn = true turn the namespaces' ECN on; the queue's ecn alone does not."""
    assert not plan(dumbbell({**RED, "ecn": True}, tcp_flows(2))).ecn
    pl = plan(dumbbell({**RED, "ecn": True}, tcp_flows(2, ecn=True)))
    assert pl.ecn and all(f.ecn for f in pl.flows)


def test_gateway_arguments_carry_the_queues():
    """The gateway gets rate, delay, both queues and the measurement window."""
    cbr = [{"type": "cbr", "rate": "1Mbps"}]  # no window to clamp: no lead
    args = gateway_args(plan(dumbbell(RED, cbr, duration=8, warmup=2)))
    assert args[args.index("--queue-ab") + 1] == '{"type":"red","limit":100,"min_th":5,"max_th":15}'
    assert args[args.index("--duration") + 1] == "8.0" and args[args.index("--warmup") + 1] == "2.0"


def test_the_gateway_runs_the_queue_the_profile_gives():
    """The linux profile's RED counts bytes and draws one random number per mark
    (`aqmlab profiles linux`): the gateway gets those keys as the simulator fills them,
    a key written in the table wins, and a queue table's own profile comes first."""
    cbr = [{"type": "cbr", "rate": "1Mbps"}]
    sc = {**dumbbell(RED, cbr), "profile": "linux"}
    assert plan(sc).queue_ab == {**RED, "queue_in_bytes": True, "efficient": True}
    sc = {**dumbbell({**RED, "efficient": False}, cbr), "profile": "linux"}
    assert plan(sc).queue_ab["efficient"] is False
    pl = plan(dumbbell({**RED, "profile": "linux"}, cbr))
    assert (pl.queue_ab["queue_in_bytes"], "profile" in pl.queue_ab) == (True, False)
    assert plan(dumbbell(RED, cbr)).queue_ab == RED  # rfc: nothing filled
    n = aqmlab.Scenario({**dumbbell(RED, cbr), "profile": "linux"}).normalized()
    assert {k: n["links"][1]["queue_ab"][k] for k in ("queue_in_bytes", "efficient")} == {
        "queue_in_bytes": True,
        "efficient": True,
    }


def test_window_clamps_are_primed_before_time_zero():
    """With a max_window the gateway's clock runs PRIME_LEAD_S before the scenario's
    time 0 (the clamps are set up then): its window is the scenario's after the lead."""
    pl = plan(dumbbell(RED, tcp_flows(1), duration=8, warmup=2))
    assert pl.lead_s == PRIME_LEAD_S > 0
    args = gateway_args(pl)
    assert float(args[args.index("--warmup") + 1]) == 2 + PRIME_LEAD_S
    assert float(args[args.index("--duration") + 1]) == 8 + PRIME_LEAD_S


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda sc: sc["flow"][0].update(type="web"), "flow[0].type"),
        (lambda sc: sc["flow"][0].update(dst="nowhere"), "flow[0].dst"),
        (lambda sc: sc["link"][1].update(rate="10 parsecs"), "link[1].rate"),
        (lambda sc: sc["flow"][0].update(variant="vegas"), "flow[0].variant"),
        (lambda sc: sc.pop("duration"), "duration"),
        (lambda sc: sc["flow"][0].update(src="k1"), "flow[0]"),
    ],
)
def test_errors_name_the_field(mutate, field):
    """An unusable scenario is refused with the path of the offending field."""
    sc = dumbbell(RED, tcp_flows(1))
    mutate(sc)
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        plan(sc)


def test_not_a_dumbbell_is_refused():
    """Flows that share no link cannot run on one gateway."""
    sc = dumbbell(RED, tcp_flows(1))
    sc["link"].append({"a": "x", "b": "y", "rate": "1Mbps", "delay": "1ms", "queue": RED})
    sc["flow"].append({"type": "tcp", "src": "x", "dst": "y"})
    with pytest.raises(ValueError, match="dumbbell"):
        plan(sc)


def test_toml_round_trip(tmp_path):
    """A scenario dict written as TOML reads back the same."""
    sc = dumbbell(
        RED, tcp_flows(2) + [{"type": "cbr", "rate": "1Mbps", "start": {"uniform": [0, 1]}}]
    )
    p = tmp_path / "s.toml"
    p.write_text(dumps(sc))
    assert load(p) == sc


def test_goodput_counts_only_the_window():
    """Goodput prorates the receiver's intervals to [warmup, duration]."""
    server = {
        "intervals": [
            {"sum": {"start": i * 0.5, "end": (i + 1) * 0.5, "bytes": 625_000}} for i in range(20)
        ]
    }
    # 10 Mb/s for 10 s starting at t = 1; window [2, 8]
    assert goodput(server, None, 1.0, 2.0, 8.0) == pytest.approx(10e6)
    assert goodput(server, None, 5.0, 2.0, 8.0) == pytest.approx(10e6 * 3 / 6)


def test_window_clamps_per_host_pair_and_the_prediction_uses_them():
    """Each (sender, receiver) pair is clamped to its flows' max_window, and the
    simulator's prediction (the same scenario, normalised) runs each flow with the
    window the live run clamps."""
    sc = dumbbell(
        RED,
        [
            {"type": "tcp", "src": "s1", "max_window": 20, "packet_size": 1500},
            {"type": "tcp", "src": "s2", "max_window": 100, "packet_size": 1000, "count": 2},
        ],
        senders=2,
    )
    pl = plan(sc)
    clamps = window_clamps(pl)
    assert clamps == {("a", "s1", "k1"): 20, ("a", "s2", "k1"): 100}
    predicted = aqmlab.Scenario(sc).normalized()["flows"]
    assert [clamps[("a", f["src"], f["dst"])] for f in predicted] == [
        f["tcp"]["max_window"] for f in predicted
    ]


def test_flows_of_one_host_pair_need_one_window():
    """Linux keys the clamp by the two addresses: flows of one pair with different
    windows are refused, naming the flow's field and the other flow."""
    sc = dumbbell(RED, [{"type": "tcp", "max_window": 20}, {"type": "tcp", "max_window": 30}])
    with pytest.raises(
        ValueError, match=r"flow\[1\]\.max_window = 30: flow\[0\] from s1 to k1 has 20"
    ):
        plan(sc)


def test_the_hosts_receive_mode_is_checked_before_anything_is_built(tmp_path, monkeypatch):
    """A receive mode other than thread or inline is refused, naming the setting and the allowed values; without one the environment's or the default applies."""
    from aqmlab.testbed.network import DEFAULT_RECEIVE, RECEIVE_MODES, Testbed

    with pytest.raises(ValueError, match=r"AQMLAB_TESTBED_RECEIVE.*thread.*inline.*'napi'"):
        Testbed(tmp_path, [], {"a": 1, "b": 1}, gateway="gw", receive="napi")
    monkeypatch.delenv("AQMLAB_TESTBED_RECEIVE", raising=False)
    assert Testbed(tmp_path, [], {}, gateway="gw").receive == DEFAULT_RECEIVE
    monkeypatch.setenv("AQMLAB_TESTBED_RECEIVE", "inline")
    assert Testbed(tmp_path, [], {}, gateway="gw").receive == "inline"
    assert Testbed(tmp_path, [], {}, gateway="gw", receive="thread").receive == "thread"
    assert RECEIVE_MODES == ("thread", "inline")
    assert not list(tmp_path.iterdir()), "nothing is built before the context is entered"


def test_the_scheduling_setting_is_checked_and_its_refusals_reported(tmp_path, monkeypatch):
    """A scheduling other than realtime or normal is refused, naming the setting and the allowed values; the default is realtime; the run's record lists what the gateway and the hosts could not apply."""
    from aqmlab.testbed.network import DEFAULT_SCHEDULING, SCHEDULING, Testbed

    with pytest.raises(ValueError, match=r"AQMLAB_TESTBED_SCHEDULING.*realtime.*normal.*'fifo'"):
        Testbed(tmp_path, [], {"a": 1, "b": 1}, gateway="gw", scheduling="fifo")
    monkeypatch.delenv("AQMLAB_TESTBED_SCHEDULING", raising=False)
    assert DEFAULT_SCHEDULING == "realtime" and SCHEDULING == ("realtime", "normal")
    assert Testbed(tmp_path, [], {}, gateway="gw").scheduling == "realtime"
    monkeypatch.setenv("AQMLAB_TESTBED_SCHEDULING", "normal")
    tb = Testbed(tmp_path, [], {}, gateway="gw")
    assert tb.scheduling == "normal"
    tb.scheduling_errors.append("hosts' traffic: nice -n -20: Permission denied")
    refused = {"policy": "other", "priority": 0, "error": "SCHED_FIFO priority 50: EPERM"}
    rec = tb.scheduling_record({"gateway": {"scheduling": refused}})
    assert rec["setting"] == "normal" and rec["hosts"] == "other"
    assert rec["receive"] == tb.receive and rec["gateway"] == refused
    assert rec["errors"] == [
        "gateway: SCHED_FIFO priority 50: EPERM",
        "hosts' traffic: nice -n -20: Permission denied",
    ]
    assert not list(tmp_path.iterdir()), "nothing is built before the context is entered"
