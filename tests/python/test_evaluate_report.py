"""The report of `aqmlab evaluate`: ellipse geometry, the best-value rule, the page."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from aqmlab.evaluate import report
from aqmlab.evaluate.columns import KEY_COLUMNS, METRIC_COLUMNS


def _rotated_cov(l_major: float, l_minor: float, theta_deg: float) -> np.ndarray:
    t = math.radians(theta_deg)
    r = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return r @ np.diag([l_major, l_minor]) @ r.T


@pytest.mark.parametrize("theta", [0.0, 30.0, 90.0, 135.0])
def test_ellipse_axes_are_the_square_roots_of_the_eigenvalues_along_the_eigenvectors(theta):
    """A covariance built as R diag(9, 0.25) R' gives semi-axes 3 and 0.5 at angle theta."""
    cov = _rotated_cov(9.0, 0.25, theta)
    a, b, ang = report.ellipse(cov)
    assert a == pytest.approx(3.0)
    assert b == pytest.approx(0.5)
    assert ang % 180.0 == pytest.approx(theta % 180.0, abs=1e-9)
    a2, b2, _ = report.ellipse(cov, n_std=2.0)
    assert (a2, b2) == (pytest.approx(6.0), pytest.approx(1.0))


def test_ellipse_outline_is_the_one_standard_deviation_contour():
    """Every point x of the outline has (x - m)' C^-1 (x - m) = 1, and it spans the axes."""
    cov = _rotated_cov(4.0, 1.0, 60.0) + 0.0
    mean = np.array([12.0, 9.5])
    pts = report.ellipse_outline(mean, cov, n=73)
    inv = np.linalg.inv(cov)
    d = pts - mean
    maha = np.einsum("ij,jk,ik->i", d, inv, d)
    assert np.allclose(maha, 1.0)
    # the farthest points from the centre are at the semi-major axis, 2
    assert np.max(np.hypot(d[:, 0], d[:, 1])) == pytest.approx(2.0, rel=1e-3)
    assert np.min(np.hypot(d[:, 0], d[:, 1])) == pytest.approx(1.0, rel=1e-3)


def test_degenerate_covariances():
    """No spread draws a point; a spread along one direction is a segment, not a point."""
    m = np.array([10.0, 9.0])
    assert report.degenerate(np.zeros((2, 2)), m)
    assert report.degenerate(np.full((2, 2), np.nan), m)
    line = np.array([[1.0, 1.0], [1.0, 1.0]])  # rank 1: along (1, 1)
    assert not report.degenerate(line, m)
    a, b, ang = report.ellipse(line)
    assert (a, b, ang) == (pytest.approx(math.sqrt(2.0)), pytest.approx(0.0, abs=1e-7), 45.0)
    with pytest.raises(ValueError, match="2x2"):
        report.ellipse(np.eye(3))


def test_aqm_points_are_the_mean_and_covariance_over_seeds():
    """Per AQM: mean and sample covariance of (delay ms, goodput Mb/s); one seed: no ellipse."""
    rng = np.random.default_rng(3)
    rows = []
    for aqm, n in (("red", 5), ("codel", 1)):
        for _ in range(n):
            rows.append(
                {
                    "aqm": aqm,
                    "delay_mean": 0.01 + 0.004 * rng.random(),
                    "goodput_bps": 9e6 + 4e5 * rng.random(),
                }
            )
    df = pd.DataFrame(rows)
    got = {label: (m, c) for label, m, c in report.aqm_points(df)}
    red = df[df.aqm == "red"]
    xy = np.column_stack([red.delay_mean * 1000, red.goodput_bps / 1e6])
    d = xy - xy.mean(axis=0)
    assert np.allclose(got["red"][0], xy.mean(axis=0))
    assert np.allclose(got["red"][1], d.T @ d / (len(xy) - 1))
    assert got["codel"][1] is None
    last = rows[-1]  # codel's only row: the point is that row
    assert np.allclose(got["codel"][0], [last["delay_mean"] * 1000, last["goodput_bps"] / 1e6])


def test_best_rows_rule():
    """Lowest / highest / closest to 1; ties all marked; NaN never; no mark without a rival."""
    nan = float("nan")
    assert report.best_rows([3.0, 1.0, 2.0], "lower") == [False, True, False]
    assert report.best_rows([3.0, 1.0, 3.0], "higher") == [True, False, True]
    assert report.best_rows([0.7, 1.2, 1.05, nan], "one") == [False, False, True, False]
    # ratios are compared on a log scale: 2 is as unfair as 0.5, 1.1 fairer than 0.9
    assert report.best_rows([0.5, 2.0, 3.0], "one") == [True, True, False]
    assert report.best_rows([0.9, 1.1], "one") == [False, True]
    assert report.best_rows([0.0, -1.0, 4.0], "one") == [False, False, True]
    assert report.best_rows([1.0 + 1e-15, 1.0, 2.0], "lower") == [True, True, False]
    assert report.best_rows([nan, 2.0], "lower") == [False, False]  # one finite value
    assert report.best_rows([1.0, 2.0], None) == [False, False]
    with pytest.raises(ValueError, match="better"):
        report.best_rows([1.0, 2.0], "bigger")


