"""`aqmlab evaluate` end to end on a small selection: files, columns, resume, extension,
errors."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from aqmlab import cli
from aqmlab.evaluate import columns, execute, load, scenarios, selection

FLOW_COLUMNS = ("flow", "class", "goodput_bps", "sent", "drops", "marks", "completion_time")
ARGS = ["--quick", "--scenarios", "5.1.1", "--seeds", "2", "--jobs", "2", "--no-progress"]


def _evaluate(out, *more):
    return cli.main(["evaluate", *ARGS, "--out", str(out), *more])


def _info(out) -> dict:
    return json.loads((out / "evaluate.json").read_text())


def _counts(info: dict):
    st = {k: v for k, v in info["sweeps"].items() if not k.startswith("_")}
    return sum(v["computed"] for v in st.values()), sum(v["already_done"] for v in st.values())


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """One evaluation of 5.1.1 (and its ECN variant) for CoDel and RED, two seeds."""
    out = tmp_path_factory.mktemp("ev") / "out"
    rc = _evaluate(out, "--aqm", "codel,red")
    return out, rc


def test_list_prints_every_scenario_with_its_section(capsys):
    """--list: one line per scenario (ECN variants included): id, RFC section, title."""
    assert cli.main(["evaluate", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    runs = selection.all_runs()
    assert len(lines) == len(runs)
    for line, r in zip(lines, runs):
        assert line.split()[0] == r.id
        assert f"Section {r.scenario.section}" in line
        assert r.scenario.title in line


def test_selection_by_section_prefix_and_ecn():
    """A section prefix selects its scenarios with their ECN variants; 'ecn' only those."""
    ids = [
        s.id for s in scenarios.SCENARIOS if scenarios.unavailable(s.id) is None and not s.opt_in
    ]
    five = [r.id for r in selection.select("5")]
    assert [i for i in five if "+" not in i] == [i for i in ids if i.split(".")[0] == "5"]
    with_ecn = {s.id for s in scenarios.SCENARIOS if s.has_ecn and s.id in ids}
    assert {i[: -len("+ecn")] for i in five if i.endswith("+ecn")} == {
        i for i in with_ecn if i.startswith("5.")
    }
    assert all(r.ecn for r in selection.select("ecn"))
    assert len(selection.select("ecn")) == len(with_ecn)
    assert [r.id for r in selection.select("8.2.4")] == ["8.2.4"]


@pytest.mark.slow
def test_first_run_writes_the_contract_files(first_run):
    """metrics.parquet: one row per (scenario, variant, ecn, aqm, seed) with the contract's
    columns; flows.parquet; a plot per scenario; index.html naming every scenario run."""
    out, rc = first_run
    assert rc == 0
    m = load(out)
    assert list(m.columns[: len(columns.KEY_COLUMNS)]) == list(columns.KEY_COLUMNS)
    for c in (*columns.METRIC_COLUMNS, "goodput_bps_bulk", "wall_time"):
        assert c in m.columns, c
    variants = scenarios.get("5.1.1").variants(True, {"type": "codel"})
    keys = {(r.scenario, r.variant, bool(r.ecn), r.aqm, int(r.seed)) for r in m.itertuples()}
    want = {
        ("5.1.1", v, e, a, s)
        for v in variants
        for e in (False, True)
        for a in ("codel", "red")
        for s in (1, 2)
    }
    assert keys == want and len(m) == len(want)
    assert set(m["type"]) == {"codel", "red"} and (m["section"] == "5.1").all()
    assert m["ecn"].dtype == bool
    # goodput cannot exceed the 10 Mb/s bottleneck; delays are ordered percentiles
    assert (m["goodput_bps"] > 0).all() and (m["goodput_bps"] <= 10e6).all()
    assert (m["delay_p50"] <= m["delay_p95"]).all() and (m["delay_p95"] <= m["delay_p99"]).all()
    f = load(out, "flows")
    for c in (*columns.FLOW_KEY_COLUMNS, *FLOW_COLUMNS):
        assert c in f.columns, c
    # the bulk flow's goodput is the row's total (5.1.1 has one flow)
    one = f.groupby(["ecn", "aqm", "seed"])["goodput_bps"].sum()
    tot = m.set_index(["ecn", "aqm", "seed"])["goodput_bps"]
    assert one.sort_index().to_numpy() == pytest.approx(tot.sort_index().to_numpy())
    page = (out / "index.html").read_text()
    for rid in ("5.1.1", "5.1.1+ecn"):
        assert f"id='s-{rid}'" in page
        assert (out / "plots" / f"{rid}.png").stat().st_size > 1000
    info = _info(out)
    assert info["scenarios"] == ["5.1.1", "5.1.1+ecn"] and info["seeds"] == [1, 2]
    assert set(info["aqms"]) == {"codel", "red"} and info["quick"] is True
    assert _counts(info) == (len(want), 0)
    assert (out / "sweeps" / "5.1.1-quick" / "manifest.json").exists()
    assert (out / "sweeps" / "5.1.1+ecn-quick" / "manifest.json").exists()


@pytest.mark.slow
def test_a_row_is_what_the_runner_gives_for_its_point(first_run):
    """The assembled row of (ECN, CoDel, seed 2) equals a direct run of that point: the
    labels, seeds and ECN flag reach the right rows (same seed, same result)."""
    from aqmlab.evaluate import point as evaluate_point

    out, _ = first_run
    m = load(out)
    v = scenarios.get("5.1.1").variants(True, {"type": "codel"})[0]
    row = m[(m.ecn) & (m.aqm == "codel") & (m.seed == 2) & (m.variant == v)].iloc[0]
    point = {
        "scenario": "5.1.1",
        "variant": v,
        "ecn": True,
        "quick": True,
        "queue": {"type": "codel"},
        "seed": 2,
    }
    direct = evaluate_point.run(point)
    for c in ("goodput_bps", "delay_mean", "loss_rate", "mark_rate"):
        a, b = float(row[c]), float(direct[c])
        assert (math.isnan(a) and math.isnan(b)) or a == b, c
    assert float(row["mark_rate"]) > 0  # CoDel with ECN marks instead of dropping


@pytest.mark.slow
def test_rerun_computes_nothing_and_another_aqm_extends(first_run):
    """The same command again finds every point done; adding Drop Tail computes only its
    points and keeps the others."""
    out, _ = first_run
    before = load(out)
    assert _evaluate(out, "--aqm", "codel,red") == 0
    n = len(before)
    assert _counts(_info(out)) == (0, n)
    pd.testing.assert_frame_equal(
        load(out).drop(columns="wall_time"), before.drop(columns="wall_time")
    )
    assert _evaluate(out, "--aqm", "codel,red,droptail") == 0
    after = load(out)
    assert _counts(_info(out)) == (n // 2, n)
    assert set(after["aqm"]) == {"codel", "red", "droptail"} and len(after) == n + n // 2
    kept = after[after.aqm != "droptail"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, before)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--aqm", "codel,nosuch"], "unknown type 'nosuch'"),
        (["--aqm", "red", "--scenarios", "5.9"], "no scenario '5.9'"),
        (["--aqm-file", "{missing}"], "no such file"),
        (["--aqm-file", "{notables}"], "[queue.LABEL]"),
        (["--aqm-file", "{badtoml}"], "TOML"),
        (["--aqm-file", "{badtype}"], "queue.mine.type: unknown type 'reddish'"),
        (["--aqm-file", "{badparam}"], "max_p"),
        (["--aqm", "red", "--seeds", "0"], "--seeds"),
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(tmp_path, capsys, args, message):
    """Unknown types and scenarios, bad --aqm-file contents and a bad seed count are
    refused with a message naming them, before anything is written."""
    files = {
        "missing": tmp_path / "none.toml",
        "notables": tmp_path / "a.toml",
        "badtoml": tmp_path / "b.toml",
        "badtype": tmp_path / "c.toml",
        "badparam": tmp_path / "d.toml",
    }
    files["notables"].write_text('type = "red"\n')
    files["badtoml"].write_text("[queue.x\n")
    files["badtype"].write_text('[queue.mine]\ntype = "reddish"\n')
    files["badparam"].write_text('[queue.mine]\ntype = "red"\nmax_p = 2.0\n')
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    out = tmp_path / "out"
    rc = cli.main(["evaluate", "--quick", "--scenarios", "5.1.1", "--out", str(out), *args])
    assert rc == 2
    err = capsys.readouterr().err
    assert "aqmlab evaluate: error:" in err and message in err
    assert not out.exists()


def test_out_is_checked_before_anything_runs(tmp_path, capsys):
    """--out naming a file, and no --out at all, are refused with exit status 2."""
    f = tmp_path / "file"
    f.write_text("x")
    assert cli.main(["evaluate", "--aqm", "red", "--out", str(f)]) == 2
    assert "--out" in capsys.readouterr().err
    assert cli.main(["evaluate", "--aqm", "red"]) == 2
    assert "--out DIR is required" in capsys.readouterr().err


def test_build_covers_the_scenario_and_metric_code(monkeypatch):
    """The build a sweep is stored under changes with the code of the scenarios, runner
    and metrics (not only with the simulator), so stale runs are set aside."""
    a = execute.build_id()
    assert a == execute.build_id()
    monkeypatch.setattr(execute, "_RESULT_MODULES", execute._RESULT_MODULES[:-1])
    assert execute.build_id() != a


def test_a_scenario_the_simulator_cannot_run_is_left_out_or_refused(monkeypatch) -> None:
    """5.4 needs the simulator's LEDBAT. This build has it, so 5.4 is selected; a
    simulator without it (as an older installed one) makes the default and prefix
    selections leave 5.4 out and naming it an error saying why."""
    assert scenarios.unavailable("5.4") is None
    assert "5.4" in [r.id for r in selection.select(None)]
    assert "5.4" in [r.id for r in selection.select("5")]
    monkeypatch.setattr(scenarios, "_simulator_has_variant", lambda variant: variant != "ledbat")
    assert "5.4" not in [r.id for r in selection.select(None)]
    assert "5.4" not in [r.id for r in selection.select("5")]
    with pytest.raises(ValueError, match="5.4.*ledbat"):
        selection.select("5.4")


def test_the_l4s_scenario_runs_only_when_named():
    """The L4S coexistence scenario is not one of RFC 7928's: neither the default nor
    'ecn' selects it; its id does, with its ECN variant."""
    assert "l4s" not in {r.scenario.id for r in selection.select(None)}
    assert "l4s+ecn" not in {r.id for r in selection.select("ecn")}
    assert [r.id for r in selection.select("l4s")] == ["l4s", "l4s+ecn"]
    assert [r.id for r in selection.select("l4s+ecn")] == ["l4s+ecn"]


@pytest.mark.slow
def test_the_transport_is_an_axis(tmp_path):
    """--tcp: every point once per variant, all its TCP flows sending with it; the tables
    gain the key column tcp (after the others), the rest as without it."""
    out = tmp_path / "out"
    args = ["--quick", "--scenarios", "5.1.1", "--seeds", "1", "--jobs", "1", "--no-progress"]
    rc = cli.main(
        ["evaluate", *args, "--aqm", "dualpi2", "--tcp", "cubic,prague", "--out", str(out)]
    )
    assert rc == 0
    m, f = load(out), load(out, "flows")
    keys = [*columns.KEY_COLUMNS, columns.TCP_COLUMN]
    assert list(m.columns[: len(keys)]) == keys
    for c in (*columns.METRIC_COLUMNS, "wall_time"):
        assert c in m.columns, c
    assert sorted(zip(m["ecn"], m["tcp"])) == [
        (False, "cubic"),
        (False, "prague"),
        (True, "cubic"),
        (True, "prague"),
    ]
    assert list(f.columns[:6]) == [*columns.FLOW_KEY_COLUMNS, columns.TCP_COLUMN]
    assert (f["flow_variant"] == f["tcp"]).all()
    # Prague's packets are marked in DualPI2's L queue, ECN or not for the other flows
    prague = m[m["tcp"] == "prague"]
    assert (prague["mark_rate"] > 0).all()
    # (the class columns are RFC 7928's: those of the L4S scenario's Prague class are its own)
    assert "goodput_bps_prague" not in m.columns
