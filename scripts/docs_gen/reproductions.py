"""docs/reproductions/README.md and the README's per-paper counts, from one
``aqmlab reproduce all`` output directory.

The page gives the run's date, commit and build, the verdict counts per paper (the
same table the README shows), every row with a verdict, each experiment's notes from
its ``meta.json`` (what the code says about its differences) and a link to the section
of the paper's page that explains them (:data:`SECTIONS`)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from .blocks import BEGIN, END, ROOT, table

PAGE = ROOT / "docs" / "reproductions" / "README.md"
VERDICTS = ("ok", "differs", "not-reported")
#: the paper column of the rows that compare aqmlab with ns-2 instead of the paper
CROSS_CHECK = "ns-2 cross-check"

#: where each experiment's differences are explained: (page in docs/reproductions,
#: heading of its section, the ids or id prefixes it explains; the longest prefix wins)
SECTIONS: list[tuple[str, str, tuple[str, ...]]] = [
    ("../simulator.md", "Reference run: Floyd & Jacobson 1993, Fig. 3", ("floyd1993-fig3",)),
    (
        "floyd1993_multirun.md",
        "floyd1993-fig5 — Drop Tail vs RED, two connections with windows of 240",
        ("floyd1993-fig5",),
    ),
    (
        "floyd1993_multirun.md",
        "floyd1993-fig12, -fig13, -fig14 — the bursty node 5",
        ("floyd1993-fig12", "floyd1993-fig13", "floyd1993-fig14"),
    ),
    (
        "floyd1993_multirun.md",
        "floyd1993-fig15 — node 5's share of drops against its share of throughput",
        ("floyd1993-fig15",),
    ),
    ("floyd1993_twoway.md", "floyd1993-fig9", ("floyd1993-fig9",)),
    ("floyd1993_twoway.md", "floyd1993-fig16 (Section X)", ("floyd1993-fig16",)),
    (
        "bonald2000.md",
        "bonald2000-fig3, bonald2000-fig5, bonald2000-table3, bonald2000-fig10",
        ("bonald2000-fig3", "bonald2000-fig5", "bonald2000-table3", "bonald2000-fig10"),
    ),
    ("bonald2000.md", "bonald2000-fig6", ("bonald2000-fig6",)),
    ("bonald2000.md", "bonald2000-fig7", ("bonald2000-fig7",)),
    (
        "bonald2000.md",
        "bonald2000-table1, bonald2000-fig8",
        ("bonald2000-table1", "bonald2000-fig8"),
    ),
    (
        "bonald2000.md",
        "bonald2000-table2, bonald2000-fig9",
        ("bonald2000-table2", "bonald2000-fig9"),
    ),
    (
        "bonald2000.md",
        "bonald2000-table4, bonald2000-fig11",
        ("bonald2000-table4", "bonald2000-fig11"),
    ),
    (
        "bonald2000_tcp.md",
        "bonald2000-table5 (120 flows, K = 40, mean of 5 runs)",
        ("bonald2000-table5",),
    ),
    ("bonald2000_tcp.md", "bonald2000-fig13 (100 flows)", ("bonald2000-fig13",)),
    ("bonald2000_tcp.md", "bonald2000-fig14 (K = 40, 5 runs per point)", ("bonald2000-fig14",)),
    ("bonald2000_tcp.md", "bonald2000-fig15 (K = 200, RED 50/150)", ("bonald2000-fig15",)),
    (
        "floyd2001.md",
        "Section 4 and Fig. 10: the algorithm",
        ("floyd2001-section4", "floyd2001-fig10"),
    ),
    (
        "floyd2001.md",
        "Figs. 1-5: delay-utilization and delay-loss over N and max_p",
        ("floyd2001-fig1", "floyd2001-fig2", "floyd2001-fig3", "floyd2001-fig4", "floyd2001-fig5"),
    ),
    (
        "floyd2001.md",
        "Figs. 6-9: a sharp change in congestion",
        ("floyd2001-fig6", "floyd2001-fig7", "floyd2001-fig8", "floyd2001-fig9"),
    ),
    (
        "floyd2001.md",
        "Figs. 11-14: oscillations",
        ("floyd2001-fig11", "floyd2001-fig12", "floyd2001-fig13", "floyd2001-fig14"),
    ),
    (
        "floyd2001.md",
        "Figs. 15-17: the queue weight",
        ("floyd2001-fig15", "floyd2001-fig16", "floyd2001-fig17"),
    ),
    ("floyd2001.md", "Fig. 18: a routing change", ("floyd2001-fig18",)),
    (
        "lin1997.md",
        "Tables 1-4: a fragile connection against four robust ones",
        ("lin1997-table1", "lin1997-table2", "lin1997-table3", "lin1997-table4"),
    ),
    (
        "lin1997.md",
        "Figs. 3-4: RED hits one of two identical connections until it times out",
        ("lin1997-fig3", "lin1997-fig4"),
    ),
    ("lin1997.md", "Figs. 6-7: TCP against a CBR flow", ("lin1997-fig6", "lin1997-fig7")),
    (
        "lin1997.md",
        "Table 5, Figs. 9-11: sixteen connections from one host",
        ("lin1997-table5", "lin1997-fig9", "lin1997-fig10", "lin1997-fig11"),
    ),
    (
        "zheng2008.md",
        "Section 4.3: which reading gives the paper's numbers (`zheng2008-bounds`)",
        ("zheng2008-bounds",),
    ),
    ("zheng2008.md", "Results (seed 1, full run)", ("zheng2008-fig",)),
]

Entry = tuple[str, dict, list[dict[str, str]]]


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    a = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return a.replace(" ", "-")


def why(id_: str) -> tuple[str, str] | None:
    """(page, heading) explaining `id_`: the section whose longest prefix it starts with."""
    found = [
        (len(k), page, head) for page, head, keys in SECTIONS for k in keys if id_.startswith(k)
    ]
    return max(found)[1:] if found else None


def read_run(run: Path) -> list[Entry]:
    """(id, meta, comparison rows) of every experiment in a reproduce output directory."""
    out = []
    for d in sorted(p for p in run.iterdir() if (p / "meta.json").exists()):
        meta = json.loads((d / "meta.json").read_text())
        with open(d / "comparison.csv", newline="") as f:
            out.append((d.name, meta, list(csv.DictReader(f))))
    return out


def by_paper(entries: list[Entry], order: list[str]) -> dict[str, list[Entry]]:
    """paper -> its entries, in the catalogue's order."""
    rank = {k: i for i, k in enumerate(order)}
    papers: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: rank.get(e[0], len(rank))):
        papers.setdefault(e[1]["paper"], []).append(e)
    return papers


