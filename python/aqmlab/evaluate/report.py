"""The report of ``aqmlab evaluate``: a plot per scenario and ``index.html``.

- ``plots/<id>.png``: queueing delay (mean, x, growing to the left as RFC 7928 Section
  2.7 draws it) against goodput (y), one ellipse per AQM: the mean and the covariance of
  (delay, goodput) over the seeds, drawn at one standard deviation (:func:`ellipse`; a
  degenerate covariance, e.g. a single seed, draws the point alone);
- ``plots/<id>-variants.png`` for scenarios with variants (6, 8.3): the key metric
  against the variant (:func:`variant_plot`);
- ``index.html``: the AQM tables, the run's settings and wall time, a table of contents,
  then per scenario its definition and assumptions, a table AQM x metric (mean over the
  seeds +- standard deviation, the best value of each column marked: :data:`METRICS`
  says whether lower or higher is better, and for ratios the best is the one closest to
  1 on a log scale) and the plots.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..base import replace_file
from .columns import KEY_COLUMNS, TCP_COLUMN

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: metric -> (column header, scale for display, format, which is best: "lower",
#: "higher", "one" (closest to 1) or None (not ranked)).
METRICS: dict[str, tuple[str, float, str, str | None]] = {
    "goodput_bps": ("goodput, Mb/s", 1e-6, ".3f", "higher"),
    "utilization": ("utilization", 1.0, ".3f", "higher"),
    "delay_mean": ("delay mean, ms", 1e3, ".1f", "lower"),
    "delay_p50": ("delay p50, ms", 1e3, ".1f", "lower"),
    "delay_p95": ("delay p95, ms", 1e3, ".1f", "lower"),
    "delay_p99": ("delay p99, ms", 1e3, ".1f", "lower"),
    "loss_rate": ("loss rate, %", 100.0, ".3f", "lower"),
    "loss_target": ("loss target, %", 100.0, ".1f", None),
    "mark_rate": ("mark rate, %", 100.0, ".3f", None),
    "loss_interval_mean": ("signal interval, s", 1.0, ".3f", None),
    "loss_interval_cv": ("signal interval CV", 1.0, ".2f", None),
    "loss_sync": ("loss sync.", 1.0, ".3f", "lower"),
    "jain": ("Jain index", 1.0, ".3f", "higher"),
    "fct_mean": ("FCT mean, s", 1.0, ".3f", "lower"),
    "fct_p95": ("FCT p95, s", 1.0, ".3f", "lower"),
    "startup_mean": ("start-up, ms", 1e3, ".1f", "lower"),
    "goodput_ratio": ("goodput ratio", 1.0, ".3f", "one"),
}
_BETTER = {
    "lower": "lower is better",
    "higher": "higher is better",
    "one": "closest to 1 is best (log scale)",
    None: "not ranked",
}


def metric_format(col: str) -> tuple[str, float, str, str | None]:
    """(header, scale, format, best) of a column, the class columns included."""
    if col in METRICS:
        return METRICS[col]
    if col.startswith("goodput_bps_"):
        return (f"goodput {col[len('goodput_bps_') :]}, Mb/s", 1e-6, ".3f", None)
    if col.startswith("class_loss_rate_"):
        return (f"loss {col[len('class_loss_rate_') :]}, %", 100.0, ".3f", None)
    return (col, 1.0, ".4g", None)


def best_rows(values: Sequence[float], better: str | None) -> list[bool]:
    """Which of `values` are the best: the lowest, the highest, or (``"one"``, for ratios)
    the closest to 1 on a log scale (a ratio of 2 is as far from fair as 0.5; a ratio <= 0
    is farthest). Ties (within 1e-12, relative) are all marked, NaN never; nothing is
    marked with fewer than two finite values or when `better` is None."""
    xs = [float(v) for v in values]
    finite = [x for x in xs if math.isfinite(x)]
    if better is None or len(finite) < 2:
        return [False] * len(xs)

    def score(x: float) -> float:
        if better == "lower":
            return x
        if better == "higher":
            return -x
        return abs(math.log(x)) if x > 0 else math.inf

    if better not in ("lower", "higher", "one"):
        raise ValueError(f"better: must be lower, higher, one or None, got {better!r}")
    top = min(score(x) for x in finite)
    tol = 1e-12 * max(1.0, abs(top)) if math.isfinite(top) else 0.0
    return [math.isfinite(x) and score(x) <= top + tol for x in xs]


def ellipse(cov: Any, n_std: float = 1.0) -> tuple[float, float, float]:
    """The ellipse of a 2x2 covariance at `n_std` standard deviations: (semi-major axis,
    semi-minor axis, angle of the major axis from the x axis in degrees, in [0, 180)).

    The axes are along the eigenvectors of the covariance, of half-lengths n_std x the
    square roots of the eigenvalues (numpy's ``eigh``): the points x with
    (x - mean)' cov^-1 (x - mean) = n_std^2."""
    import numpy as np

    c = np.asarray(cov, dtype=float)
    if c.shape != (2, 2) or not np.all(np.isfinite(c)):
        raise ValueError(f"cov: expected a finite 2x2 matrix, got {c!r}")
    c = (c + c.T) / 2.0
    w, v = np.linalg.eigh(c)  # ascending eigenvalues
    w = np.clip(w, 0.0, None)
    major, minor = float(n_std * math.sqrt(w[1])), float(n_std * math.sqrt(w[0]))
    angle = math.degrees(math.atan2(v[1, 1], v[0, 1])) % 180.0
    return major, minor, angle


def ellipse_outline(mean: Any, cov: Any, n_std: float = 1.0, n: int = 121) -> Any:
    """`n` points (an n x 2 array) around the ellipse of :func:`ellipse` centred on `mean`."""
    import numpy as np

    a, b, ang = ellipse(cov, n_std)
    t = np.linspace(0.0, 2.0 * math.pi, n)
    r = math.radians(ang)
    rot = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])
    pts = np.stack([a * np.cos(t), b * np.sin(t)], axis=1) @ rot.T
    return pts + np.asarray(mean, dtype=float)


