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


@pytest.mark.slow
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


# ---------------------------------------------------------------- the framework on toy experiments


def _noop(ctx):
    return None


def _toy(id_, compute, plot=None, compare=None):
    from aqmlab.reproduce import Experiment

    return Experiment(id_, f"title of {id_}", compute, compare or (lambda ctx, d: None), plot)


def test_registry_orders_papers_as_listed_then_figures_before_tables():
    """Papers come in the order the list first names them; within one, figures by number
    before tables."""
    from aqmlab.reproduce import Group
    from aqmlab.reproduce.registry import Registry

    reg = Registry(
        [
            Group("z", "Z", (_toy("zed2001-table1", _noop), _toy("zed2001-fig12", _noop))),
            Group("a", "A", (_toy("abe1999-fig2", _noop),)),
            Group("z2", "Z", (_toy("zed2001-fig5", _noop),)),
        ]
    )
    assert reg.order() == ["zed2001-fig5", "zed2001-fig12", "zed2001-table1", "abe1999-fig2"]
    assert reg.select(["abe1999", "zed2001-fig12"]) == ["abe1999-fig2", "zed2001-fig12"]
    assert reg["zed2001-fig5"].paper == "Z" and reg["zed2001-fig5"].group.name == "z2"
    assert [g.name for g, _ in reg.batches(reg.order())] == ["z2", "z", "a"]
    with pytest.raises(ValueError, match="registered twice"):
        Registry([Group("a", "A", (_toy("abe1999-fig2", _noop),) * 2)])


@pytest.mark.slow
def test_an_experiment_computes_plots_and_compares_into_its_directory(tmp_path):
    """One id writes its data, its plots under their names, comparison.csv and meta.json;
    the ids of a group share what they compute once."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from aqmlab.reproduce import Group
    from aqmlab.reproduce.execute import run_group

    calls = []

    def shared():
        calls.append(1)
        return 2.0

    def compute(ctx):
        ctx.assume("an assumption")
        ctx.save_data(pd.DataFrame({"x": [1, 2]}), "data")
        return ctx.once("k", shared)

    def plot(d):
        return {"one": plt.figure(), "two": plt.figure()}

    def compare(ctx, d):
        ctx.compare.value("a number", 2.0, d, 0.1)
        ctx.note("a note")

    group = Group("g", "P", (_toy("toy-fig1", compute, plot, compare), _toy("toy-fig2", compute)))
    out = run_group(group, ["toy-fig1", "toy-fig2"], str(tmp_path), quick=True, jobs=1)
    assert [(i, st) for i, st, _ in out] == [("toy-fig1", "done"), ("toy-fig2", "done")]
    assert calls == [1]
    meta = json.loads((tmp_path / "toy-fig1" / "meta.json").read_text())
    assert (meta["plots"], meta["data"]) == (["one.png", "two.png"], ["data.csv"])
    # (a group the simulators' table does not know runs in rfc, and says so first)
    assert (meta["assumptions"], meta["notes"], meta["paper"], meta["profile"]) == (
        [
            "Simulator (rfc profile): the paper's simulator is not recorded: rfc profile.",
            "an assumption",
        ],
        ["a note"],
        "P",
        "rfc",
    )
    rows = read_comparison(tmp_path / "toy-fig1" / "comparison.csv")
    assert rows == [
        {
            "quantity": "a number",
            "paper": "2",
            "aqmlab": "2",
            "tolerance": "0.1",
            "verdict": "ok",
            "profile": "rfc",
        }
    ]


@pytest.mark.slow
def test_a_failing_experiment_is_recorded_and_the_group_goes_on(tmp_path):
    """An exception becomes status error with its traceback in meta.json; the next id runs."""
    from aqmlab.reproduce import Group
    from aqmlab.reproduce.execute import run_group

    def broken(ctx):
        raise RuntimeError("no luck")

    group = Group("g", "P", (_toy("toy-fig1", broken), _toy("toy-fig2", _noop)))
    out = run_group(group, ["toy-fig1", "toy-fig2"], str(tmp_path), quick=False, jobs=1)
    assert [st for _, st, _ in out] == ["error", "done"]
    meta = json.loads((tmp_path / "toy-fig1" / "meta.json").read_text())
    assert meta["status"] == "error" and "no luck" in meta["error"]
    assert not list(tmp_path.glob(".toy-*"))  # no temporary directory left behind


def test_sweep_runners_carry_their_hooks_as_methods():
    """The catalogue's sweep runners resolve by name and offer validate and warmup."""
    from aqmlab.sweeps.runners import resolve

    for ref in (
        "aqmlab.reproduce.floyd1993_multirun:run_periods",
        "aqmlab.reproduce.bonald2000_tcp:run_point",
    ):
        fn = resolve(ref)
        assert fn.ref == ref and callable(fn.validate) and callable(fn.warmup)
        fn.warmup()
        with pytest.raises(ValueError):
            fn.validate({"duration": "1s", "flow": []})


def test_index_groups_by_paper_with_counts(tmp_path):
    """index.html lists the papers, each with its experiments' verdict counts summed from
    their comparison.csv files, and each paper's ids under its own heading."""
    from aqmlab.reproduce.report import write_comparison, write_index, write_meta

    made = {
        "pa-fig1": ("Paper A", ["ok", "ok", "differs"]),
        "pa-fig2": ("Paper A", ["not-reported"]),
        "pb-table1": ("Paper B", ["ok", "differs", "differs"]),
    }
    for id_, (paper, verdicts) in made.items():
        d = tmp_path / id_
        d.mkdir()
        write_comparison(
            d / "comparison.csv",
            [[f"q{i}", "1", "1", "", v] for i, v in enumerate(verdicts)],
            "rfc",
        )
        write_meta(d / "meta.json", {"id": id_, "title": id_, "paper": paper, "status": "done"})
    text = write_index(tmp_path, list(made)).read_text()
    for paper in ("Paper A", "Paper B"):
        verdicts = [v for p, vs in made.values() if p == paper for v in vs]
        n = sum(p == paper for p, _ in made.values())
        row = (
            f">{paper}</a></td><td>{n}</td><td class='ok'>{verdicts.count('ok')}</td>"
            f"<td class='differs'>{verdicts.count('differs')}</td>"
            f"<td class='not-reported'>{verdicts.count('not-reported')}</td>"
        )
        assert row in text, paper
    a, b = text.index("<h2 id='paper-0'>Paper A"), text.index("<h2 id='paper-1'>Paper B")
    assert a < text.index("#pa-fig2") < b < text.index("#pb-table1")
