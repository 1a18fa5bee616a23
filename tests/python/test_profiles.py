"""Behaviour profiles from Python: the listing, the CLI, and a scenario's profile key."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from aqmlab.profiles import format_profile, profile, profiles
from aqmlab.sim import Scenario, simulate

BASE: dict[str, Any] = {
    "duration": 2.0,
    "link": [
        {"a": "s1", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
        {
            "a": "r1",
            "b": "k1",
            "rate": "10Mbps",
            "delay": "20ms",
            "queue": {"type": "red", "limit": 100},
        },
    ],
    "flow": [{"src": "s1", "dst": "k1"}],
}


def test_profiles_are_listed_rfc_first() -> None:
    """The four profiles come back in order, each with its keys and the peer's names."""
    names = [p["name"] for p in profiles()]
    assert names == ["rfc", "ns2", "ns3", "linux"]
    ns2 = profile("ns2")
    assert ns2["tcp"]["max_window"] == {"value": 20, "why": "window_ 20"}
    assert ns2["queue"]["red"]["mark_method"]["value"] == "ns2_wait"
    assert "max_window = 20" in format_profile(ns2)
    with pytest.raises(ValueError, match="allowed rfc, ns2, ns3, linux"):
        profile("ns4")


def test_scenario_profile_key_from_python() -> None:
    """`scenario["profile"] = "ns2"` gives the flows ns-2's window and the RED queue its
    rules; the summary records both."""
    sc = copy.deepcopy(BASE)
    sc["profile"] = "ns2"
    n = Scenario(sc).normalized()
    assert n["flows"][0]["tcp"]["max_window"] == 20
    res = simulate(sc, progress=False)
    uses = {(u["scope"], u["profile"]) for u in res.summary["profiles"]}
    assert ("scenario", "ns2") in uses and ("flow[0]", "ns2") in uses
    assert ("link[1].queue", "ns2") in uses
    # without a profile the window is not limited
    assert Scenario(copy.deepcopy(BASE)).normalized()["flows"][0]["tcp"]["max_window"] is None


def test_cli_prints_a_profile() -> None:
    """`aqmlab profiles linux --json` prints the linux profile's keys."""
    out = subprocess.run(
        [sys.executable, "-m", "aqmlab", "profiles", "linux", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    p = json.loads(out)
    assert p["name"] == "linux" and p["tcp"]["sack"]["value"] is True


def test_linux_gives_hystart_to_cubic_and_renos_growth_to_the_reno_family() -> None:
    """Linux's HyStart is tcp_cubic.c's and its reno (tcp_cong.c) has none, while reno
    and dctcp grow by the packets each ACK acknowledges (`tcp_reno_cong_avoid`): under
    `linux` a CUBIC flow gets `hystart` and not `reno_growth`, a NewReno or DCTCP flow
    the other way round; a key written in the flow wins."""
    sc = copy.deepcopy(BASE)
    sc["profile"] = "linux"
    sc["flow"] = [
        {"src": "s1", "dst": "k1"},
        {"src": "s1", "dst": "k1", "variant": "newreno"},
        {"src": "s1", "dst": "k1", "variant": "dctcp", "ecn": True},
        {"src": "s1", "dst": "k1", "variant": "newreno", "hystart": True},
    ]
    sc["link"][1]["queue"] = {"type": "red", "limit": 100, "ecn": True}
    flows = [f["tcp"] for f in Scenario(sc).normalized()["flows"]]
    assert flows[0]["variant"] == "cubic"
    assert (flows[0].get("hystart"), flows[0].get("reno_growth")) == (True, None)
    # tcp_timeout_mark_lost keeps the SACKs: into flows with SACK (all four here)
    assert {f["rto_sack"] for f in flows} == {"keep"}
    for f in flows[1:3]:
        assert (f.get("hystart"), f["reno_growth"]) == (None, "segments"), f
    assert (flows[3]["hystart"], flows[3]["reno_growth"]) == (True, "segments")
