"""aqmlab tune: the advisor's library function and its command line."""

import argparse
import json
import math

import numpy as np
import pandas as pd
import pytest

from aqmlab import analysis, tune


def run_cli(argv, capsys):
    """Run `aqmlab tune` with argv through a parser built by tune.add_arguments."""
    parser = argparse.ArgumentParser(prog="aqmlab tune")
    tune.add_arguments(parser)
    code = tune.run(parser.parse_args(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("rate", ["10Mbps", "1Gbps", "100Gbps"])
def test_three_links_json_parses_and_is_sane(rate, capsys):
    """On 10 Mb/s, 1 Gb/s and 100 Gb/s links the JSON parses and the numbers follow the papers' rules."""
    code, out, _ = run_cli(["--rate", rate, "--rtt", "50ms", "--json"], capsys)
    assert code == 0
    rec = json.loads(out)
    C = rec["link"]["capacity_pkts_per_s"]
    assert C == pytest.approx(rec["inputs"]["rate_bps"] / (8 * 1500))
    ared = rec["adaptive_red"]["parameters"]
    assert ared["min_th"]["value"] == pytest.approx(max(5, 0.005 * C / 2))
    assert ared["max_th"]["value"] == pytest.approx(3 * ared["min_th"]["value"])
    assert ared["w_q"]["value"] == pytest.approx(1 - math.exp(-1 / C))
    red = rec["red"]["parameters"]
    assert red["w_q"]["value"] <= analysis.red_max_w_q(red["min_th"]["value"], 50) + 1e-15
    assert red["min_th"]["value"] < red["max_th"]["value"] <= red["limit"]["value"]
    fred = rec["fred"]["parameters"]
    assert fred["max_th"]["value"] == pytest.approx(2 * fred["min_th"]["value"])
    for algo in ("red", "adaptive_red", "fred"):
        for p in rec[algo]["parameters"].values():
            assert p["rule"] and p["source"]  # every value says where it comes from
    assert rec["zheng"]["available"] is False and "trace" in rec["zheng"]["reason"]
    delay = rec["predicted_delay"]["adaptive_red"]["delay_s"]
    if ared["min_th"]["value"] > 5:
        assert delay == pytest.approx(0.005)
    else:
        assert delay > 0.005 and any(w["code"] == "min_th_floor" for w in rec["warnings"])


def test_weight_shrinks_with_link_speed():
    """Faster links get smaller w_q (constant 1 s time constant) and larger thresholds."""
    recs = [tune.recommend(r, 0.05) for r in (10e6, 1e9, 100e9)]
    w = [r["adaptive_red"]["parameters"]["w_q"]["value"] for r in recs]
    th = [r["adaptive_red"]["parameters"]["min_th"]["value"] for r in recs]
    assert w[0] > w[1] > w[2] and th[0] < th[1] < th[2]


def test_text_output_explains(capsys):
    """The text output names each algorithm, the rules, the predicted delay and the ARED min_th reading."""
    code, out, _ = run_cli(["--rate", "10Gbps", "--rtt", "50ms"], capsys)
    assert code == 0
    for s in (
        "RED (Floyd & Jacobson 1993)",
        "Adaptive RED",
        "FRED",
        "Predicted queueing delay",
        "eq. 3",
        "1 - exp(-1/C)",
        "12.5 packets",
        "minth = MIN(buffer size / 4, RTT)",
    ):
        assert s in out


def test_eq3_conflict_on_a_slow_link():
    """On a 1 Mb/s link the automatic w_q would let a 50-packet burst pass min_th: RED uses eq. 3's bound and warns."""
    rec = tune.recommend("1Mbps", "100ms")
    codes = {w["code"] for w in rec["warnings"]}
    assert "eq3_vs_auto_w_q" in codes
    assert rec["red"]["parameters"]["w_q"]["value"] == pytest.approx(analysis.red_max_w_q(5, 50))
    assert (
        rec["adaptive_red"]["parameters"]["w_q"]["value"] > rec["red"]["parameters"]["w_q"]["value"]
    )


def test_time_constant_warning_when_rtt_is_long():
    """A w_q averaging over less than one RTT is flagged (ARED Sec. 3 and 4.3)."""
    rec = tune.recommend("10Gbps", "2s", target_delay="5ms")
    assert any(w["code"].endswith("time_constant") for w in rec["warnings"])


def test_units_and_numbers_are_equivalent():
    """recommend accepts unit strings and plain numbers alike."""
    a = tune.recommend("1Gbps", "50ms", "1500B", "5ms", 50)
    b = tune.recommend(1e9, 0.05, 1500, 0.005, 50)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_trace_gives_zheng_bounds(tmp_path, capsys):
    """With --trace the Zheng & Atiquzzaman bounds are estimated, reported, and compared with w_q."""
    i = np.arange(1, 3001)
    q = (14 - np.abs((i % 28) - 14)) * np.where(i % 2 == 1, 5.0, 20.0)
    path = tmp_path / "trace_queue.parquet"
    pd.DataFrame({"time": i * 1e-3, "link": "r1->r2", "queue": q, "avg": 0.0}).to_parquet(
        path, index=False
    )
    code, out, _ = run_cli(
        ["--rate", "10Mbps", "--rtt", "50ms", "--trace", str(path), "--json"], capsys
    )
    assert code == 0
    rec = json.loads(out)
    z = rec["zheng"]
    assert z["available"] and 0 <= z["lower"] < 1 and 0 < z["upper"] < 1
    assert any(
        w["code"].startswith("zheng_") for w in rec["warnings"]
    )  # infeasible, or w_q outside the range


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--rate=-10Gbps", "--rtt", "50ms"], "--rate"),
        (["--rate", "fast", "--rtt", "50ms"], "--rate"),
        (["--rate", "10Gbps", "--rtt", "0ms"], "--rtt"),
        (["--rate", "10Gbps", "--rtt", "50ms", "--packet-size=-1"], "--packet-size"),
        (["--rate", "10Gbps", "--rtt", "50ms", "--target-delay=-5ms"], "--target-delay"),
        (["--rate", "10Gbps", "--rtt", "50ms", "--burst", "0"], "--burst"),
        (["--rate", "10Gbps", "--rtt", "50ms", "--burst", "many"], "--burst"),
        (["--rate", "10Gbps", "--rtt", "50ms", "--trace", "/nonexistent/q.parquet"], "trace"),
    ],
)
def test_bad_arguments_exit_nonzero_naming_the_option(argv, name, capsys):
    """Bad arguments exit with code 2 and a message naming the option."""
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    assert name in err and out == ""


def test_recommend_rejects_bad_values():
    """The library function raises ValueError naming its argument."""
    with pytest.raises(ValueError, match="rate_bps"):
        tune.recommend(-1, 0.05)
    with pytest.raises(ValueError, match="rtt"):
        tune.recommend(1e9, 0)
    with pytest.raises(ValueError, match="burst"):
        tune.recommend(1e9, 0.05, burst=0)
