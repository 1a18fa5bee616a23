"""The reproduction framework and the whole catalogue in quick mode."""

import json
import subprocess
import sys

import pytest

from aqmlab.reproduce import REGISTRY, read_comparison, run, select


def test_list_prints_every_id_with_a_title():
    """`aqmlab reproduce --list` prints one id per line with its title."""
    out = subprocess.run(
        [sys.executable, "-m", "aqmlab", "reproduce", "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = out.strip().splitlines()
    assert len(lines) == len(select(["all"])) >= 3
    for line in lines:
        id_, title = line.split("\t")
        assert id_ in REGISTRY and title


def test_unknown_id_is_rejected():
    """An unknown id is a ValueError naming it, and the CLI exits non-zero."""
    with pytest.raises(ValueError, match="floyd1993-fig99"):
        select(["floyd1993-fig99"])
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "reproduce", "floyd1993-fig99", "--out", "/nonexistent/x"],
        capture_output=True,
        text=True,
    )
    assert r.returncode != 0 and "floyd1993-fig99" in r.stderr


def test_paper_prefix_selects_its_experiments():
    """A paper prefix selects all of that paper's ids."""
    ids = select(["floyd1993"])
    assert ids and all(i.startswith("floyd1993-") for i in ids)


def test_reproduce_all_quick(tmp_path):
    """`reproduce all --quick` runs every experiment; each writes a well-formed comparison.csv, a plot
    (figures) or its data (tables), and meta."""
    statuses = run(["all"], tmp_path, quick=True, jobs=2, progress=False)
    errors = {
        k: json.loads((tmp_path / k / "meta.json").read_text())["error"]
        for k, v in statuses.items()
        if v != "done"
    }
    assert not errors, errors
    for id_ in statuses:
        rows = read_comparison(tmp_path / id_ / "comparison.csv")
        assert rows, f"{id_}: empty comparison"
        if "-fig" in id_:  # a figure is drawn; a table is its data and comparison
            assert list((tmp_path / id_).glob("*.png")), f"{id_}: no plot"
        else:
            assert list((tmp_path / id_).glob("*.csv")), f"{id_}: no data"
    html = (tmp_path / "index.html").read_text()
    assert all(i in html for i in statuses)


def test_malformed_comparison_detected(tmp_path):
    """read_comparison rejects a wrong header or an unknown verdict."""
    p = tmp_path / "comparison.csv"
    p.write_text("quantity,paper,aqmlab,tolerance,verdict\nx,1,2,0.1,maybe\n")
    with pytest.raises(ValueError, match="verdict"):
        read_comparison(p)
    p.write_text("quantity,paper,aqmlab\nx,1,2\n")
    with pytest.raises(ValueError, match="header"):
        read_comparison(p)
