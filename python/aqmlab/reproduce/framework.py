"""The reproduction framework: experiment registry, per-experiment context, runner,
comparison tables and the HTML index.

An experiment is a function ``run(ctx)`` registered under one or more ids
(``<first author><year>-<fig|table><n>``). Ids registered by the same function form a
group: they run one after another in one process, so a group can compute once and
write each id's outputs. Each id writes into ``OUT/<id>/``: data (CSV or Parquet),
plots (PNG), ``comparison.csv`` and ``meta.json`` (title, paper, assumptions, notes).
"""

from __future__ import annotations

import csv
import html
import json
import math
import os
import shutil
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

COMPARISON_COLUMNS = ["quantity", "paper", "aqmlab", "tolerance", "verdict"]
VERDICTS = ("ok", "differs", "not-reported")


@dataclass
class Experiment:
    """A registered experiment id."""

    id: str
    title: str
    paper: str
    run: Callable[["Context"], None]
    group: str  # the registering function's qualified name: ids of one group run together


REGISTRY: Dict[str, Experiment] = {}


def experiment(ids: Union[str, Sequence[Tuple[str, str]]], title: str = "", paper: str = ""):
    """Register ``run(ctx)`` under one id (``ids`` a string, with ``title``) or several
    (``ids`` a list of ``(id, title)`` pairs)."""
    pairs = [(ids, title)] if isinstance(ids, str) else list(ids)

    def deco(fn: Callable[["Context"], None]):
        group = f"{fn.__module__}.{fn.__qualname__}"
        for id_, t in pairs:
            if id_ in REGISTRY:
                raise ValueError(f"experiment id {id_!r} registered twice")
            REGISTRY[id_] = Experiment(id_, t, paper, fn, group)
        return fn

    return deco


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.6g}"
    return str(v)


@dataclass
class Row:
    quantity: str
    paper: str
    aqmlab: str
    tolerance: str
    verdict: str


class Comparison:
    """The rows of ``comparison.csv``: one per number or claim the paper states."""

    def __init__(self) -> None:
        self.rows: List[Row] = []

    def value(
        self, quantity: str, paper: float, aqmlab: float, tolerance: float, relative: bool = False
    ) -> bool:
        """A number: ok when |aqmlab - paper| <= tolerance (times |paper| if relative)."""
        tol = tolerance * abs(paper) if relative else tolerance
        ok = aqmlab is not None and not math.isnan(aqmlab) and abs(aqmlab - paper) <= tol + 1e-12
        tol_text = f"{tolerance:g} relative" if relative else f"{tolerance:g}"
        self.rows.append(
            Row(quantity, _fmt(paper), _fmt(aqmlab), tol_text, "ok" if ok else "differs")
        )
        return ok

    def claim(
        self,
        quantity: str,
        holds: bool,
        aqmlab: str = "",
        paper: str = "holds",
        tolerance: str = "",
    ) -> bool:
        """A qualitative claim checked as an inequality; `quantity` states it."""
        self.rows.append(
            Row(
                quantity,
                paper,
                aqmlab or ("holds" if holds else "does not hold"),
                tolerance,
                "ok" if holds else "differs",
            )
        )
        return holds

    def not_reported(self, quantity: str, aqmlab, note: str = "") -> None:
        """A quantity aqmlab reports that the paper gives no number for."""
        self.rows.append(Row(quantity, note, _fmt(aqmlab), "", "not-reported"))

    def write(self, path: Path) -> None:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COMPARISON_COLUMNS)
            for r in self.rows:
                w.writerow([r.quantity, r.paper, r.aqmlab, r.tolerance, r.verdict])


