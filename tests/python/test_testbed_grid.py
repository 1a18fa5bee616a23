"""The testbed's grids (docs/testbed.md): issue 32's `linux` grid, its cells, buffers
and cell rule; the table both grids print, and the figures it is generated from. No
root needed: nothing here runs the testbed."""

import pytest

from aqmlab.testbed import bbr_grid, plan
from aqmlab.testbed import grid as gmod
from aqmlab.testbed import linux_grid as lg

Side = gmod.Side


def test_the_linux_grid_has_the_issues_sixty_cells():
    """Issue 32: N = 1, 2, 8; RTT 20 and 80 ms; Drop Tail, RED, CoDel, FQ-CoDel, PIE;
    CUBIC and Reno: 3 x 2 x 5 x 2 = 60 cells, each named once."""
    cells = lg.GRID.cells
    assert len(cells) == 60
    assert len({lg.cell_name(*c) for c in cells}) == 60
    assert {c[1] for c in cells} == {1, 2, 8} and {c[2] for c in cells} == {20, 80}
    assert {c[0] for c in cells} == {"cubic", "reno"}
    assert set(lg.QUEUES) == {"droptail", "red", "codel", "fq_codel", "pie"}


def test_a_cell_runs_its_flows_through_its_buffer():
    """20 Mb/s, base RTT 80 ms (40 ms one way, no access delay): the BDP is
    20e6 x 0.080 / (8 x 1500) = 133.3 packets, so Drop Tail holds 133; Linux's reno
    runs for Reno (the simulator's newreno: NewReno's recovery, SACK under the profile)."""
    sc = lg.scenario("reno", 8, 80, "droptail", 40, 10)
    assert sc["profile"] == "linux"
    assert [f["variant"] for f in sc["flow"]] == ["newreno"] * 8
    pl = plan(sc)
    assert pl.delay_s == pytest.approx(0.040) and pl.rate_ab == 20e6
    assert [f.kernel_cc for f in pl.flows] == ["reno"] * 8
    assert pl.queue_ab["limit"] == round(20e6 * 0.080 / 12000) == 133
    assert lg.queue_config("droptail", 20)["limit"] == round(20e6 * 0.020 / 12000) == 33
    assert [f.kernel_cc for f in plan(lg.scenario("cubic", 2, 20, "pie", 40, 10)).flows] == [
        "cubic",
        "cubic",
    ]


def test_red_counts_bytes_with_floyd_and_jacobsons_thresholds():
    """5 and 15 packets of 1500 bytes, in bytes as Linux's sch_red counts."""
    q = lg.queue_config("red", 20)
    assert (q["min_th"], q["max_th"], q["queue_in_bytes"]) == (7500, 22500, True)
    assert q["mean_pkt_size"] == 1500 and q["limit"] == 1000


def test_the_linux_cell_rule_is_the_issues():
    """Utilization within 2 points, mean queue within 20 % and drop rate within 30 %
    of the testbed's: at the edges inside, just past them outside."""
    t = Side(0.90, 50.0, drop_rate=0.02)
    edge = Side(0.90 + 0.0199, 50.0 * 1.1999, drop_rate=0.02 * 1.2999)
    assert lg.GRID.verdicts(t, edge) == {"utilization": True, "mean_queue": True, "drop_rate": True}
    low = Side(0.90 - 0.0199, 50.0 * 0.8001, drop_rate=0.02 * 0.7001)
    assert all(lg.GRID.verdicts(t, low).values())
    past = Side(0.90 + 0.0201, 50.0 * 1.2001, drop_rate=0.02 * 1.3001)
    assert lg.GRID.verdicts(t, past) == {
        "utilization": False,
        "mean_queue": False,
        "drop_rate": False,
    }
    # no drops on the testbed: only none in the simulator is inside
    none = Side(0.9, 50.0, drop_rate=0.0)
    assert lg.GRID.verdicts(none, none)["drop_rate"]
    assert not lg.GRID.verdicts(none, Side(0.9, 50.0, drop_rate=1e-5))["drop_rate"]
    # a figure missing on one side is outside
    assert not lg.GRID.verdicts(t, Side(0.9, 50.0))["drop_rate"]