def degenerate(cov: Any, mean: Any, rel: float = 1e-9) -> bool:
    """Whether the ellipse of `cov` would be invisible (both axes nil against the mean)."""
    import numpy as np

    c = np.asarray(cov, dtype=float)
    if not np.all(np.isfinite(c)):
        return True
    a, _, _ = ellipse(c)
    scale = max(1.0, float(np.max(np.abs(np.asarray(mean, dtype=float)))))
    return a <= rel * scale


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    with replace_file(path) as tmp:
        fig.savefig(tmp, dpi=110)


def reference_rows(df: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The rows the delay-goodput plot of a scenario draws, and a note saying which:
    all rows for a scenario without variants; for one with variants, the ``default``
    variant when every AQM has it (8.3), else every variant pooled (6)."""
    variants = list(dict.fromkeys(df["variant"]))
    if len(variants) <= 1:
        return df, ""
    if "default" in variants and all(
        (g["variant"] == "default").any() for _, g in df.groupby("aqm", sort=False)
    ):
        return df[df["variant"] == "default"], "variant 'default'"
    return df, "all variants pooled"


def aqm_points(rows: pd.DataFrame) -> list[tuple[str, Any, Any | None]]:
    """Per AQM (in order of appearance): the mean of (mean delay in ms, goodput in Mb/s)
    over its rows and their covariance (numpy's, n - 1 in the denominator), or None when
    there is no ellipse to draw (fewer than two rows, or a degenerate covariance)."""
    import numpy as np

    res: list[tuple[str, Any, Any | None]] = []
    for label, g in rows.groupby("aqm", sort=False):
        xy = np.column_stack([g["delay_mean"] * 1e3, g["goodput_bps"] * 1e-6]).astype(float)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) == 0:
            continue
        mean = xy.mean(axis=0)
        cov = np.cov(xy, rowvar=False) if len(xy) >= 2 else None
        if cov is not None and degenerate(cov, mean):
            cov = None
        res.append((str(label), mean, cov))
    return res


def delay_goodput_plot(df: pd.DataFrame, path: Path, title: str) -> None:
    """The RFC 7928 Section 2.7 view: per AQM the mean (delay, goodput) over its rows and
    the 1-standard-deviation ellipse of their covariance (:func:`aqm_points`); the delay
    axis grows to the left."""
    from matplotlib.patches import Polygon

    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.6, 4.6))
    rows, note = reference_rows(df)
    for i, (label, mean, cov) in enumerate(aqm_points(rows)):
        color = f"C{i % 10}"
        ax.plot(*mean, marker="o", color=color, label=label, linestyle="none")
        if cov is not None:
            pts = ellipse_outline(mean, cov)
            ax.add_patch(Polygon(pts, closed=True, fill=False, color=color, lw=1.4))
    ax.autoscale_view()
    ax.invert_xaxis()
    ax.set_xlabel("queueing delay at the bottleneck, mean, ms (lower to the right)")
    ax.set_ylabel("goodput, Mb/s (all flows)")
    ax.set_title(title + (f" ({note})" if note else ""), fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def _number(v: str) -> float | None:
    """The number a variant label starts with (``"80ms"`` -> 80), if any."""
    m = re.match(r"^[^0-9+-]*([+-]?\d+(?:\.\d+)?)", str(v))
    return float(m.group(1)) if m else None


def variant_plot(df: pd.DataFrame, path: Path, title: str) -> None:
    """The key metric against the variant: the goodput ratio when the scenario has one
    (6: one line per AQM against R), else mean delay and goodput, bars per AQM and
    variant (8.3). Means over seeds, bars of one standard deviation."""
    import numpy as np

    plt = _plt()
    has_ratio = "goodput_ratio" in df and df["goodput_ratio"].notna().any()
    keys = ["goodput_ratio"] if has_ratio else ["delay_mean", "goodput_bps"]
    fig, axes = plt.subplots(len(keys), 1, figsize=(7.6, 3.4 * len(keys)), squeeze=False)
    per_aqm = {a: list(dict.fromkeys(g["variant"])) for a, g in df.groupby("aqm", sort=False)}
    shared = len({tuple(v) for v in per_aqm.values()}) == 1
    for ax, key in zip(axes[:, 0], keys):
        head, scale, _, better = metric_format(key)
        stats = df.groupby(["aqm", "variant"], sort=False)[key].agg(["mean", "std"])
        if shared:
            vs = next(iter(per_aqm.values()))
            nums = [_number(v) for v in vs]
            numeric = all(x is not None for x in nums)
            xs: list[float] = [float(x or 0.0) for x in nums] if numeric else list(range(len(vs)))
            for i, a in enumerate(per_aqm):
                m = [stats.loc[(a, v), "mean"] * scale for v in vs]
                s = np.nan_to_num([stats.loc[(a, v), "std"] * scale for v in vs])
                ax.errorbar(xs, m, yerr=s, marker="o", capsize=3, color=f"C{i % 10}", label=a)
            if numeric and min(xs) > 0 and max(xs) / min(xs) > 20:
                ax.set_xscale("log")
            ax.set_xticks(xs)
            ax.set_xticklabels(vs, rotation=45 if len(vs) > 6 else 0, fontsize="small")
            ax.set_xlabel("variant")
        else:
            pos, labels = 0.0, []
            for i, (a, avs) in enumerate(per_aqm.items()):
                for v in avs:
                    m, s = stats.loc[(a, v), "mean"] * scale, stats.loc[(a, v), "std"] * scale
                    ax.bar(pos, m, yerr=0 if s != s else s, color=f"C{i % 10}", capsize=2)
                    labels.append((pos, f"{a!s}: {v!s}"))
                    pos += 1.0
                pos += 0.8
            ax.set_xticks([p for p, _ in labels])
            ax.set_xticklabels([t for _, t in labels], rotation=90, fontsize="x-small")
        if better == "one":
            ax.axhline(1.0, color="0.5", lw=0.8, ls="--")
            means = stats["mean"].to_numpy(dtype=float)
            if shared and np.isfinite(means).all() and (means > 0).all():  # 2 as far as 0.5
                from matplotlib.ticker import NullFormatter

                ax.set_yscale("log")
                lo, hi = ax.get_ylim()
                ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20) if lo <= t <= hi]
                ax.set_yticks(ticks)
                ax.set_yticklabels([f"{t:g}" for t in ticks])
                ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylabel(head)
        ax.grid(True, alpha=0.3)
    if shared:
        axes[0, 0].legend(fontsize="small")
    axes[0, 0].set_title(title, fontsize="medium")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1250px;color:#222}
h1{margin-bottom:0.2em} .meta{color:#555;font-size:0.9em}
table{border-collapse:collapse;margin:0.5em 0 1em 0;font-size:0.85em}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap} td.best{background:#e3f4e6;font-weight:bold}
th small{font-weight:normal;color:#666}
section{border-top:2px solid #ddd;padding-top:0.5em;margin-top:1.5em}
img{max-width:100%;border:1px solid #eee} .error{color:#b3261e}
pre{background:#f6f6f6;padding:0.5em;overflow:auto;font-size:0.8em}
"""


def _cell(mean: float, std: float, fmt: str, scale: float) -> str:
    if not math.isfinite(mean):
        return "&ndash;"
    s = format(mean * scale, fmt)
    if math.isfinite(std):
        s += f" &plusmn; {format(std * scale, fmt)}"
    return s


def table_columns(df: pd.DataFrame) -> list[str]:
    """The metric columns a scenario's table shows: those with a finite value."""
    cols = [c for c in df.columns if c not in (*KEY_COLUMNS, TCP_COLUMN, "wall_time")]
    cols = [c for c in cols if df[c].notna().any()]
    if "loss_target" in cols and "loss_rate" in cols:  # the target beside the measured rate
        cols.remove("loss_target")
        cols.insert(cols.index("loss_rate") + 1, "loss_target")
    return cols


def metric_table(df: pd.DataFrame) -> list[str]:
    """The HTML table of a scenario: one row per AQM (and variant), mean +- std over the
    seeds per metric; in each column the best row of each variant marked."""
    cols = table_columns(df)
    many = df["variant"].nunique() > 1
    g = df.groupby(["aqm", "variant"], sort=False)
    mean, std, n = g[cols].mean(), g[cols].std(), g.size()
    marks = {c: [False] * len(mean) for c in cols}
    variants = [v for _, v in mean.index]
    for v in dict.fromkeys(variants):
        idx = [i for i, w in enumerate(variants) if w == v]
        for c in cols:
            ok = best_rows([mean[c].iloc[i] for i in idx], metric_format(c)[3])
            for i, b in zip(idx, ok):
                marks[c][i] = b
    h = ["<table><tr><th>AQM</th>" + ("<th>variant</th>" if many else "") + "<th>seeds</th>"]
    for c in cols:
        head, _, _, better = metric_format(c)
        h.append(f"<th>{html.escape(head)}<br><small>{_BETTER[better]}</small></th>")
    h.append("</tr>")
    for i, (a, v) in enumerate(mean.index):
        row = f"<tr><td>{html.escape(str(a))}</td>"
        row += f"<td>{html.escape(str(v))}</td>" if many else ""
        row += f"<td class='num'>{int(n.iloc[i])}</td>"
        for c in cols:
            _, scale, fmt, _ = metric_format(c)
            cls = "num best" if marks[c][i] else "num"
            row += f"<td class='{cls}'>{_cell(mean[c].iloc[i], std[c].iloc[i], fmt, scale)}</td>"
        h.append(row + "</tr>")
    h.append("</table>")
    return h


def _paragraphs(text: str) -> str:
    parts = [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]
    return "".join(f"<p>{html.escape(p)}</p>" for p in parts)


def _head(info: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Title, settings, wall time, the AQM tables and the table of contents."""
    quick = info.get("quick")
    h = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<title>aqmlab evaluate: RFC 7928</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>AQM characterization (RFC 7928)</h1>",
        "<p class='meta'>"
        + " &middot; ".join(
            html.escape(x)
            for x in (
                "quick: 60 s runs, 10 s warm-up" if quick else "full: 300 s runs, 30 s warm-up",
                f"seeds {', '.join(map(str, info.get('seeds', [])))}",
                f"{len(runs)} scenarios",
                f"{info.get('rows', 0)} runs",
                f"wall time {info.get('wall_seconds', 0.0):.1f} s",
                f"started {info.get('started', '')}",
                f"cluster: {info.get('scheduler') or 'local, %s workers' % (info.get('jobs') or 'all cores')}",
                f"build {info.get('build', '')}",
            )
        )
        + "</p>",
        "<h2>AQMs</h2><table><tr><th>label</th><th>type</th><th>table</th></tr>",
    ]
    for label, t in info.get("aqms", {}).items():
        h.append(
            f"<tr><td>{html.escape(label)}</td><td>{html.escape(str(t.get('type')))}</td>"
            f"<td><code>{html.escape(json.dumps(t, sort_keys=True))}</code></td></tr>"
        )
    h.append(
        "</table><p class='meta'>A queue without limit or limit_bytes gets the "
        "scenario's buffer (2 x BDP).</p>"
    )
    failed = info.get("failed", [])
    if failed:
        h.append(f"<h2 class='error'>{len(failed)} failed runs</h2><table>")
        h.append("<tr><th>scenario</th><th>variant</th><th>ECN</th><th>AQM</th><th>seed</th>")
        h.append("<th>error</th></tr>")
        for f in failed:
            h.append(
                "<tr>"
                + "".join(
                    f"<td>{html.escape(str(f.get(k)))}</td>"
                    for k in ("scenario", "variant", "ecn", "aqm", "seed", "error")
                )
                + "</tr>"
            )
        h.append("</table>")
    h.append("<h2>Scenarios</h2><table><tr><th>id</th><th>RFC 7928</th><th>title</th></tr>")
    for r in runs:
        h.append(
            f"<tr><td><a href='#s-{html.escape(r['id'])}'>{html.escape(r['id'])}</a></td>"
            f"<td>Section {html.escape(str(r['section']))}</td>"
            f"<td>{html.escape(r['title'])}</td></tr>"
        )
    h.append("</table>")
    return h


def _rows_of(metrics: pd.DataFrame, run: Mapping[str, Any]) -> pd.DataFrame:
    if metrics.empty:
        return metrics
    sel = (metrics["scenario"] == run["scenario"]) & (metrics["ecn"] == bool(run["ecn"]))
    return metrics[sel]


def write(
    out: Path,
    metrics: pd.DataFrame,
    info: Mapping[str, Any],
    runs: Sequence[Mapping[str, Any]],
) -> Path:
    """Write ``out/plots/`` and ``out/index.html`` for the scenarios `runs` (dicts of
    id, scenario, section, title, description, ecn) from metrics.parquet's rows; returns
    the index's path."""
    out = Path(out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    if TCP_COLUMN in metrics.columns:
        # (on the transport axis the report sets each AQM and variant apart)
        metrics = metrics.assign(aqm=metrics["aqm"] + "/" + metrics[TCP_COLUMN])
    h = _head(info, runs)
    for r in runs:
        rid = r["id"]
        df = _rows_of(metrics, r)
        h.append(f"<section id='s-{html.escape(rid)}'>")
        h.append(f"<h2>{html.escape(rid)}: {html.escape(r['title'])}</h2>")
        sec = str(r["section"])
        where = f"RFC 7928 Section {sec}" if sec[:1].isdigit() else "beyond RFC 7928"
        h.append(f"<p class='meta'>{html.escape(where)}</p>")
        h.append(_paragraphs(r.get("description", "")))
        if df.empty:
            h.append("<p class='error'>no finished runs</p></section>")
            continue
        h.extend(metric_table(df))
        title = f"{rid}: {r['title']}"
        delay_goodput_plot(df, out / "plots" / f"{rid}.png", title)
        h.append(
            f"<p><img src='plots/{quote(rid)}.png' alt='{html.escape(rid)} delay-goodput'></p>"
        )
        if df["variant"].nunique() > 1:
            variant_plot(df, out / "plots" / f"{rid}-variants.png", title)
            h.append(
                f"<p><img src='plots/{quote(rid)}-variants.png' "
                f"alt='{html.escape(rid)} against the variant'></p>"
            )
        h.append("</section>")
    h.append("</body></html>")
    path = out / "index.html"
    with replace_file(path) as tmp:
        tmp.write_text("\n".join(h))
    return path