class Context:
    """What an experiment gets: where to write, how long to run, and the recorders."""

    def __init__(self, exp: Experiment, out: Path, quick: bool, jobs: int) -> None:
        self.id = exp.id
        self.title = exp.title
        self.paper = exp.paper
        self.out = out
        self.quick = quick
        self.jobs = jobs
        self.compare = Comparison()
        self.assumptions: List[str] = []
        self.notes: List[str] = []
        self.plots: List[str] = []
        self.data: List[str] = []

    def assume(self, text: str) -> None:
        """Record an assumption (a detail the paper leaves out)."""
        self.assumptions.append(text)

    def note(self, text: str) -> None:
        """Record a remark for the report (e.g. why aqmlab differs)."""
        self.notes.append(text)

    def save_data(self, df, name: str) -> Path:
        """Write a DataFrame as CSV (small) into the experiment's directory."""
        path = self.out / f"{name}.csv"
        df.to_csv(path, index=False)
        self.data.append(path.name)
        return path

    def save_fig(self, fig, name: str) -> Path:
        """Write a matplotlib figure as PNG and close it."""
        import matplotlib.pyplot as plt

        path = self.out / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        self.plots.append(path.name)
        return path

    def finish(self, status: str, error: str = "", seconds: float = 0.0) -> None:
        self.compare.write(self.out / "comparison.csv")
        meta = {
            "id": self.id,
            "title": self.title,
            "paper": self.paper,
            "quick": self.quick,
            "status": status,
            "error": error,
            "seconds": round(seconds, 3),
            "assumptions": self.assumptions,
            "notes": self.notes,
            "plots": self.plots,
            "data": self.data,
        }
        (self.out / "meta.json").write_text(json.dumps(meta, indent=2))


_BUILD_ID: Optional[str] = None


def build_id() -> str:
    """A short digest of the aqmlab package version and the compiled simulator's bytes.

    Experiments that keep sweep results between runs of the catalogue (to resume an
    interrupted run) put it into their sweep's base scenario, so that results of an
    earlier build are never mixed with a new one: a changed digest changes the sweep's
    hash, which the sweep store then refuses to extend."""
    global _BUILD_ID
    if _BUILD_ID is None:
        import hashlib

        from .. import __version__

        h = hashlib.sha256(__version__.encode())
        try:
            from .. import _native

            with open(_native.__file__, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except (ImportError, OSError):
            h.update(b"no native module")
        _BUILD_ID = h.hexdigest()[:16]
    return _BUILD_ID


def stored_sweep(ctx: "Context", spec, group: str, tag: str):
    """Run (or resume) a sweep for an experiment group and return its rows.

    The dataset lives in ``OUT/.<group>-sweeps/<tag>-<quick|full>/``, beside the
    experiments' outputs: the ids of a group share it, and an interrupted catalogue
    resumes it. The spec's base scenario should carry :func:`build_id` (e.g. in its
    ``notes``), so a stored run of another build or definition is discarded and
    recomputed instead of being mixed in. A failed point fails the experiment."""
    import shutil as _shutil

    from .. import sweeps
    from ..sweeps.store import SweepMismatch

    out = ctx.out.parent / f".{group}-sweeps" / f"{tag}-{'quick' if ctx.quick else 'full'}"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        df = sweeps.sweep(spec, out=out, jobs=ctx.jobs, progress=False)
    except SweepMismatch:  # another build or definition: start over
        _shutil.rmtree(out, ignore_errors=True)
        df = sweeps.sweep(spec, out=out, jobs=ctx.jobs, progress=False)
    bad = df[df["error"].notna()]
    if len(bad):
        raise RuntimeError(
            f"{len(bad)} of {len(df)} points of the {tag} sweep failed, e.g.: {bad['error'].iloc[0]}"
        )
    return df


def catalogue_order() -> List[str]:
    """Every registered id in catalogue order: papers as their modules register them,
    then within a paper the figures before the tables, by number (fig5 before fig12)."""
    import re

    _load_catalogue()
    papers: Dict[str, int] = {}
    for k in REGISTRY:
        papers.setdefault(k.split("-")[0], len(papers))

    def key(k: str):
        paper, _, rest = k.partition("-")
        m = re.fullmatch(r"([a-z]+)(\d+)(.*)", rest)
        kind, num, tail = (m.group(1), int(m.group(2)), m.group(3)) if m else (rest, 0, "")
        return (papers[paper], kind != "fig", kind, num, tail)

    return sorted(REGISTRY, key=key)


def select(ids: Iterable[str]) -> List[str]:
    """Expand ``all`` and paper prefixes (``floyd1993``) into registered ids, in catalogue order."""
    _load_catalogue()
    out: List[str] = []
    for i in ids:
        if i == "all":
            matched = catalogue_order()
        elif i in REGISTRY:
            matched = [i]
        else:
            matched = [k for k in catalogue_order() if k.startswith(i + "-")]
            if not matched:
                known = ", ".join(sorted({k.split("-")[0] for k in REGISTRY}))
                raise ValueError(
                    f"unknown experiment id {i!r}: see 'aqmlab reproduce --list' "
                    f"(papers: {known}, or 'all')"
                )
        out.extend(m for m in matched if m not in out)
    return out


def _load_catalogue() -> None:
    from . import catalogue  # noqa: F401  (registers the experiments)


def _run_group(ids: List[str], out: str, quick: bool, jobs: int) -> List[Tuple[str, str, float]]:
    """Run the ids of one group in this process; returns (id, status, seconds) per id."""
    import matplotlib

    matplotlib.use("Agg")
    _load_catalogue()
    results = []
    for id_ in ids:
        exp = REGISTRY[id_]
        final = Path(out) / id_
        tmp = Path(tempfile.mkdtemp(prefix=f".{id_}.", dir=out))
        ctx = Context(exp, tmp, quick, jobs)
        t0 = time.perf_counter()
        try:
            exp.run(ctx)
            status, err = "done", ""
        except Exception:  # an experiment's failure is recorded, the catalogue goes on
            status, err = "error", traceback.format_exc()
        secs = time.perf_counter() - t0
        ctx.finish(status, err, secs)
        # replace the previous output of this id atomically enough: nothing half-written stays
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        results.append((id_, status, secs))
    return results


def run(
    ids: Sequence[str],
    out: Union[str, Path],
    quick: bool = False,
    jobs: Optional[int] = None,
    progress: bool = True,
) -> Dict[str, str]:
    """Run experiments and write ``out/index.html``. Returns ``{id: status}``."""
    chosen = select(ids)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    groups: Dict[str, List[str]] = {}
    for i in chosen:
        groups.setdefault(REGISTRY[i].group, []).append(i)
    statuses: Dict[str, str] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(chosen), unit="exp", desc="reproduce")
    # experiments that themselves run sweeps get the cores; the catalogue runs groups in parallel
    inner_jobs = 1 if jobs > 1 and len(groups) > 1 else jobs
    if jobs <= 1 or len(groups) == 1:
        for g in groups.values():
            for id_, st, _ in _run_group(g, str(out), quick, inner_jobs):
                statuses[id_] = st
                if bar:
                    bar.update(1)
                    bar.set_postfix_str(id_)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futs = {
                pool.submit(_run_group, g, str(out), quick, inner_jobs): g for g in groups.values()
            }
            for f in as_completed(futs):
                for id_, st, _ in f.result():
                    statuses[id_] = st
                    if bar:
                        bar.update(1)
                        bar.set_postfix_str(id_)
    if bar:
        bar.close()
    write_index(out)
    return statuses


