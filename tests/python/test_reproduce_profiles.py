"""The simulator each paper ran and the profile the catalogue runs it in
(``aqmlab.reproduce.simulators``): the table, the scenario files, and the
``profile`` column and assumption every experiment writes."""

import csv
import json

import pytest

from aqmlab.profiles import profile
from aqmlab.reproduce import COMPARISON_COLUMNS, read_comparison, run
from aqmlab.reproduce.catalogue import REGISTRY
from aqmlab.reproduce.common import SCENARIOS, scenario_dict
from aqmlab.reproduce.simulators import SIMULATORS, group_of_file, simulator_of


def test_each_paper_runs_in_the_profile_of_the_simulator_it_names():
    """Floyd et al. 2001 and Bonald et al. 2000's Section V ran ns (ns-2): ns2; REAL,
    OPNET, an ATM simulator of one's own and no simulator named: rfc."""
    want = {
        "floyd1993-fig3": "rfc",
        "bonald2000-fig3": "rfc",
        "bonald2000-tcp": "ns2",
        "floyd2001-tradeoff": "ns2",
        "floyd2001-wq": "ns2",
        "lin1997-fragile": "rfc",
        "zheng2008-bounds": "rfc",
    }
    assert {g: simulator_of(g).profile for g in want} == want
    for sim in SIMULATORS.values():
        profile(sim.profile)  # a profile aqmlab has
        assert sim.says
    # every group of the catalogue has an entry of its own paper
    for g in REGISTRY.groups:
        assert g.name.split("-")[0] in SIMULATORS, g.name


def test_each_scenario_file_names_its_groups_profile():
    """A scenario file of a group in a profile names it at its top (so that every
    scenario built from it runs in it); the others name none (rfc)."""
    seen = set()
    for path in sorted(SCENARIOS.glob("*.toml")):
        group = group_of_file(path.name)
        if not group:
            continue
        seen.add(group)
        named = scenario_dict(path.name).get("profile", "rfc")
        assert named == SIMULATORS[group].profile, path.name
    assert {"floyd2001", "bonald2000-tcp", "floyd1993", "lin1997", "zheng2008"} <= seen


def test_comparison_csv_keeps_its_columns_and_adds_the_profile(tmp_path):
    """The five columns as before, then ``profile``; files without it still read."""
    statuses = run(["floyd2001-fig10"], str(tmp_path), quick=True, jobs=1)
    assert statuses == {"floyd2001-fig10": "done"}
    d = tmp_path / "floyd2001-fig10"
    with open(d / "comparison.csv", newline="") as f:
        header, *rows = list(csv.reader(f))
    assert header == [*COMPARISON_COLUMNS, "profile"]
    assert rows and all(r[-1] == "ns2" for r in rows)
    assert all(r["profile"] == "ns2" for r in read_comparison(d / "comparison.csv"))
    meta = json.loads((d / "meta.json").read_text())
    assert meta["profile"] == "ns2"
    assert meta["assumptions"][0].startswith("Simulator (ns2 profile): Section 1:")
    old = tmp_path / "old.csv"
    with open(old, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COMPARISON_COLUMNS)
        w.writerow(["q", "1", "1", "0", "ok"])
    assert read_comparison(old) == [
        {"quantity": "q", "paper": "1", "aqmlab": "1", "tolerance": "0", "verdict": "ok"}
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("quantity,paper,aqmlab,tolerance,verdict,simulator\n")
    with pytest.raises(ValueError, match="header"):
        read_comparison(bad)