def test_the_table_marks_what_is_outside_and_counts_the_cells():
    """Testbed / simulator per figure, a figure outside its bound in bold, "yes" for a
    cell inside every bound, and the count of cells inside, overall and per bound."""
    inside = gmod.Row("a", Side(0.9, 10.0, 0.01, 0.012), Side(0.91, 11.0, 0.012, 0.0), 3.2, 1.25)
    outside = gmod.Row("b", Side(0.9, 10.0, 0.01), Side(0.95, 10.0, 0.01), None, None)
    lines = lg.GRID.table([inside, outside]).splitlines()
    assert lines[0].startswith("| cell | utilization | mean queue (packets) | dropped % | inside |")
    assert lines[2] == (
        "| a | 0.900 / 0.910 | 10.0 / 11.0 | 1.000 / 1.200 | yes | 1.200 / 0.000 | - / - "
        "| 1.2 | 3.2 |"
    )
    assert lines[3].startswith("| b | **0.900 / 0.950** | 10.0 / 10.0 | 1.000 / 1.000 | no |")
    assert lines[-1] == (
        "1 of 2 cells inside (50 %); inside each bound: utilization 1 of 2, "
        "mean queue (packets) 2 of 2, dropped % 2 of 2."
    )


def test_bbrs_share_is_judged_only_beside_cubic():
    """The share is BBR's goodput over the sum when another variant runs beside it."""
    flows = [
        {"variant": "bbr", "goodput_bps": 15e6},
        {"variant": "cubic", "goodput_bps": 5e6},
    ]
    assert gmod._share(flows, "bbr") == pytest.approx(0.75)
    assert gmod._share(flows[:1] * 2, "bbr") is None
    t = Side(1.0, 1.0, retx_rate=0.0)
    assert "share" not in bbr_grid.GRID.verdicts(t, t)
    assert len(bbr_grid.GRID.cells) == 24


def test_the_recorded_figures_give_the_same_table(tmp_path):
    """What `--csv` writes reads back to the same rows, so docs/testbed.md's tables
    (generated from the recorded CSV) are the runner's."""
    rows = [
        gmod.Row(
            "x", Side(0.1 + 0.2, 7.25, 1 / 3, None, 0.5, 1.01, 3.0), Side(0.3, 7.0), 4.5, None
        ),
        gmod.Row("y", Side(0.97, 12.0, 0.0, 0.0), Side(0.96, 15.0, 0.0, 1e-3), None, 2.0),
    ]
    path = tmp_path / "grid.csv"
    gmod.write_csv(rows, path)
    assert gmod.read_csv(path) == rows
    assert bbr_grid.GRID.table(gmod.read_csv(path)) == bbr_grid.GRID.table(rows)


def test_a_recorded_grid_is_resimulated_from_its_csv(tmp_path):
    """`--table-only --recorded CSV`: the rows come from the CSV (the run directories may
    be gone); with `--resimulate` the testbed's figures stay and the simulator's are
    those of this simulator for the cell's scenario."""
    name = "bbr1-rtt20-droptail1"
    tb = Side(0.97, 8.5, 0.0, 0.0, None, 1.003, 0.0)
    recorded = tmp_path / "recorded.csv"
    gmod.write_csv([gmod.Row(name, tb, Side(0.5, 1.0), 1.5, 0.2)], recorded)
    out = tmp_path / "out.csv"
    base = ["--out", str(tmp_path / "none"), "--table-only", "--recorded", str(recorded)]
    base += ["--cells", name, "--duration", "3", "--warmup", "1", "--csv", str(out)]
    assert bbr_grid.main(base) == 0
    assert gmod.read_csv(out) == gmod.read_csv(recorded)
    assert bbr_grid.main(base + ["--resimulate"]) == 0
    (row,) = gmod.read_csv(out)
    summary = gmod.simulate(bbr_grid.scenario("bbr1", 20, "droptail1", 3, 1), progress=False)
    assert (row.testbed, row.load, row.lag_ms) == (tb, 1.5, 0.2)
    assert row.simulator == gmod.simulator_side(summary.summary, bbr_grid.GRID.share_of)
