"""`aqmlab run` and `aqmlab bench`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from aqmlab import Scenario, bench, bench_peers, cli, simulate


def _without_wall_time(summary):
    """The summary as JSON text, less the one entry that differs between runs."""
    return json.dumps({k: v for k, v in summary.items() if k != "wall_seconds"}, sort_keys=True)


SCENARIO = """
duration = "3s"
warmup = "1s"
[[link]]
a = "s"
b = "r"
rate = "10Mbps"
delay = "5ms"
[[link]]
a = "r"
b = "k"
rate = "2Mbps"
delay = "10ms"
queue = { type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }
[[flow]]
type = "tcp"
src = "s"
dst = "k"
max_window = 50
[trace]
queue = ["r->k"]
"""


def test_run_writes_summary_and_parquet(tmp_path, capsys):
    """aqmlab run writes the summary simulate() returns (its contract keys are checked in
    test_sim_api) as summary.json, and Parquet files."""
    sc = tmp_path / "s.toml"
    sc.write_text(SCENARIO)
    out = tmp_path / "out"
    assert cli.main(["run", str(sc), "--out", str(out), "--no-progress"]) == 0
    s = json.loads((out / "summary.json").read_text())
    api = simulate(Scenario.from_file(sc), progress=False).summary
    assert "wall_seconds" in s and _without_wall_time(s) == _without_wall_time(api)
    link = s["links"]["r->k"]
    assert (out / "flows.parquet").exists() and (out / "links.parquet").exists()
    assert (out / "trace_queue.parquet").exists()
    assert 0.5 < link["utilization"] <= 1.0


def test_run_invalid_scenario_exits_nonzero_and_writes_nothing(tmp_path, capsys):
    """An invalid scenario makes aqmlab run exit non-zero, name the field and write nothing."""
    sc = tmp_path / "bad.toml"
    sc.write_text(SCENARIO.replace("min_th = 5", "min_th = 50"))
    out = tmp_path / "out"
    assert cli.main(["run", str(sc), "--out", str(out)]) != 0
    assert "link[1].queue.min_th" in capsys.readouterr().err
    assert not out.exists()
    assert cli.main(["run", str(tmp_path / "missing.toml"), "--out", str(out)]) != 0
    assert not out.exists()


def test_bench_prints_rates(capsys):
    """aqmlab bench prints events/s and bottleneck packets per second."""
    assert (
        cli.main(["bench", "--case", "15mbps", "--duration", "2s", "--flows", "10", "--json"]) == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["case"] == "15mbps" and rows[0]["events_per_s"] > 0
    assert rows[0]["bottleneck_packets_per_s"] > 0
    args = ["bench", "--case", "15mbps", "--duration", "2s", "--flows", "10", "--threads", "2"]
    assert cli.main(args + ["--json"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert two[0]["case"] == "15mbps-2threads"
    assert two[0]["bottleneck_packets"] == rows[0]["bottleneck_packets"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    # No peer measured in this run: no comparison with one, only the history, said to be such.
    assert "as fast as" not in out and "-> aqmlab x" not in out
    history = Path(bench_peers.__file__).resolve().parent / "peers" / "history.csv"
    assert f"history ({history}" in out and "not measured now" in out


@pytest.mark.parametrize("name", sorted(bench.BENCH_CASES))
def test_bench_cases_hold_their_own_worst_case(name, capsys):
    """Each benchmark case runs on any machine: its max_memory is 1.1 times the worst
    case the simulator counts (docs/simulator.md, "Limits"), which worst_case_bytes
    gives to 0.1%: the simulator refuses the case a budget 0.1% below it and takes one
    0.1% above; `aqmlab bench --case NAME` with 100 flows runs."""
    spec = bench.case_spec(name, 100)
    worst = bench.worst_case_bytes(spec)
    assert spec["max_memory"] == int(1.1 * worst)
    with pytest.raises(ValueError, match="max_memory"):
        Scenario({**spec, "max_memory": int(worst * 0.999)})
    Scenario({**spec, "max_memory": int(worst * 1.001)})
    shipped = Path(bench.__file__).parent / "scenarios" / f"bench_dumbbell_{name}.toml"
    assert (
        Scenario.from_file(shipped).to_dict().get("max_memory", spec["max_memory"])
        == (spec["max_memory"])
    )
    assert cli.main(["bench", "--case", name, "--duration", "0.2s", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["case"] == name and rows[0]["flows"] == 100 and rows[0]["events"] > 0


def test_bench_rejects_an_unknown_peer(capsys):
    """--peers takes ns2 and ns3 only, and says so."""
    assert cli.main(["bench", "--case", "15mbps", "--peers", "ns9"]) == 2
    assert "--peers" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (ns) is not installed")
def test_bench_compares_with_a_peer_measured_in_the_same_run(capsys):
    """--peers ns2: the peer case runs now in aqmlab and ns-2, and the ratio printed is the
    ratio of the two wall times printed beside it."""
    args = ["bench", "--case", "15mbps", "--duration", "2s", "--flows", "10"]
    peer = ["--peers", "ns2", "--peer-case", "S1-n5-red", "--peer-repeat", "2"]
    assert cli.main(args + peer) == 0
    out = capsys.readouterr().out
    walls = dict(re.findall(r"^\s+(\w+): ([0-9.]+) s wall \(median", out, re.M))
    assert set(walls) == {"aqmlab", "ns2"}, out
    ratio = float(re.search(r"aqmlab is x([0-9.]+) as fast as ns2", out).group(1))
    assert ratio == pytest.approx(float(walls["ns2"]) / float(walls["aqmlab"]), rel=0.1, abs=0.06)
    cpus = dict(
        re.findall(r"^\s+(\w+): [0-9.]+ s wall \(median of 2\), ([0-9.]+) s CPU", out, re.M)
    )
    assert set(cpus) == {"aqmlab", "ns2"}, out
    in_cpu = float(re.search(r"x([0-9.]+) in CPU time", out).group(1))
    assert in_cpu == pytest.approx(float(cpus["ns2"]) / float(cpus["aqmlab"]), rel=0.1, abs=0.06)


def test_a_reader_that_went_away_ends_the_command_quietly():
    """`aqmlab ... | head`: a closed output pipe gives exit status 141, no traceback."""
    import os
    import subprocess
    import sys

    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first line is written
    try:
        p = subprocess.run(
            [sys.executable, "-m", "aqmlab", "reproduce", "--list"],
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(w)
    assert p.returncode == 141, p.stderr
    assert "Traceback" not in p.stderr and "Exception" not in p.stderr, p.stderr
