"""CUBIC, DCTCP, SACK and the initial window through the Python API."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from aqmlab.sim import Scenario, simulate

BASE: dict[str, Any] = {
    "duration": "10s",
    "warmup": "2s",
    "seed": 3,
    "link": [
        {"a": "s1", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
        {
            "a": "r1",
            "b": "k1",
            "rate": "10Mbps",
            "delay": "20ms",
            "queue": {"type": "droptail", "limit": 100},
        },
    ],
    "flow": [{"src": "s1", "dst": "k1", "max_window": 200, "count": 2}],
}


def scenario(**keys: Any) -> dict[str, Any]:
    sc = copy.deepcopy(BASE)
    sc["flow"][0].update(keys)
    return sc


@pytest.mark.parametrize("variant", ["cubic", "dctcp"])
def test_variants_run_and_are_named(variant: str) -> None:
    """A CUBIC or DCTCP flow runs, fills the link and is reported under its variant."""
    res = simulate(scenario(variant=variant, sack=True))
    flows = res.summary["flows"]
    assert [f["variant"] for f in flows] == [variant, variant]
    assert res.summary["links"]["r1->k1"]["utilization"] > 0.9


def test_normalized_tcp_has_the_new_keys() -> None:
    """The normalised scenario carries the new TCP parameters, DCTCP's ECN included."""
    n = Scenario(scenario(variant="dctcp", ect1=True, initial_window="rfc6928")).normalized()
    tcp = n["flows"][0]["tcp"]
    assert tcp["variant"] == "dctcp" and tcp["ecn"] and tcp["ect1"]
    assert tcp["init_cwnd"] == 10
    assert tcp["sack"] is False and tcp["limited_transmit"] is False
    assert tcp["cubic"] == {"c": 0.4, "beta": 0.7, "fast_convergence": True}
    assert tcp["dctcp_g"] == 1 / 16


@pytest.mark.parametrize(
    "keys, path",
    [
        ({"sack_blocks": 9}, "flow[0].sack_blocks"),
        ({"variant": "cubic", "cubic_beta": 1.5}, "flow[0].cubic_beta"),
        ({"ect1": True}, "flow[0].ect1"),
        ({"initial_window": 4, "init_cwnd": 2}, "flow[0].initial_window"),
    ],
)
def test_invalid_keys_name_their_field(keys: dict[str, Any], path: str) -> None:
    """An invalid new key is a ValueError naming the field."""
    with pytest.raises(ValueError, match="^" + re.escape(path)):
        Scenario(scenario(**keys)).normalized()
