"""`aqmlab compare`: the bottleneck queue replaced by each AQM, everything else equal."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from aqmlab import cli
from aqmlab.compare import COLUMNS, TCP_COLUMN, compare, with_queue, with_tcp
from aqmlab.sim import Scenario

SCEN = Path(__file__).resolve().parents[2] / "scenarios" / "dumbbell_10mbps.toml"


def _base() -> dict:
    return Scenario.from_file(SCEN).replace(duration="12s", warmup="4s").to_dict()


def test_with_queue_replaces_only_the_bottleneck_direction():
    base = _base()
    out = with_queue(base, {"type": "ared"})
    link = out["link"][0]
    assert link["queue_ab"] == {"type": "ared", "limit": 250}  # the old buffer kept
    assert link["queue_ba"] == base["link"][0]["queue"]  # the reverse direction untouched
    assert "queue" not in link
    assert out["link"][1:] == base["link"][1:]
    assert base["link"][0]["queue_ab"]["type"] == "red"  # the input is not modified
    # the other way round, and a queue that gives its own buffer
    rev = dict(base, bottleneck="r2->r1")
    out = with_queue(rev, {"type": "droptail", "limit_bytes": 30000})
    assert out["link"][0]["queue_ba"] == {"type": "droptail", "limit_bytes": 30000}


def test_with_queue_needs_a_bottleneck():
    base = _base()
    del base["bottleneck"]
    with pytest.raises(ValueError, match="bottleneck"):
        with_queue(base, {"type": "red"})
    with pytest.raises(ValueError, match="no link joins"):
        with_queue(dict(base, bottleneck="x->y"), {"type": "red"})


def test_compare_runs_each_queue_on_the_same_scenario():
    queues = {"droptail": {"type": "droptail"}, "red": {"type": "red"}}
    rows, summaries = compare(_base(), queues, seeds=(1, 2))
    assert [(r["aqm"], r["seed"]) for r in rows] == [
        ("droptail", 1),
        ("droptail", 2),
        ("red", 1),
        ("red", 2),
    ]
    for r in rows:
        assert set(r) == set(COLUMNS)
        link = summaries[(r["aqm"], r["seed"])]["links"]["r1->r2"]
        assert link["queue_type"] == r["type"]
        assert r["mean_delay_ms"] == pytest.approx(link["mean_delay"] * 1e3)
        assert r["delay_p95_ms"] >= r["mean_delay_ms"] * 0.9  # p95 from a ~4% histogram
    # A full 250-packet Drop Tail buffer against RED's thresholds of 25-75 packets: the
    # waiting time at the bottleneck is far longer without the AQM.
    by = {(r["aqm"], r["seed"]): r for r in rows}
    for s in (1, 2):
        assert by[("droptail", s)]["mean_delay_ms"] > 3 * by[("red", s)]["mean_delay_ms"]


def test_compare_command_writes_table_plot_and_runs(tmp_path, capsys):
    aqm = tmp_path / "mine.toml"
    aqm.write_text('[queue.red_small]\ntype = "red"\nmin_th = 5\nmax_th = 15\n')
    out = tmp_path / "out"
    rc = cli.main(
        [
            "compare",
            str(SCEN),
            "--aqm",
            "red",
            "--aqm-file",
            str(aqm),
            "--duration",
            "25s",
            "--out",
            str(out),
            "-q",
        ]
    )
    assert rc == 0
    rows = list(csv.DictReader(open(out / "compare.csv")))
    assert [r["aqm"] for r in rows] == ["red", "red_small"]
    assert list(rows[0]) == COLUMNS
    assert (out / "compare.png").stat().st_size > 0
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["red-s1.json", "red_small-s1.json"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


def test_compare_command_refuses_bad_input_before_running(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["compare", str(SCEN), "--aqm", "nope", "--out", str(out)]) == 2
    assert "--aqm: unknown type 'nope'" in capsys.readouterr().err
    assert cli.main(["compare", str(SCEN), "--out", str(out)]) == 2
    assert "--aqm" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_with_tcp_sets_every_tcp_flows_variant_and_leaves_the_others():
    """--tcp's transport: every TCP flow takes the variant with SACK (a paced one loses
    its prep_delay, which the simulator refuses beside pacing); other flows are kept."""
    base = _base()
    base["flow"][0]["prep_delay"] = 0.001
    base["flow"].append({"type": "cbr", "src": "s", "dst": "k", "rate": "1Mbps"})
    out = with_tcp(base, "prague")
    tcp, cbr = out["flow"]
    assert (tcp["variant"], tcp["sack"], "prep_delay" in tcp) == ("prague", True, False)
    assert cbr == base["flow"][1]
    assert with_tcp(base, "cubic")["flow"][0]["prep_delay"] == 0.001
    assert "sack" not in with_tcp(base, "tahoe")["flow"][0]
    assert base["flow"][0]["variant"] == "newreno"  # the input is not modified


def test_compare_takes_the_transport_as_an_axis(tmp_path):
    """With --tcp, each AQM runs with each variant: the rows follow the queues, then the
    variants, then the seeds; each names its variant in the last column, the others are
    those without --tcp; every run's summary names the variant of its flows."""
    queues = {"dualpi2": {"type": "dualpi2"}}
    rows, summaries = compare(_base(), queues, seeds=(1,), tcp=("cubic", "prague"))
    assert [(r["aqm"], r["tcp"]) for r in rows] == [("dualpi2", "cubic"), ("dualpi2", "prague")]
    assert list(rows[0]) == COLUMNS + [TCP_COLUMN]
    for r in rows:
        flows = summaries[(r["aqm"], r["tcp"], r["seed"])]["flows"]
        assert {f["variant"] for f in flows} == {r["tcp"]}
    # Prague's packets carry ECT(1) and are marked in DualPI2's L queue, CUBIC's are not
    # ECN-capable here and are dropped in its C queue
    assert rows[1]["mark_rate"] > 0 and rows[0]["mark_rate"] == 0
    out = tmp_path / "out"
    args = ["compare", str(SCEN), "--aqm", "pie", "--tcp", "cubic,bbr", "--duration", "25s"]
    assert cli.main([*args, "--out", str(out), "-q"]) == 0
    got = list(csv.DictReader(open(out / "compare.csv")))
    assert [r["tcp"] for r in got] == ["cubic", "bbr"]
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "pie-bbr-s1.json",
        "pie-cubic-s1.json",
    ]


def test_compare_refuses_an_unknown_transport_before_running(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["compare", str(SCEN), "--aqm", "red", "--out", str(out)]
    assert cli.main([*args, "--tcp", "cubic,quic"]) == 2
    err = capsys.readouterr().err
    assert "--tcp: unknown TCP variant 'quic'; allowed" in err and "prague" in err
    assert cli.main([*args, "--tcp", "bbr,bbr"]) == 2
    assert "--tcp: a variant named twice" in capsys.readouterr().err
    assert not out.exists()