def test_every_contract_metric_says_which_way_is_better():
    """The table's header states the direction of every metric, class columns included."""
    for c in METRIC_COLUMNS:
        assert c in report.METRICS
    assert report.metric_format("goodput_bps_udp")[0] == "goodput udp, Mb/s"
    assert report.metric_format("class_loss_rate_web")[3] is None


def _metrics(variants=("default",), seeds=3, scenario="5.1.1", ecn=False) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for aqm in ("droptail", "red", "codel"):
        for v in variants:
            for s in range(1, seeds + 1):
                r = {c: np.nan for c in METRIC_COLUMNS}
                r.update(
                    scenario=scenario,
                    section=scenario,
                    variant=v,
                    ecn=ecn,
                    aqm=aqm,
                    type=aqm,
                    seed=s,
                    goodput_bps=9e6 + 1e6 * rng.random(),
                    delay_mean=0.005 + 0.03 * rng.random(),
                    goodput_ratio=0.5 + rng.random(),
                    wall_time=0.1,
                )
                rows.append(r)
    df = pd.DataFrame(rows)
    return df[[*KEY_COLUMNS, *METRIC_COLUMNS, "wall_time"]]


def _cells(table_html: str):
    rows = re.findall(r"<tr>(.*?)</tr>", table_html, flags=re.S)
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, flags=re.S) for r in rows], rows


def test_metric_table_marks_the_best_mean_of_each_column():
    """Means over seeds +- std; the marked cell is the lowest delay / highest goodput /
    ratio closest to 1, computed here from the rows."""
    df = _metrics()
    h = "\n".join(report.metric_table(df))
    cells, rows = _cells(h)
    header = cells[0]
    means = df.groupby("aqm", sort=False)[["goodput_bps", "delay_mean", "goodput_ratio"]].mean()
    expect = {
        "goodput, Mb/s": means["goodput_bps"].idxmax(),
        "delay mean, ms": means["delay_mean"].idxmin(),
        "goodput ratio": np.log(means["goodput_ratio"]).abs().idxmin(),
    }
    for col, winner in expect.items():
        j = next(i for i, t in enumerate(header) if t.startswith(col))
        marked = [
            cells[i][0]
            for i in range(1, len(rows))
            if re.findall(r"<td([^>]*)>", rows[i])[j].find("best") >= 0
        ]
        assert marked == [winner], col
    # the displayed mean and std of one cell
    std = df[df.aqm == "red"]["delay_mean"].std() * 1e3
    red = next(c for c in cells[1:] if c[0] == "red")
    j = next(i for i, t in enumerate(header) if t.startswith("delay mean"))
    assert red[j] == f"{means.loc['red', 'delay_mean'] * 1e3:.1f} &plusmn; {std:.1f}"
    assert "lower is better" in h and "higher is better" in h and "closest to 1 is best" in h
    # columns with no value in this scenario are left out
    assert "FCT" not in h


def test_write_puts_every_scenario_with_its_plots_on_the_page(tmp_path):
    """index.html has the contents, each scenario's section, table and plots; a variant
    scenario also gets its plot against the variant; the AQM tables are listed."""
    m = pd.concat(
        [_metrics(), _metrics(variants=("10ms", "100ms", "400ms"), scenario="6")],
        ignore_index=True,
    )
    runs = [
        {
            "id": "5.1.1",
            "scenario": "5.1.1",
            "section": "5.1",
            "title": "one flow",
            "description": "Definition.\n\nAssumed: <IW3>.",
            "ecn": False,
        },
        {
            "id": "6",
            "scenario": "6",
            "section": "6",
            "title": "RTT",
            "description": "",
            "ecn": False,
        },
        {"id": "5.1.1+ecn", "scenario": "5.1.1", "section": "5.1", "title": "ecn", "ecn": True},
    ]
    info = {
        "aqms": {"red": {"type": "red", "max_p": 0.1}},
        "quick": True,
        "seeds": [1, 2, 3],
        "wall_seconds": 12.5,
        "failed": [
            {"scenario": "5.1.1", "variant": "", "ecn": True, "aqm": "red", "seed": 1, "error": "X"}
        ],
    }
    path = report.write(tmp_path, m, info, runs)
    page = path.read_text()
    for r in runs:
        assert f"id='s-{r['id']}'" in page and f"href='#s-{r['id']}'" in page
    assert (tmp_path / "plots" / "5.1.1.png").stat().st_size > 1000
    assert (tmp_path / "plots" / "6.png").exists()
    assert (tmp_path / "plots" / "6-variants.png").exists()
    assert not (tmp_path / "plots" / "5.1.1-variants.png").exists()
    assert "plots/6-variants.png" in page
    assert "&lt;IW3&gt;" in page and "<p>Definition.</p>" in page  # escaped, in paragraphs
    assert "no finished runs" in page  # the ECN run has no rows
    assert "&quot;max_p&quot;: 0.1" in page and "wall time 12.5 s" in page
    assert "1 failed runs" in page
