"""The quick RFC 7928 suite as a user runs it: the installed command as a whole process,
every scenario the simulator can run, RED, Adaptive RED, CoDel, PIE and FQ-CoDel."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from aqmlab.evaluate import selection

# the whole quick suite as a process: minutes
pytestmark = pytest.mark.slow

AQMS = ["red", "ared", "codel", "pie", "fq_codel"]


def _command() -> list:
    exe = shutil.which("aqmlab")
    return [exe] if exe else [sys.executable, "-m", "aqmlab"]


def test_the_quick_suite_runs_every_scenario_for_five_aqms(tmp_path):
    out = tmp_path / "ev"
    args = ["evaluate", "--quick", "--aqm", ",".join(AQMS), "--no-progress", "--out", str(out)]
    done = subprocess.run(_command() + args, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    m = pd.read_parquet(out / "metrics.parquet")
    expected = {r.id for r in selection.select(None)}
    ids = {s + ("+ecn" if e else "") for s, e in zip(m.scenario, m.ecn)}
    assert ids == expected
    assert set(m.aqm) == set(AQMS)
    # Every point of every scenario ran for each AQM and each of the 3 quick seeds.
    per = m.groupby(["scenario", "ecn", "variant", "aqm"]).seed.nunique()
    assert (per == 3).all(), per[per != 3]
    assert m.utilization.between(0, 1 + 1e-9).all()
    assert (m.loss_rate >= 0).all()
    d = m.dropna(subset=["delay_p50", "delay_p95", "delay_p99"])
    assert (d.delay_p50 <= d.delay_p95 + 1e-12).all() and (d.delay_p95 <= d.delay_p99 + 1e-12).all()
    html = (out / "index.html").read_text()
    for sid in expected:
        assert sid in html
    for rid in expected:
        assert (out / "plots" / f"{rid}.png").exists(), rid
