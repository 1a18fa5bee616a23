"""The agreement tables of docs/peers.md, from ``benchmarks/peers/history.csv``.

Each table reads the rows of named labels and judges them with the harness's own rule
(``agreement`` of ``benchmarks/peers/tables.py``), so a table here is what ``run --report``
prints for those labels, folded to one line per case."""

from __future__ import annotations

import importlib
import sys
from functools import cache
from types import ModuleType

from .blocks import ROOT, table

PEERS = ROOT / "benchmarks" / "peers"
HISTORY = PEERS / "history.csv"

#: the labels each table reads (the latest full records of each family)
S_LABELS = "2026-11-22-eve/A,2026-11-22-eve/B*,2026-11-25/s2-60s"
#: the -ns2mode S cases: aqmlab in its `ns2` profile, ns-2 at its defaults
S_NS2_LABELS = "2026-11-29/ns2mode-idle"
CM_LABELS = "2026-11-28/ns3-profile-cm,2026-11-29/ns3-profile-cm-restart"
E_LABELS = (
    "evaluate-2026-11-28/ns3-profile,evaluate-2026-11-29/ns3-profile-pie,"
    "evaluate-2026-11-29/ns3-profile-nojitter"
)
BBR_LABELS = "bbr-2026-11-28/ns3,bbr-2026-11-28/aqmlab-ns3gains"

SHORT = {
    "utilization": "utilization",
    "mean_queue": "queue",
    "mean_red_avg": "RED average",
    "drop_rate": "drop rate",
    "mean_delay": "delay",
    "delay_p95": "p95 delay",
}


@cache
def harness(name: str) -> ModuleType:
    """A module of the harness (``history``: its history file; ``tables``: ``by_case``,
    ``agreement``, ``diff``), imported from ``benchmarks/peers`` as its script imports it."""
    sys.path.insert(0, str(PEERS))
    return importlib.import_module(name)


def records(labels: str) -> dict[str, dict[str, dict]]:
    """case -> simulator -> record of the rows of `labels` (a later row replaces an earlier)."""
    rows = harness("history").read(str(HISTORY), labels)
    return harness("tables").by_case(rows)


def _result(d: dict[str, dict], sim: str) -> dict | None:
    r = d.get(sim)
    return r.get("result") if r else None


def outside(d: dict[str, dict]) -> list[str]:
    """The metrics of one case outside the agreement rule, each with aqmlab's difference."""
    tables = harness("tables")
    aq, n2, n3 = (_result(d, s) for s in ("aqmlab", "ns2", "ns3"))
    if aq is None or (n2 is None and n3 is None):
        return []
    out = []
    for met in SHORT:
        a, b, c = aq.get(met), (n2 or {}).get(met), (n3 or {}).get(met)
        if tables.agreement(met, a, b, c) == "FAIL":
            ref = b if b is not None else c
            if ref == 0:
                out.append(f"{SHORT[met]} {a:.2g} against 0")
            else:
                out.append(f"{SHORT[met]} {tables.diff(met, a, ref, ' pp')}")
    return out


def _triple(d: dict[str, dict], met: str, spec: str) -> str:
    vals = []
    for s in ("aqmlab", "ns2", "ns3"):
        r = _result(d, s)
        v = r.get(met) if r else None
        vals.append("-" if v is None else format(v, spec))
    return " / ".join(vals)


def s_table() -> str:
    """S1 and S2 against ns-2 (ns-3 beside): one row per case."""
    rows = []
    for case, d in records(S_LABELS).items():
        rows.append(
            [
                case,
                _triple(d, "utilization", ".3f"),
                _triple(d, "mean_queue", ".3g"),
                _triple(d, "mean_red_avg", ".3g"),
                _triple(d, "drop_rate", ".3g"),
                "; ".join(outside(d)) or "ok",
            ]
        )
    head = ["case", "utilization", "mean queue", "RED average", "drop rate", "outside the rule"]
    return f"aqmlab / ns-2 / ns-3, labels `{S_LABELS}`:\n\n" + table(head, rows)


def outside_ns2(d: dict[str, dict]) -> list[str]:
    """The metrics of one case outside issue 32's rule for the `ns2` profile against ns-2:
    utilization within 1 point, every other metric within 10%."""
    aq, n2 = _result(d, "aqmlab"), _result(d, "ns2")
    if aq is None or n2 is None:
        return []
    out = []
    for met in ("utilization", "mean_queue", "mean_red_avg", "drop_rate"):
        a, b = aq.get(met), n2.get(met)
        if a is None or b is None:
            continue
        if met == "utilization" and abs(a - b) > 0.01:
            out.append(f"utilization {100 * (a - b):+.2f} points")
        elif met != "utilization" and b and abs(a - b) / b > 0.10:
            out.append(f"{SHORT[met]} {100 * (a - b) / b:+.1f}%")
    return out


