"""Floyd, Gummadi & Shenker 2001 (Adaptive RED) in the catalogue: Fig. 10 and Section 4."""

import numpy as np
import pytest

from aqmlab.analysis import ared_target_band
from aqmlab.reproduce import read_comparison, run
from aqmlab.reproduce.floyd2001 import (
    FIG10_MAX_TH,
    FIG10_MIN_TH,
    INTERVAL,
    drive_ared,
    pseudo_code_step,
)


def test_pseudo_code_step_adds_alpha_multiplies_beta_and_keeps_the_range():
    """Fig. 10: +min(0.01, max_p/4) above the band, x0.9 below, unchanged inside, within [0.01, 0.5]."""
    lo, hi = 9.0, 11.0
    assert pseudo_code_step(0.02, 12, lo, hi) == pytest.approx(0.025)
    assert pseudo_code_step(0.2, 12, lo, hi) == pytest.approx(0.21)
    assert pseudo_code_step(0.2, 8, lo, hi) == pytest.approx(0.18)
    assert pseudo_code_step(0.2, 10, lo, hi) == 0.2
    assert pseudo_code_step(0.495, 12, lo, hi) == 0.5
    assert pseudo_code_step(0.5, 12, lo, hi) == 0.5
    assert pseudo_code_step(0.0105, 8, lo, hi) == 0.01


def test_library_ared_follows_the_pseudo_code_at_every_boundary():
    """The library's Adaptive RED, driven above then below its target, steps as Fig. 10 says, only
    at the 0.5 s boundaries, and max_p stays within [0.01, 0.5]."""
    steps, trace, off = drive_ared(((0.0, 2.5), (15.0, 0.7)), 30.0, seed=3, initial_max_p=0.1)
    lo, hi = ared_target_band(FIG10_MIN_TH, FIG10_MAX_TH)
    expected = [pseudo_code_step(b, a, lo, hi) for b, a in zip(steps["max_p_before"], steps["avg"])]
    assert np.allclose(steps["max_p"], expected, rtol=0, atol=1e-12)
    assert off == 0
    assert np.allclose(np.diff(steps["time"]), INTERVAL)
    assert steps["max_p"].between(0.01, 0.5).all() and trace["max_p"].between(0.01, 0.5).all()
    # both directions happened: the run is not trivially constant
    assert (steps["max_p"] > steps["max_p_before"]).sum() > 10
    assert (steps["max_p"] < steps["max_p_before"]).sum() > 10


def test_drive_ared_is_deterministic():
    """Same seed, same steps and trace."""
    a = drive_ared(((0.0, 2.0),), 5.0, seed=7)
    b = drive_ared(((0.0, 2.0),), 5.0, seed=7)
    assert a[0].equals(b[0]) and a[1].equals(b[1])


def test_fig10_and_section4_run_end_to_end(tmp_path):
    """Both ids write a plot and a comparison; the pseudo-code, bound and target-band rows hold."""
    statuses = run(
        ["floyd2001-fig10", "floyd2001-section4"], tmp_path, quick=True, jobs=1, progress=False
    )
    assert statuses == {"floyd2001-fig10": "done", "floyd2001-section4": "done"}
    fig10 = {
        r["quantity"]: r for r in read_comparison(tmp_path / "floyd2001-fig10" / "comparison.csv")
    }
    for q, r in fig10.items():
        if q.startswith(
            (
                "every step",
                "max_p moves only",
                "max_p stays within",
                "increase steps",
                "decrease steps",
            )
        ):
            assert r["verdict"] == "ok", (q, r)
    sec4 = {
        r["quantity"]: r
        for r in read_comparison(tmp_path / "floyd2001-section4" / "comparison.csv")
    }
    bands = [r for q, r in sec4.items() if q.startswith("target band")]
    assert len(bands) == 4 and all(r["verdict"] == "ok" for r in bands)
    assert list((tmp_path / "floyd2001-fig10").glob("*.png"))
