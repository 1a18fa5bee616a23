"""Output checked first: every command that writes refuses an output it cannot create
before any work (exit 2, the option named), and what it writes is whole or absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aqmlab import cli
from aqmlab.outdir import check_out_dir, check_out_file, staged_dir

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "scenarios" / "dumbbell_10mbps.toml")


def _no_work(*_a, **_k):
    raise AssertionError("the command started its work before checking its output")


def _sweep_spec(tmp_path: Path) -> str:
    from aqmlab.sweeps.testing import example_spec, to_toml

    f = tmp_path / "sweep.toml"
    f.write_text(to_toml(example_spec()))
    return str(f)


# (argv before the output, output option, what the work is (module, function))
COMMANDS = [
    (lambda t: ["run", SCENARIO], "--out", ("aqmlab.sim", "simulate")),
    (lambda t: ["compare", SCENARIO], "--out", ("aqmlab.compare", "compare")),
    (lambda t: ["reproduce", "floyd1993-fig3"], "--out", ("aqmlab.reproduce.catalogue", "run")),
    (lambda t: ["sweep", _sweep_spec(t)], "--out", ("aqmlab.sweeps.execute", "sweep")),
    (lambda t: ["testbed", SCENARIO], "--out", ("aqmlab.testbed.core", "run_testbed")),
    (
        lambda t: ["plot-sweep", str(t), "--x", "max_p", "--y", "mean_queue"],
        "--output",
        ("aqmlab.sweeps.plot", "plot"),
    ),
]


def _bad_outputs(tmp_path: Path):
    """Outputs that cannot be created: in /proc, under a regular file, and (for a
    directory) an existing regular file."""
    f = tmp_path / "a-file"
    f.write_text("x")
    return [("/proc/aqmlab-x", "/proc"), (str(f / "sub"), str(f)), (str(f), str(f))]


@pytest.mark.parametrize(
    "argv, option, work",
    COMMANDS,
    ids=["run", "compare", "reproduce", "sweep", "testbed", "plot-sweep"],
)
def test_an_output_that_cannot_be_created_fails_at_once(
    tmp_path, monkeypatch, capsys, argv, option, work
):
    import importlib

    monkeypatch.setattr(importlib.import_module(work[0]), work[1], _no_work)
    for bad, named in _bad_outputs(tmp_path):
        if option == "--output" and bad.endswith("a-file"):
            continue  # a plot may replace a file
        if option == "--output":
            bad = bad + ".png"
        assert cli.main(argv(tmp_path) + [option, bad]) == 2, bad
        err = capsys.readouterr().err
        assert f"{option} {bad}" in err and named in err, err
        assert not Path(bad).is_dir()


def test_check_out_dir_accepts_new_and_existing_directories(tmp_path):
    assert check_out_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # the check creates nothing
    (tmp_path / "old").mkdir()
    assert check_out_dir(tmp_path / "old", inside=True) == tmp_path / "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # no probe left behind
    with pytest.raises(ValueError, match="--output .*is a directory"):
        check_out_file(tmp_path / "old")


def test_staged_dir_replaces_whole_or_leaves_as_it_was(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("before")
    with pytest.raises(RuntimeError):
        with staged_dir(out) as work:
            (work / "half.txt").write_text("half")
            raise RuntimeError("stopped midway")
    assert [p.name for p in out.iterdir()] == ["old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with staged_dir(out) as work:
        (work / "new.txt").write_text("after")
    assert [p.name for p in out.iterdir()] == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with pytest.raises(RuntimeError):
        with staged_dir(out, keep_failed=".failed") as work:
            (work / "log.txt").write_text("why")
            raise RuntimeError("failed run")
    assert [p.name for p in out.iterdir()] == ["new.txt"]
    assert [p.name for p in (tmp_path / "out.failed").iterdir()] == ["log.txt"]


def test_a_run_whose_writing_fails_leaves_nothing(tmp_path, monkeypatch):
    """Result.to_dir stopped after summary.json: no output directory, no temporary one."""
    from aqmlab import _tables, simulate

    res = simulate(
        {
            "duration": "1s",
            "link": [{"a": "s", "b": "k", "rate": "1Mbps", "delay": "1ms"}],
            "flow": [{"type": "cbr", "src": "s", "dst": "k", "rate": "100kbps"}],
        },
        progress=False,
    )

    def broken(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_tables, "write_records", broken)
    with pytest.raises(OSError):
        res.to_dir(tmp_path / "out")
    assert os.listdir(tmp_path) == []