def _counts(es: list[Entry], cross: bool = False) -> dict[str, int]:
    """Verdict counts of `es`' rows (with `cross`, of their ns-2 cross-check rows only)."""
    rows = [r for _, _, rs in es for r in rs if not cross or r["paper"] == CROSS_CHECK]
    return {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS} | {"rows": len(rows)}


def counts_table(
    papers: dict[str, list[Entry]], before: tuple[str, dict[str, list[Entry]]] | None = None
) -> str:
    """The per-paper verdict counts: the README's table and the page's; with `before`,
    (label, papers of an earlier run), that run's ok / differ / not reported beside."""
    head = ["paper", "experiments", "ok", "differ", "not reported by the paper"]
    if before:
        head += [f"{c} ({before[0]})" for c in ("ok", "differ", "not reported")]
    rows = []
    for paper, es in papers.items():
        n = _counts(es)
        row = [paper, str(len(es)), str(n["ok"]), str(n["differs"]), str(n["not-reported"])]
        if before:
            b = _counts(before[1].get(paper, []))
            row += [str(b["ok"]), str(b["differs"]), str(b["not-reported"])]
        rows.append(row)
    out = table(head, rows)
    for paper, es in papers.items():
        c = _counts(es, cross=True)
        if c["rows"]:
            out += (
                f"\n{c['rows']} rows of {paper} compare aqmlab with ns-2 run on the same "
                f"scenarios rather than with the paper ({c['ok']} ok, {c['differs']} differ"
            )
            if before:
                b = _counts(before[1].get(paper, []), cross=True)
                out += f"; {before[0]}: {b['ok']} ok, {b['differs']} differ"
            out += ").\n"
    return out


def _cell(s: str) -> str:
    return s.replace("|", "/").replace("\n", " ")


def paper_section(paper: str, es: list[Entry]) -> str:
    """A paper's rows with a verdict, then each experiment's explanation."""
    rows = [
        [id_, _cell(r["quantity"]), _cell(r["paper"]), _cell(r["aqmlab"]), r["verdict"]]
        for id_, _, rs in es
        for r in rs
        if r["verdict"] != "not-reported"
    ]
    lines = [f"## {paper}", "", table(["id", "quantity", "paper", "aqmlab", "verdict"], rows)]
    for id_, meta, rs in es:
        differ = sum(r["verdict"] == "differs" for r in rs)
        w = why(id_)
        link = f" Why: [{w[0]}, {w[1]}]({w[0]}#{anchor(w[1])})." if w else ""
        status = (
            ""
            if meta.get("status") == "done"
            else f" **{meta.get('status')}**: {meta.get('error', '')}"
        )
        lines.append(
            f"- **{id_}** ({meta['title']}): {differ} of {len(rs)} rows differ.{link}{status}"
        )
        lines += [f"  {_cell(n)}" for n in meta.get("notes", [])]
    return "\n".join(lines) + "\n"


def page(
    run: Path, info: dict[str, str], order: list[str], before: tuple[str, Path] | None = None
) -> tuple[str, str]:
    """(the page, the counts table) of the run in `run`; `info` has its date, commit,
    build and wall time; `before` (label, run directory) an earlier run to count beside."""
    entries = read_run(run)
    papers = by_paper(entries, order)
    earlier = (before[0], by_paper(read_run(before[1]), order)) if before else None
    counts = counts_table(papers, earlier)
    total = {v: sum(r["verdict"] == v for _, _, rs in entries for r in rs) for v in VERDICTS}
    head = [
        "# The reproduction catalogue: results of the last full run",
        "",
        "<!-- generated by `scripts/docs reproductions RUN_DIR` from an `aqmlab reproduce all` output"
        " directory; the notes come from each experiment's meta.json -->",
        "",
        f"`aqmlab reproduce all` on {info['date']} at commit `{info['commit']}` (build `{info['build']}`): "
        f"{len(entries)} experiments, {total['ok']} rows ok, {total['differs']} differ, "
        f"{total['not-reported']} quantities aqmlab reports that the papers give no number for; "
        f"wall time {info['wall']}. Each experiment's `comparison.csv` has every row; `index.html` "
        "shows every figure with its table, assumptions and notes. The wall time of the latest "
        "runs is on [timings](../timings.md).",
        "",
        BEGIN.format(name="reproduce-counts"),
        counts.rstrip("\n"),
        END,
        "",
        "Each paper's page says how its experiments are built, what they assume and why each"
        " difference arises; below, every row with a verdict and, per experiment, the"
        " section that explains it and the notes its code writes beside its results. The"
        " papers' pages were written from development runs: where a figure there differs"
        " in its last digits from this run's, this run is the reference.",
        "",
    ]
    body = [paper_section(p, es) for p, es in papers.items()]
    return "\n".join(head) + "\n" + "\n".join(body), counts
