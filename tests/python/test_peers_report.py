"""The peers benchmark's history: the harness reads back a recorded run without running anything."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "peers" / "run"


def test_report_of_a_recorded_run_from_the_history():
    """--report on history.csv prints the cost and result tables of the labelled run."""
    out = subprocess.run(
        [
            sys.executable,
            str(RUN),
            "--report",
            str(ROOT / "benchmarks" / "peers" / "history.csv"),
            "--label",
            "2026-11-23/threads2-all",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # that run flagged S2's start-up transient (four results against ns-2 alone,
    # explained in docs/peers.md): the exit status says so
    assert out.returncode == 1 and "4 agreement failure(s)" in out.stdout
    out = out.stdout
    assert "== cost" in out and "== results" in out
    cases = {line.split()[0] for line in out.splitlines() if line.startswith(("S1-", "S2-"))}
    assert {"S1-n100-red", "S2-red", "S1-n100-red-2000s"} <= cases
    s1 = [x for x in out.splitlines() if x.startswith("S1-n100-red ") and "utilization" in x]
    assert len(s1) == 1 and s1[0].rstrip().endswith(" ok")
