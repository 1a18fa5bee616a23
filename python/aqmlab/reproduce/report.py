"""The catalogue's files: each id's ``comparison.csv`` and ``meta.json``, and the
``index.html`` that gathers every id present in an output directory.

``comparison.csv`` has the columns :data:`COMPARISON_COLUMNS`, one row per number or
claim of the paper, its verdict one of :data:`VERDICTS`, then :data:`PROFILE_COLUMN`: the
behaviour profile the experiment ran in (:mod:`.simulators`), the same on every row.
``meta.json`` holds the id, title, paper, profile, mode (``quick``), status, error,
seconds, assumptions, notes and the names of the plots and data files.
"""

from __future__ import annotations

import csv
import html
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..base import write_text

COMPARISON_COLUMNS = ["quantity", "paper", "aqmlab", "tolerance", "verdict"]
VERDICTS = ("ok", "differs", "not-reported")
#: The column after :data:`COMPARISON_COLUMNS`: the profile the experiment ran in.
PROFILE_COLUMN = "profile"


def write_comparison(path: Path, rows: Iterable[Sequence[str]], profile: str) -> None:
    """Write ``comparison.csv``: the header, then one row per quantity, its five texts
    and the profile."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*COMPARISON_COLUMNS, PROFILE_COLUMN])
        for r in rows:
            w.writerow([*r, profile])


def write_meta(path: Path, meta: dict[str, Any]) -> None:
    """Write ``meta.json`` (keys in the order given)."""
    path.write_text(json.dumps(meta, indent=2))


def read_comparison(path: str | Path) -> list[dict[str, str]]:
    """Read a comparison.csv, checking it is well formed (columns and verdicts); a file
    written before the profile column reads as well, without it."""
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        columns = [*COMPARISON_COLUMNS, PROFILE_COLUMN]
        if header not in (columns, COMPARISON_COLUMNS):
            raise ValueError(f"{path}: header {header} != {columns}")
        rows = []
        for n, row in enumerate(r, start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{n}: {len(row)} fields")
            d = dict(zip(header, row))
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

Entry = tuple[str, dict[str, Any], list[dict[str, str]]]


def _entries(out: Path, order: Sequence[str]) -> list[Entry]:
    """(id, meta, comparison rows) of every ``out/<id>/`` with a meta.json, in `order`
    (ids not in it last); an unreadable comparison marks the entry failed."""
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
    rank = {k: i for i, k in enumerate(order)}
    entries.sort(key=lambda e: rank.get(e[0], len(rank)))
    return entries


def _counts(entries: Sequence[Entry]) -> tuple[dict[str, int], int]:
    """The verdict counts over the entries' rows, and how many entries failed to run."""
    counts = {v: 0 for v in VERDICTS}
    errors = 0
    for _, meta, rows in entries:
        errors += meta.get("status") == "error"
        for r in rows:
            counts[r["verdict"]] += 1
    return counts, errors


def _count_spans(n: int, counts: dict[str, int], errors: int) -> str:
    return (
        f"<span>{n} experiments</span>"
        f"<span class='ok'>{counts['ok']} ok</span>"
        f"<span class='differs'>{counts['differs']} differ</span>"
        f"<span class='not-reported'>{counts['not-reported']} not reported by the paper</span>"
        + (f"<span class='error'>{errors} failed to run</span>" if errors else "")
    )


def _by_paper(entries: Sequence[Entry]) -> list[tuple[str, list[Entry]]]:
    """The entries grouped by their paper, papers in the order they first appear."""
    papers: dict[str, list[Entry]] = {}
    for e in entries:
        papers.setdefault(e[1].get("paper", ""), []).append(e)
    return list(papers.items())


def _summary(entries: list[Entry]) -> list[str]:
    """The heading, the verdict counts (in all and per paper) and the table of contents,
    grouped by paper."""
    counts, errors = _counts(entries)
    h = [
        "<!doctype html><html><head><meta charset='utf-8'><title>aqmlab reproductions</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>aqmlab: reproducing the papers</h1>",
        f"<div class='sum'>{_count_spans(len(entries), counts, errors)}</div>",
        "<table><tr><th>paper</th><th>experiments</th><th>ok</th><th>differs</th>"
        "<th>not reported</th><th>failed</th></tr>",
    ]
    groups = _by_paper(entries)
    for i, (paper, group) in enumerate(groups):
        c, err = _counts(group)
        h.append(
            f"<tr><td><a href='#paper-{i}'>{html.escape(paper)}</a></td><td>{len(group)}</td>"
            f"<td class='ok'>{c['ok']}</td><td class='differs'>{c['differs']}</td>"
            f"<td class='not-reported'>{c['not-reported']}</td><td>{err}</td></tr>"
        )
    h.append("</table>")
    for i, (paper, group) in enumerate(groups):
        c, err = _counts(group)
        h.append(f"<h2 id='paper-{i}'>{html.escape(paper)}</h2>")
        h.append(f"<div class='sum'>{_count_spans(len(group), c, err)}</div>")
        h.append(
            "<table><tr><th>id</th><th>title</th><th>ok</th><th>differs</th><th>status</th></tr>"
        )
        for name, meta, rows in group:
            ok = sum(r["verdict"] == "ok" for r in rows)
            dif = sum(r["verdict"] == "differs" for r in rows)
            st = meta.get("status", "?") + (" (quick)" if meta.get("quick") else "")
            h.append(
                f"<tr><td><a href='#{name}'>{name}</a></td>"
                f"<td>{html.escape(meta.get('title', ''))}</td>"
                f"<td class='ok'>{ok}</td><td class='differs'>{dif}</td>"
                f"<td>{html.escape(st)}</td></tr>"
            )
        h.append("</table>")
    return h


def _section(name: str, meta: dict[str, Any], rows: list[dict[str, str]]) -> list[str]:
    """One id's section: plots, comparison table, assumptions, notes and data files."""
    h = [f"<section id='{name}'><h2>{name}: {html.escape(meta.get('title', ''))}</h2>"]
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
    return h


def write_index(out: str | Path, order: Sequence[str]) -> Path:
    """Write ``out/index.html`` from every ``out/<id>/`` present, the ids in `order`
    (the catalogue's)."""
    out = Path(out)
    entries = _entries(out, order)
    h = _summary(entries)
    for name, meta, rows in entries:
        h.extend(_section(name, meta, rows))
    h.append("</body></html>")
    return write_text(out / "index.html", "\n".join(h))