def s_ns2_table() -> str:
    """S1 and S2 with aqmlab in its `ns2` profile and ns-2 at its defaults."""
    rows = []
    for case, d in records(S_NS2_LABELS).items():
        rows.append(
            [case]
            + [
                " / ".join(
                    "-" if (r := _result(d, s)) is None or r.get(m) is None else format(r[m], f)
                    for s in ("aqmlab", "ns2")
                )
                for m, f in (
                    ("utilization", ".3f"),
                    ("mean_queue", ".3g"),
                    ("mean_red_avg", ".3g"),
                    ("drop_rate", ".3g"),
                )
            ]
            + ["; ".join(outside_ns2(d)) or "ok"]
        )
    head = [
        "case",
        "utilization",
        "mean queue",
        "RED average",
        "drop rate",
        "outside 1 point / 10%",
    ]
    return f"aqmlab / ns-2, label `{S_NS2_LABELS}`:\n\n" + table(head, rows)


def _pairs(recs: dict[str, dict[str, dict]], base: str, suffixes: tuple[str, ...]) -> list[str]:
    return [
        "; ".join(outside(recs[base + s])) or "ok" if base + s in recs else "-" for s in suffixes
    ]


def cm_table() -> str:
    """The CUBIC and NewReno cases against ns-3, with aqmlab's defaults and in its ns3
    profile (`-nsmode`)."""
    recs = records(CM_LABELS)
    rows = []
    for case in recs:
        if not case.endswith("-cubic"):
            continue
        stem = case[: -len("-cubic")]
        cells = _pairs(recs, case, ("", "-nsmode")) + _pairs(
            recs, stem + "-newreno", ("", "-nsmode")
        )
        rows.append([stem] + cells)
    head = ["case", "CUBIC, aqmlab's defaults", "CUBIC, `-nsmode`", "NewReno", "NewReno, `-nsmode`"]
    return f"Outside the rule against ns-3, labels `{CM_LABELS}`:\n\n" + table(head, rows)


def _e_grid(nsmode: bool) -> str:
    """The E cases against ns-3: one row per scenario, one column per AQM; aqmlab at its
    defaults, or (`nsmode`) in its ns3 profile alone."""
    recs = records(E_LABELS)
    aqms = ["red", "codel", "pie", "fq_codel"]
    grid: dict[str, dict[str, str]] = {}
    for case, d in recs.items():
        if case.endswith("-nsmode") != nsmode:
            continue
        stem = case.removesuffix("-nsmode")
        stem, ecn = (stem[:-4], "-ecn") if stem.endswith("-ecn") else (stem, "")
        scen, aqm = stem[2:].rsplit("-", 1)
        grid.setdefault(scen + ecn, {})[aqm] = "; ".join(outside(d)) or "ok"
    rows = [[s] + [grid[s].get(a, "-") for a in aqms] for s in grid]
    what = "aqmlab in its `ns3` profile alone (`-nsmode`)" if nsmode else "aqmlab's defaults"
    return f"Outside the rule against ns-3, {what}, label `{E_LABELS}`:\n\n" + table(
        ["scenario"] + aqms, rows
    )


def e_table() -> str:
    """The E cases against ns-3 with aqmlab's defaults."""
    return _e_grid(False)


def e_ns3_table() -> str:
    """The E cases against ns-3 with aqmlab in its ns3 profile alone."""
    return _e_grid(True)


def _pair(d: dict[str, dict], met: str, spec: str) -> str:
    aq, n3 = _result(d, "aqmlab"), _result(d, "ns3")
    return "-" if aq is None or n3 is None else f"{aq[met]:{spec}} / {n3[met]:{spec}}"


def bbr_table() -> str:
    """The BBR cases against ns-3: one row per case, aqmlab / ns-3 and what is outside."""
    rows = []
    for case, d in records(BBR_LABELS).items():
        rows.append(
            [
                case,
                _pair(d, "utilization", ".3f"),
                _pair(d, "mean_queue", ".3g"),
                _pair(d, "drop_rate", ".3g"),
                _pair(d, "mean_cwnd", ".3g"),
                "; ".join(outside(d)) or "ok",
            ]
        )
    head = ["case", "utilization", "mean queue", "drop rate", "mean cwnd", "outside the rule"]
    return f"aqmlab / ns-3, labels `{BBR_LABELS}`:\n\n" + table(head, rows)


def bodies() -> dict[str, str]:
    """docs/peers.md's generated blocks."""
    return {
        "peers-s": s_table(),
        "peers-s-ns2": s_ns2_table(),
        "peers-cm": cm_table(),
        "peers-e": e_table(),
        "peers-e-ns3": e_ns3_table(),
        "peers-bbr": bbr_table(),
    }
