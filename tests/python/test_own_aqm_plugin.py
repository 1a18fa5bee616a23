"""Rust AQMs built outside the tree (`queue = { type = "plugin", path = ... }`).

The tutorial's RED plugin (docs/examples/red-plugin, written from Fig. 2 of Floyd &
Jacobson 1993) gives the built-in `red`'s summary bit for bit, links and flows, drawing
from the same generator; a plugin that panics stops the run naming it, the method, the
simulated time and the flow; a file that is not a plugin, or a plugin of another ABI, is
refused at load, the versions named. The plugins are built once for the session
(cargo; the test crate is tests/plugins/probe, the ABI case a C file)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

import pytest

from aqmlab import _native, aqm, cli, simulate
from aqmlab.base import load_toml

ROOT = Path(__file__).resolve().parents[2]

# (the first test builds the plugins: two crates and their dependencies)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
BENCH = ROOT / "scenarios" / "bench_dumbbell_15mbps.toml"
CATALOGUE = ROOT / "python" / "aqmlab" / "scenarios" / "floyd1993_fig3.toml"


def as_plugin(data: dict, path: Path) -> int:
    """Every `red` queue of scenario `data` run by the plugin at `path`; how many."""
    n = 0
    for link in data["link"]:
        for key in ("queue", "queue_ab", "queue_ba"):
            t = link.get(key, {})
            if t.get("type") == "red":
                link[key] = {**{k: v for k, v in t.items() if k != "type"}}
                link[key].update(type="plugin", path=str(path))
                n += 1
    return n


@pytest.mark.parametrize("path", [BENCH, CATALOGUE], ids=["bench_15mbps", "floyd1993_fig3"])
def test_red_plugin_gives_the_builtin_red(plugins, path):
    data = load_toml(path.read_text())
    builtin = simulate(copy.deepcopy(data), progress=False).summary
    assert as_plugin(data, plugins["red"]) >= 1
    mine = simulate(data, progress=False).summary
    assert mine["flows"] == builtin["flows"]
    for d, link in builtin["links"].items():
        other = dict(mine["links"][d])
        if link["queue_type"] == "red":
            assert other.pop("queue_type") == "plugin"
            other["queue_type"] = "red"
        assert other == link, d
    red = [l for l in builtin["links"].values() if l["queue_type"] == "red"]
    assert sum(l["early_drops"] for l in red) > 10 and max(l["mean_avg"] for l in red) > 1


def test_queue_runs_a_plugin(plugins):
    q = aqm.Queue({"type": "plugin", "path": str(plugins["probe"]), "limit": 2})
    assert [q.enqueue(0.001 * i, 1000, 3) for i in range(3)] == ["enqueue"] * 2 + ["drop_forced"]


def test_compare_and_evaluate_take_a_plugin(plugins, tmp_path, compare_and_evaluate):
    """`--aqm-file` names the RED plugin beside the built-in `red` with the same keys:
    `aqmlab compare` and `aqmlab evaluate --quick` (an RFC 7928 scenario and its ECN
    variant, on its Dask workers) give both the same figures, exactly. (Both tables say
    `ecn = true`: the ECN variant turns it on for a built-in, and runs an AQM of one's
    own as its table says.)"""
    import pandas as pd

    keys = "limit = 250\nmin_th = 25\nmax_th = 75\nmax_p = 0.1\ngentle = true\necn = true\n"
    mine = tmp_path / "mine.toml"
    mine.write_text(
        f'[queue.red]\ntype = "red"\n{keys}'
        f'[queue.red_plugin]\ntype = "plugin"\npath = "{plugins["red"]}"\n{keys}'
    )
    rows, by = compare_and_evaluate(mine)
    assert list(rows["type"]) == ["red", "plugin"]
    figures = rows.drop(columns=["type"])
    assert figures.loc["red"].equals(figures.loc["red_plugin"])
    assert figures.loc["red", "drop_rate"] > 0
    assert set(by) == {"red", "red_plugin"}
    pd.testing.assert_frame_equal(by["red"], by["red_plugin"], check_exact=True)
    assert sorted(by["red"]["ecn"]) == [False, True]
    assert (by["red"]["mark_rate"] > 0).tolist() == (by["red"]["ecn"]).tolist()


SCENARIO = """
duration = "5s"
[[link]]
a = "s"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "r"
b = "k"
rate = "2Mbps"
delay = "10ms"
queue = {{ type = "plugin", path = "{path}"{params} }}
[[flow]]
type = "tcp"
src = "s"
dst = "k"
"""


def run_cli(tmp_path, capsys, path, params=""):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(path=path, params=params))
    out = tmp_path / "out"
    rc = cli.main(["run", str(scenario), "--out", str(out), "--quiet", "--no-progress"])
    assert not out.exists() or not any(out.iterdir())
    return rc, capsys.readouterr().err


def test_a_plugin_that_panics_stops_the_run(plugins, tmp_path, capsys):
    rc, err = run_cli(tmp_path, capsys, plugins["probe"], ", panic_at = 40")
    assert rc == 1, err
    for w in ["libprobe_plugin.so", ".on_arrival at simulated time", "flow 0", "panicked"]:
        assert w in err, err
    assert "asked to panic at arrival 40" in err
    with pytest.raises(_native.ExternalAqmError, match="asked to panic at arrival 40"):
        sc = load_toml(SCENARIO.format(path=plugins["probe"], params=", panic_at = 40"))
        simulate(sc, progress=False)


def test_a_plugin_that_panics_when_built_or_is_given_a_bad_key(plugins, tmp_path, capsys):
    rc, err = run_cli(tmp_path, capsys, plugins["probe"], ", panic_in_new = true")
    assert rc == 2 and "new panicked: asked to panic in new" in err, err
    rc, err = run_cli(tmp_path, capsys, plugins["probe"], ", limt = 3")
    assert rc == 2 and "limt" in err and "unknown field" in err, err


def test_not_a_plugin_is_refused(plugins, tmp_path, capsys):
    text = tmp_path / "notes.so"
    text.write_text("not a library")
    rc, err = run_cli(tmp_path, capsys, text)
    assert rc == 2 and "link[1].queue.path" in err and "is not a plugin" in err, err
    lib = next(
        Path(p)
        for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/libm.so.6")
        if Path(p).exists()
    )
    rc, err = run_cli(tmp_path, capsys, lib)
    assert rc == 2 and "is not an aqmlab plugin" in err, err
    rc, err = run_cli(tmp_path, capsys, tmp_path / "absent.so")
    assert rc == 2 and "absent.so" in err, err


def test_another_abi_is_refused_naming_both_versions(plugins, tmp_path, capsys):
    rc, err = run_cli(tmp_path, capsys, plugins["abi"])
    assert rc == 2, err
    assert "built against aqm 9.9.9 (plugin ABI 99)" in err, err
    assert f"this aqmlab has aqm {_native.__version__} (plugin ABI 1)" in err, err


def test_new_aqm_rust_scaffolds_a_plugin_its_test_and_scenario(
    plugins, tmp_path, capsys, monkeypatch
):
    assert cli.main(["new-aqm", "my_plugin", "--rust", "--dir", str(tmp_path)]) == 0
    made = tmp_path / "my_plugin"
    assert (made / "src" / "lib.rs").exists() and (made / "scenario.toml").exists()
    assert str(ROOT / "crates" / "aqm") in (made / "Cargo.toml").read_text()
    # (the session's target directory, where the dependencies are built already)
    (made / "target").symlink_to(plugins["red"].parents[1], target_is_directory=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(made / "target"))
    for cmd in (
        ["cargo", "test", "--release", "--quiet"],
        ["cargo", "build", "--release", "--quiet"],
    ):
        r = subprocess.run(cmd, cwd=made, env=env, capture_output=True, text=True, timeout=3000)
        assert r.returncode == 0, r.stderr[-3000:]
    monkeypatch.chdir(made)
    rc = cli.main(["run", "scenario.toml", "--out", "out", "--quiet", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    summary = json.loads((made / "out" / "summary.json").read_text())
    assert summary["links"]["r1->r2"]["queue_type"] == "plugin"
