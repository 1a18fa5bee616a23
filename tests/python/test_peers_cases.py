"""The peer benchmark's dumbbell cases (benchmarks/peers/scenarios.py) in aqmlab's scenario
shape: every case is accepted by the simulator as built (nothing is run). No peer needed."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "peers"))
import scenarios  # noqa: E402
from aqmlab import _native  # noqa: E402

CASES = {c.name: c for c in scenarios.all_cases()}


@pytest.mark.parametrize(
    "name", ["S1-n5-red", "S2-red", "SC-f100-1Gbps", "M-n20-pie-cubic-nsmode", "M-n20-droptail-bbr"]
)
def test_case_is_accepted(name):
    case = CASES[name]
    _native.Simulation(case.aqmlab_toml())


def test_fast_access_lines_raise_the_memory_budget_to_their_worst_case():
    # S2's 10 Gb/s access lines could hold ~23 GB of ACK-sized packets: above the default
    # budget (half the machine's memory), so the case states its own, above that worst case
    s2 = CASES["S2-red"]
    worst = s2.worst_case_bytes()
    lines = 100 * 4 * (10e9 * min(s2.access_delays()) / 8 / scenarios.ACK_SIZE)
    assert worst > 80 * lines
    assert s2.aqmlab_scenario()["max_memory"] >= worst
    # a 10 Mb/s case keeps the default
    assert "max_memory" not in CASES["M-n20-pie-cubic"].aqmlab_scenario()


def test_bbr_cases_run_with_sack_in_both_simulators():
    # aqmlab's BBR needs SACK (docs/simulator.md); ns-3's TcpBbr gets it too, and none of
    # the NewReno hooks the ns-2 cases put on ns-3's socket
    for name in ("M-n5-droptail-bbr", "M-n20-codel-bbr", "M-n5-fq_codel-bbr"):
        case = CASES[name]
        flows = case.aqmlab_scenario()["flow"]
        assert all(f["variant"] == "bbr" and f["sack"] for f in flows)
        params = dict(line.split(" ", 1) for line in case.params().splitlines())
        assert (params["tcp"], params["ns3_sack"], params["newreno_as_ns2"]) == ("bbr", "1", "0")
    assert "ns3_sack" not in CASES["M-n5-codel-cubic"].params()


def test_nsmode_gives_aqmlab_the_timer_the_hook_gives_ns3():
    """Under -nsmode aqmlab runs ns-3's profile, but what a case gives every simulator
    wins: ns-3's NewRenoAsNs2 hook restarts the timer at a fast retransmit (ns-3 3.37
    alone keeps it, the profile's fast_retransmit_timer = "keep"), so aqmlab's flows
    restart it too; limited transmit is off in all."""
    ns = [c for c in CASES.values() if c.name.endswith("-nsmode") and c.group in ("C", "M")]
    assert {c.tcp for c in ns} == {"cubic", "newreno"}
    for case in ns:
        params = dict(line.split(" ", 1) for line in case.params().splitlines())
        assert params["newreno_as_ns2"] == "1"
        d = case.aqmlab_scenario()
        assert d["profile"] == "ns3"
        assert all(f["fast_retransmit_timer"] == "restart" for f in d["flow"])
        assert all(f["limited_transmit"] is False for f in d["flow"])
    assert "fast_retransmit_timer" not in CASES["M-n20-codel-cubic"].aqmlab_scenario()["flow"][0]
