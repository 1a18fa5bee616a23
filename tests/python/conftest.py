"""What several test files share: the plugins, built once for the session."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def plugins(tmp_path_factory):
    """Paths of the RED plugin, the probe plugin and the library of another ABI
    (skipped without cargo and a C compiler)."""
    if shutil.which("cargo") is None or shutil.which("cc") is None:
        pytest.skip("building a plugin needs cargo and a C compiler")
    target = tmp_path_factory.mktemp("plugins")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    for crate in (ROOT / "docs/examples/red-plugin", ROOT / "tests/plugins/probe"):
        r = subprocess.run(
            ["cargo", "build", "--release", "--quiet"],
            cwd=crate,
            env=env,
            capture_output=True,
            text=True,
            timeout=3000,
        )
        assert r.returncode == 0, r.stderr[-3000:]
    wrong = target / "libwrong_abi.so"
    c = ROOT / "tests/plugins/wrong_abi.c"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(wrong), str(c)], check=True)
    rel = target / "release"
    return {"red": rel / "libred_plugin.so", "probe": rel / "libprobe_plugin.so", "abi": wrong}


@pytest.fixture
def compare_and_evaluate(tmp_path):
    """A function of an `--aqm-file` path that runs `aqmlab compare` (dumbbell_10mbps, 40 s)
    and `aqmlab evaluate --quick` (scenario 5.1.1, one seed) on its queues and returns
    compare.csv's rows by AQM and evaluate's metrics of each AQM (its name columns and
    wall time left out)."""
    from aqmlab import cli

    def run(mine: Path):
        import pandas as pd

        scenario = ROOT / "python/aqmlab/scenarios/dumbbell_10mbps.toml"
        out = tmp_path / "cmp"
        args = ["compare", str(scenario), "--aqm-file", str(mine), "--duration", "40s"]
        assert cli.main(args + ["--out", str(out), "--quiet"]) == 0
        rows = pd.read_csv(out / "compare.csv").set_index("aqm")
        ev = tmp_path / "ev"
        args = ["evaluate", "--aqm-file", str(mine), "--scenarios", "5.1.1", "--quick"]
        args += ["--seeds", "1", "--jobs", "1", "--no-progress", "--out", str(ev)]
        assert cli.main(args) == 0
        m = pd.read_parquet(ev / "metrics.parquet")
        drop = ["aqm", "type", "wall_time"]
        by = {a: g.drop(columns=drop).reset_index(drop=True) for a, g in m.groupby("aqm")}
        return rows, by

    return run
