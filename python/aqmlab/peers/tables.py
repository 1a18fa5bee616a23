"""The peer benchmark's tables: cost (wall time, memory, packets per second, the
aqmlab/peer ratios) and results side by side with the agreement verdicts, as text or
Markdown, the side-by-side runs of ``--repeat``, and the scaling plot (``--plot``).
Stdlib only (matplotlib for the plot, when it is there).
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import scenarios
from history import DELAYS, METRICS, TCP

ALL_SIMS = ["aqmlab", "ns2", "ns3"]


def ns3_build_dir() -> Path:
    """Where the ns-3 programs are built: ``ns3/build`` beside their sources in a checkout;
    for an installed package (which is never written to), ``$XDG_CACHE_HOME/aqmlab/peers-ns3``
    (``~/.cache/aqmlab/peers-ns3``)."""
    here = Path(__file__).resolve().parent
    if (here.parents[2] / ".git").exists():
        return here / "ns3" / "build"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "aqmlab" / "peers-ns3"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt(x, spec=".4g") -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return format(x, spec)


def rel(a, b) -> float | None:
    if a is None or b is None:
        return None
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return (a - b) / abs(b)


def diff(metric: str, a, b, pp: str = "pp") -> str:
    """a - b: in percentage points for utilization (unit `pp`), relative for the others."""
    if a is None or b is None:
        return "-"
    if metric == "utilization":
        return f"{(a - b) * 100:+.2f}{pp}"
    r = rel(a, b)
    return f"{r * 100:+.1f}%" if r is not None and abs(r) != float("inf") else "inf"


def agreement(metric: str, aq, n2, n3) -> str | None:
    """'ok' / 'FAIL' for aqmlab against ns-2 (against ns-3 in the cases ns-2 does not
    run, the modern AQMs), None when not applicable."""
    if n2 is None:
        n2, n3 = n3, None
    if aq is None or n2 is None:
        return None
    if metric in ("jain", "mean_cwnd"):
        return None  # shown, not judged
    # utilization within 2 percentage points, the others within 15%; where ns-2 and
    # ns-3 disagree by more than that, within their spread
    tol = 0.02 if metric == "utilization" else 0.15 * abs(n2)
    if n3 is not None and abs(n3 - n2) > tol:
        tol = abs(n3 - n2)  # the peers disagree more than 15%: their spread
    return "ok" if abs(aq - n2) <= tol + 1e-12 else "FAIL"


def by_case(records: list[dict]) -> dict[str, dict[str, dict]]:
    """case -> simulator -> record (a later record of the same pair replaces an earlier)."""
    out: dict[str, dict[str, dict]] = {}
    for r in records:
        out.setdefault(r["case"], {})[r["sim"]] = r
    return out


def cost_rows(records: list[dict], sims: list[str]):
    """(case, sim, record, aqmlab/peer wall ratio, aqmlab/peer packets-per-second ratio)."""
    for cname, d in by_case(records).items():
        aq = d.get("aqmlab")
        for sim in sims:
            r = d.get(sim)
            if r is None:
                continue
            ratio_w = ratio_p = None
            if aq and sim != "aqmlab" and aq.get("result") and r.get("result"):
                ratio_w = aq["wall_s"] / r["wall_s"]
                if aq.get("pkts_per_s") and r.get("pkts_per_s"):
                    ratio_p = aq["pkts_per_s"] / r["pkts_per_s"]
            yield cname, sim, r, ratio_w, ratio_p


def result_rows(records: list[dict], sims: list[str]):
    """(case, metric, {sim: value}, ns-3 value, ns-2 value, aqmlab value, verdict)."""
    for cname, d in by_case(records).items():
        res = {s: (d[s].get("result") if s in d else None) for s in sims}
        if not any(res.values()):
            continue
        for met in METRICS + DELAYS + TCP:
            vals = {s: (res[s] or {}).get(met) for s in sims}
            if all(v is None for v in vals.values()):
                continue
            n2, n3, aq = vals.get("ns2"), vals.get("ns3"), vals.get("aqmlab")
            yield cname, met, vals, n3, n2, aq, agreement(met, aq, n2, n3)


def print_table(records: list[dict], sims: list[str]) -> int:
    print()
    print("== cost " + "=" * 92)
    print(
        f"{'case':28s} {'sim':7s} {'wall s':>9s} {'cpu s':>8s} {'peak MB':>9s} {'pkts/s':>11s} "
        f"{'aq/peer wall':>13s} {'aq/peer pkt/s':>14s}  status"
    )
    for cname, sim, r, ratio_w, ratio_p in cost_rows(records, sims):
        print(
            f"{cname:28s} {sim:7s} {fmt(r.get('wall_s'), '.2f'):>9s} {fmt(r.get('cpu_s'), '.2f'):>8s} "
            f"{fmt(r.get('maxrss_mb'), '.1f'):>9s} {fmt(r.get('pkts_per_s'), '.4g'):>11s} "
            f"{fmt(ratio_w, '.3g'):>13s} {fmt(ratio_p, '.3g'):>14s}  {r['status']}"
        )
    print()
    print("== results (window [T/2, T]) " + "=" * 71)
    print(
        f"{'case':28s} {'metric':13s} "
        + " ".join(f"{s:>10s}" for s in sims)
        + f" {'ns3-ns2':>10s} {'aq-ns2':>10s}  agreement"
    )
    fails = 0
    for cname, met, vals, n3, n2, aq, verdict in result_rows(records, sims):
        fails += verdict == "FAIL"
        print(
            f"{cname:28s} {met:13s} "
            + " ".join(f"{fmt(vals[s], '.4g'):>10s}" for s in sims)
            + f" {diff(met, n3, n2):>10s} {diff(met, aq, n2):>10s}  {verdict or ''}"
        )
    print()
    if fails:
        print(
            f"{fails} agreement failure(s): aqmlab outside 2 pp (utilization) or 15% (queue, RED "
            "average, drop rate) of ns-2, or outside the ns-2..ns-3 spread where that is wider; each "
            "must be explained in docs/peers.md."
        )
    return fails


def print_pairs(records: list[dict], sims: list[str]) -> None:
    """With --repeat: every run's wall time and peak memory, and per peer the ratios of
    the runs taken side by side (k-th aqmlab run over the k-th peer run) and their median."""
    runs: dict[str, dict[str, list[dict]]] = {}
    for r in records:
        runs.setdefault(r["case"], {}).setdefault(r["sim"], []).append(r)
    print("== side by side " + "=" * 84)
    for cname, d in runs.items():
        for sim in sims:
            rs = d.get(sim, [])
            if not rs:
                continue
            walls = " ".join(fmt(r.get("wall_s"), ".2f") for r in rs)
            mems = " ".join(fmt(r.get("maxrss_mb"), ".0f") for r in rs)
            print(f"{cname:28s} {sim:7s} wall s: {walls}   peak MB: {mems}")
        aq = d.get("aqmlab", [])
        for sim in sims:
            if sim == "aqmlab" or not d.get(sim) or not aq:
                continue
            ratios = [
                p["wall_s"] / a["wall_s"]
                for a, p in zip(aq, d[sim])
                if a.get("result") and p.get("result") and a["wall_s"] > 0
            ]
            if ratios:
                print(
                    f"{cname:28s} {sim}/aqmlab wall: "
                    + " ".join(f"{x:.2f}" for x in ratios)
                    + f"   median {statistics.median(ratios):.2f}x"
                )
    print()


def print_markdown(records: list[dict], sims: list[str]) -> None:
    print(
        "| case | sim | wall s | CPU s | peak MB | bottleneck pkts / wall s | aqmlab/peer wall | aqmlab/peer pkts/s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for cname, sim, r, rw, rp in cost_rows(records, sims):
        st = "" if r["status"] == "ok" else f" ({r['status']})"
        print(
            f"| {cname} | {sim}{st} | {fmt(r.get('wall_s'), '.2f')} | {fmt(r.get('cpu_s'), '.2f')} | "
            f"{fmt(r.get('maxrss_mb'), '.0f')} | {fmt(r.get('pkts_per_s'), '.3g')} | {fmt(rw, '.3g')} | {fmt(rp, '.3g')} |"
        )
    print()
    print("| case | metric | " + " | ".join(sims) + " | ns3-ns2 | aqmlab-ns2 | agreement |")
    print("|---|---|" + "---|" * (len(sims) + 3))
    for cname, met, vals, n3, n2, aq, v in result_rows(records, sims):
        print(
            f"| {cname} | {met} | "
            + " | ".join(fmt(vals[s], ".4g") for s in sims)
            + f" | {diff(met, n3, n2, ' pp')} | {diff(met, aq, n2, ' pp')} | {v or ''} |"
        )


# --------------------------------------------------------------------------- scaling plot
def plot_scaling(records: list[dict], out: str) -> bool:
    """Wall time against flow count (SC cases at 100 Mb/s) and against bottleneck rate
    (SC cases with 100 flows), one line per simulator; S1/S2/S3 records are drawn as
    points in the same axes. Needs matplotlib; returns False without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("[peers] matplotlib not importable: no plot")
        return False
    cases = {c.name: c for c in scenarios.all_cases()}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    marks = {"ns2": "s", "ns3": "^", "aqmlab": "o"}
    for sim in ALL_SIMS:
        mine = [
            r
            for r in records
            if r["sim"] == sim and r["case"] in cases and cases[r["case"]].group == "SC"
        ]
        for ax, pick, xkey in (
            (axes[0], lambda c: c.bottleneck_rate == 100e6, "flows"),
            (axes[1], lambda c: c.flows == 100, "bottleneck_rate"),
        ):
            pts = sorted(
                (getattr(cases[r["case"]], xkey), r) for r in mine if pick(cases[r["case"]])
            )
            ok = [(x, r["wall_s"]) for x, r in pts if r["status"] == "ok"]
            late = [(x, r["wall_s"]) for x, r in pts if r["status"] != "ok" and r.get("wall_s")]
            if ok:
                ax.plot(*zip(*ok), marker=marks[sim], label=sim)
            if late:
                ax.plot(*zip(*late), ls="none", marker="x", color="k")
    axes[0].set_xlabel("flows (100 Mb/s bottleneck, 10 s simulated)")
    axes[1].set_xlabel("bottleneck rate, b/s (100 flows, 10 s simulated)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("wall time of the process, s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("Cost against flow count and link rate (x: run stopped at its time limit)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    log(f"[peers] scaling plot: {out}")
    return True
