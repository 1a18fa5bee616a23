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
