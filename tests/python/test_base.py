"""The floor module (aqmlab.base): output checked first (every command that writes
refuses an output it cannot create before any work, exit 2, the option named), output
whole or absent, argument checks that name the argument (and, from a command line, the
flag), TOML, the build id and whether a process is alive."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aqmlab import base, cli
from aqmlab.base import check_out_dir, check_out_file, staged_dir

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "scenarios" / "dumbbell_10mbps.toml")


def _no_work(*_a, **_k):
    raise AssertionError("the command started its work before checking its output")


def _sweep_spec(tmp_path: Path) -> str:
    from aqmlab.sweeps.testing import example_spec, to_toml

    f = tmp_path / "sweep.toml"
    f.write_text(to_toml(example_spec()))
    return str(f)


# (argv before the output, output option, what the work is (module, function: the name
# the command calls it by))
COMMANDS = [
    (lambda t: ["run", SCENARIO], "--out", ("aqmlab.run", "run_to_dir")),
    (lambda t: ["compare", SCENARIO], "--out", ("aqmlab.compare", "compare")),
    (lambda t: ["reproduce", "floyd1993-fig3"], "--out", ("aqmlab.reproduce.catalogue", "run")),
    (lambda t: ["sweep", _sweep_spec(t)], "--out", ("aqmlab.sweeps.execute", "sweep")),
    (lambda t: ["testbed", SCENARIO], "--out", ("aqmlab.testbed.core", "run_testbed")),
    (
        lambda t: ["plot-sweep", str(t), "--x", "max_p", "--y", "mean_queue"],
        "--output",
        ("aqmlab.sweeps.cli", "plot"),
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
    with pytest.raises(ValueError, match="^output .*is a directory"):
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


def test_replace_file_writes_whole_with_ordinary_permissions(tmp_path):
    """A file replaced through replace_file has the mode of a file created normally
    (0666 less the umask), and a failed write leaves the old file and no temporary one."""
    target = tmp_path / "t.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with base.replace_file(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("stopped")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["t.json"]
    mask = os.umask(0o027)
    try:
        base.write_text(target, "new", fsync=True)
    finally:
        os.umask(mask)
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["t.json"]
    assert target.stat().st_mode & 0o777 == 0o640


def test_set_aside_keeps_every_earlier_output(tmp_path):
    """An output moved aside twice under the same tag gets -2: nothing is overwritten."""
    for k in (1, 2):
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "k").write_text(str(k))
        base.set_aside(tmp_path / "out", "abc")
    assert (tmp_path / "out.superseded-abc" / "k").read_text() == "1"
    assert (tmp_path / "out.superseded-abc-2" / "k").read_text() == "2"


@pytest.mark.parametrize("value", [0, -3, True, 2.0, "2", None])
def test_positive_int_refuses_what_is_not_a_count(value):
    """A count is an int >= 1: zero, negatives, bools, floats and strings are refused,
    with the argument's name and the value in the message."""
    with pytest.raises(ValueError, match=rf"^jobs must be an integer >= 1, got {value!r}$"):
        base.positive_int("jobs", value)
    assert base.positive_int("jobs", 3) == 3


def test_argument_errors_name_the_flag_on_the_command_line(tmp_path, capsys):
    """A library function names its argument; the command line names the flag."""
    from aqmlab.evaluate import evaluate

    with pytest.raises(ValueError, match=r"^seeds must be an integer >= 1, got 0$"):
        evaluate(aqms="red", scenarios="5.1.1", seeds=0, out=tmp_path / "o")
    argv = ["evaluate", "--aqm", "red", "--scenarios", "5.1.1", "--seeds", "0"]
    assert cli.main(argv + ["--out", str(tmp_path / "o")]) == 2
    assert (
        "aqmlab evaluate: error: --seeds must be an integer >= 1, got 0" in capsys.readouterr().err
    )
    with pytest.raises(ValueError, match=r"^scenarios: no scenario '5.9'"):
        evaluate(aqms="red", scenarios="5.9", quick=True, out=tmp_path / "o")
    assert cli.main(["evaluate", "--aqm", "red", "--scenarios", "5.9", "--out", str(tmp_path)]) == 2
    assert "error: --scenarios: no scenario '5.9'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_toml_errors_are_value_errors_naming_the_file(tmp_path):
    assert base.load_toml("a = 1\n[b]\nc = 'x'") == {"a": 1, "b": {"c": "x"}}
    with pytest.raises(ValueError, match="^TOML syntax: "):
        base.load_toml("a = ")
    with pytest.raises(ValueError, match="^TOML syntax: .*nested too deeply"):
        base.load_toml("a = " + "[" * 100_000)
    bad = tmp_path / "bad.toml"
    bad.write_text("[x")
    with pytest.raises(ValueError, match=f"^{bad}: TOML syntax: "):
        base.read_toml(bad)
    with pytest.raises(ValueError, match="no such file"):
        base.read_toml(tmp_path / "missing.toml")


def test_build_id_is_the_digest_of_the_version_and_the_extension():
    """16 hex digits of SHA-256 over the package version then the extension's bytes."""
    import hashlib
    import importlib.util

    import aqmlab

    origin = importlib.util.find_spec("aqmlab._native").origin
    want = hashlib.sha256(aqmlab.__version__.encode() + Path(origin).read_bytes())
    assert base.build_id() == want.hexdigest()[:16]


def test_pid_alive_counts_a_zombie_as_dead():
    """This process is alive; a child that has exited but was not collected (a zombie)
    is not, and neither is one that was collected."""
    import subprocess
    import sys
    import time

    assert base.pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 30
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline, "the child did not exit"
            time.sleep(0.01)
        assert not base.pid_alive(child.pid)  # a zombie: ended, not collected yet
    finally:
        child.wait()
    assert not base.pid_alive(child.pid)
    with pytest.raises(ValueError, match="pid must be an integer >= 1"):
        base.pid_alive(0)