def read_comparison(path: Union[str, Path]) -> List[Dict[str, str]]:
    """Read a comparison.csv, checking it is well formed (columns and verdicts)."""
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != COMPARISON_COLUMNS:
            raise ValueError(f"{path}: header {header} != {COMPARISON_COLUMNS}")
        rows = []
        for n, row in enumerate(r, start=2):
            if len(row) != len(COMPARISON_COLUMNS):
                raise ValueError(f"{path}:{n}: {len(row)} fields")
            d = dict(zip(COMPARISON_COLUMNS, row))
            if d["verdict"] not in VERDICTS:
                raise ValueError(f"{path}:{n}: verdict {d['verdict']!r} not in {VERDICTS}")
            if not d["quantity"]:
                raise ValueError(f"{path}:{n}: empty quantity")
            rows.append(d)
    return rows


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
h1{margin-bottom:0.2em} .sum span{display:inline-block;margin-right:1.5em;font-size:1.2em}
.ok{color:#176d2c}.differs{color:#b3261e}.not-reported{color:#666}.error{color:#b3261e;font-weight:bold}
table{border-collapse:collapse;margin:0.5em 0 1em 0;font-size:0.9em}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
tr.v-ok td:last-child{background:#e3f4e6} tr.v-differs td:last-child{background:#fbe3e1}
section{border-top:2px solid #ddd;padding-top:0.5em;margin-top:1.5em}
img{max-width:100%;border:1px solid #eee} .meta{color:#555;font-size:0.9em}
pre{background:#f6f6f6;padding:0.5em;overflow:auto;font-size:0.8em}
"""


def write_index(out: Union[str, Path]) -> Path:
    """Write ``out/index.html`` from every ``out/<id>/`` present."""
    out = Path(out)
    _load_catalogue()
    entries = []
    for d in sorted(p for p in out.iterdir() if p.is_dir() and (p / "meta.json").exists()):
        meta = json.loads((d / "meta.json").read_text())
        try:
            rows = read_comparison(d / "comparison.csv")
        except (OSError, ValueError) as e:
            rows = []
            meta["status"] = "error"
            meta["error"] = (meta.get("error") or "") + f"\n{e}"
        entries.append((d.name, meta, rows))
    order = {k: i for i, k in enumerate(catalogue_order())}
    entries.sort(key=lambda e: order.get(e[0], len(order)))
    counts = {v: 0 for v in VERDICTS}
    errors = 0
    for _, meta, rows in entries:
        errors += meta.get("status") == "error"
        for r in rows:
            counts[r["verdict"]] += 1
    h = [
        "<!doctype html><html><head><meta charset='utf-8'><title>aqmlab reproductions</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>aqmlab: reproducing the papers</h1>",
        f"<div class='sum'><span>{len(entries)} experiments</span>"
        f"<span class='ok'>{counts['ok']} ok</span>"
        f"<span class='differs'>{counts['differs']} differ</span>"
        f"<span class='not-reported'>{counts['not-reported']} not reported by the paper</span>"
        + (f"<span class='error'>{errors} failed to run</span>" if errors else "")
        + "</div>",
        "<table><tr><th>id</th><th>title</th><th>ok</th><th>differs</th><th>status</th></tr>",
    ]
    for name, meta, rows in entries:
        ok = sum(r["verdict"] == "ok" for r in rows)
        dif = sum(r["verdict"] == "differs" for r in rows)
        st = meta.get("status", "?") + (" (quick)" if meta.get("quick") else "")
        h.append(
            f"<tr><td><a href='#{name}'>{name}</a></td><td>{html.escape(meta.get('title', ''))}</td>"
            f"<td class='ok'>{ok}</td><td class='differs'>{dif}</td><td>{html.escape(st)}</td></tr>"
        )
    h.append("</table>")
    for name, meta, rows in entries:
        h.append(f"<section id='{name}'><h2>{name}: {html.escape(meta.get('title', ''))}</h2>")
        h.append(
            f"<div class='meta'>{html.escape(meta.get('paper', ''))} &middot; "
            f"{meta.get('seconds', 0):.1f} s{' &middot; quick run' if meta.get('quick') else ''}</div>"
        )
        if meta.get("status") == "error":
            h.append(
                f"<p class='error'>failed to run</p><pre>{html.escape(meta.get('error', ''))}</pre>"
            )
        for p in meta.get("plots", []):
            h.append(f"<p><img src='{name}/{p}' alt='{html.escape(p)}'></p>")
        if rows:
            h.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in COMPARISON_COLUMNS) + "</tr>")
            for r in rows:
                h.append(
                    f"<tr class='v-{r['verdict']}'>"
                    + "".join(
                        f"<td class='{r['verdict'] if c == 'verdict' else ''}'>{html.escape(r[c])}</td>"
                        for c in COMPARISON_COLUMNS
                    )
                    + "</tr>"
                )
            h.append("</table>")
        for title, key in (("Assumptions", "assumptions"), ("Notes", "notes")):
            if meta.get(key):
                h.append(
                    f"<h4>{title}</h4><ul>"
                    + "".join(f"<li>{html.escape(a)}</li>" for a in meta[key])
                    + "</ul>"
                )
        if meta.get("data"):
            h.append(
                "<p class='meta'>data: "
                + ", ".join(f"<a href='{name}/{d}'>{html.escape(d)}</a>" for d in meta["data"])
                + "</p>"
            )
        h.append("</section>")
    h.append("</body></html>")
    path = out / "index.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text("\n".join(h))
    os.replace(tmp, path)
    return path
