"""``aqmlab compare``: one scenario, its bottleneck queue replaced by each AQM in turn.

Every AQM runs the same scenario (same flows, seeds and buffer size), so the table and
the plot set the disciplines side by side on one engine: goodput against queueing
delay, one point per AQM and seed, the 95th percentile drawn as a bar.

    aqmlab compare scenarios/dumbbell_10mbps.toml --aqm red,ared,codel,fq_codel,pie --out DIR
    aqmlab compare S.toml --aqm-file mine.toml --seeds 1,2,3 --out DIR
    aqmlab compare S.toml --aqm dualpi2,fq_codel,pie --tcp cubic,bbr,prague --out DIR

``--aqm`` names types at their defaults; ``--aqm-file`` holds one or more TOML tables
``[queue.LABEL]`` (``type = ...`` and any parameters), so a user compares their own
settings. A queue without ``limit`` or ``limit_bytes`` takes the scenario's bottleneck
buffer. Writes ``DIR/compare.csv`` (one row per AQM and seed; the columns are listed
in ``COLUMNS``), ``DIR/compare.png`` and ``DIR/runs/LABEL-sSEED.json`` (each run's
summary).

``--tcp`` makes the transport a second axis: for each variant named, every TCP flow of
the scenario (``type = "tcp"``) takes ``variant = NAME`` and ``sack = true`` (the Linux
senders all use SACK; not for Tahoe, which has none), and a paced variant (``bbr``,
``prague``) drops the flow's ``prep_delay`` (its departure times hold it back instead;
the simulator refuses both). Then ``compare.csv`` gains the column ``tcp`` (last; the
others are as without it), the runs are ``runs/LABEL-TCP-sSEED.json`` and the plot's
labels ``LABEL/TCP``. Without ``--tcp`` the flows are the scenario's.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .base import ArgumentError, PathLike, check_out_dir, positive_int, read_toml, staged_dir
from .sim import Scenario, python_aqms_beside

__all__ = [
    "COLUMNS",
    "TCP_COLUMN",
    "with_queue",
    "with_tcp",
    "compare",
    "queue_tables",
    "tcp_variants",
    "add_arguments",
    "run",
]

#: The columns of ``compare.csv``.
COLUMNS = [
    "aqm",
    "type",
    "seed",
    "goodput_mbps",
    "utilization",
    "mean_delay_ms",
    "delay_p95_ms",
    "drop_rate",
    "mark_rate",
    "jain",
    "mean_queue",
]

#: The column ``--tcp`` adds (after ``COLUMNS``).
TCP_COLUMN = "tcp"

#: Variants that pace (the simulator refuses them a ``prep_delay``).
_PACED = ("bbr", "prague")


def _bottleneck(data: Mapping[str, Any]) -> tuple[int, str]:
    """(index of the bottleneck link, "ab" or "ba") from the scenario's ``bottleneck``."""
    spec = data.get("bottleneck")
    if not isinstance(spec, str) or "->" not in spec:
        raise ValueError(
            "bottleneck: the scenario must name its bottleneck direction (bottleneck = "
            '"A->B") for aqmlab compare'
        )
    a, b = (x.strip() for x in spec.split("->", 1))
    for i, link in enumerate(data.get("link", [])):
        if (link.get("a"), link.get("b")) == (a, b):
            return i, "ab"
        if (link.get("a"), link.get("b")) == (b, a):
            return i, "ba"
    raise ValueError(f"bottleneck: no link joins {a} and {b}")


def with_queue(data: Mapping[str, Any], queue: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario `data` with its bottleneck direction's queue replaced by `queue`; the
    other direction keeps its queue, and a queue without a buffer size takes the old
    one's."""
    out = copy.deepcopy(dict(data))
    i, d = _bottleneck(out)
    link = out["link"][i]
    both = link.pop("queue", None)
    old = link.get(f"queue_{d}", both) or {}
    other = "ba" if d == "ab" else "ab"
    if both is not None and f"queue_{other}" not in link:
        link[f"queue_{other}"] = both
    q = dict(queue)
    if "limit" not in q and "limit_bytes" not in q:
        for k in ("limit", "limit_bytes"):
            if k in old:
                q[k] = old[k]
    link[f"queue_{d}"] = q
    return out


def with_tcp(data: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """The scenario `data` with every TCP flow (``type = "tcp"``) sending with `variant`:
    ``variant = `variant```, ``sack = true`` (not for Tahoe) and, for a paced variant, no
    ``prep_delay``. Other flows (open-loop, TELNET, web mice) are kept as they are."""
    out = copy.deepcopy(dict(data))
    for f in out.get("flow", []):
        if f.get("type", "tcp") != "tcp":
            continue
        f["variant"] = variant
        if variant != "tahoe":
            f["sack"] = True
        if variant in _PACED:
            f.pop("prep_delay", None)
    return out


def tcp_variants(tcp: str | None) -> list[str]:
    """The comma-separated TCP variants `tcp` (an empty list for none). ArgumentError
    naming `tcp` for a name the simulator does not accept (the allowed ones listed) or
    one named twice."""
    names = [x.strip() for x in (tcp or "").split(",") if x.strip()]
    if not names:
        return []
    allowed = _variant_names()
    for n in names:
        if n not in allowed:
            raise ArgumentError("tcp", f": unknown TCP variant {n!r}; allowed {', '.join(allowed)}")
    if len(set(names)) != len(names):
        raise ArgumentError("tcp", f": a variant named twice in {tcp!r}")
    return names


def _variant_names() -> list[str]:
    """The TCP variants the simulator accepts (from its error for an unknown one)."""
    from . import _native

    flow = {"src": "a", "dst": "b", "variant": "?"}
    link = {"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}
    try:
        _native.Simulation({"duration": "1s", "link": [link], "flow": [flow]})
    except ValueError as e:
        return re.findall(r"`(\w+)`", str(e).split("expected", 1)[-1])
    raise AssertionError("the simulator accepted variant '?'")


def _metrics(summary: Mapping[str, Any], key: str) -> dict[str, Any]:
    link = summary["links"][key]
    goodputs = [f["goodput_bps"] / 1e6 for f in summary["flows"]]
    sq = sum(x * x for x in goodputs)
    arr = link["arrivals"]
    return {
        "goodput_mbps": sum(goodputs),
        "utilization": link["utilization"],
        "mean_delay_ms": link["mean_delay"] * 1e3,
        "delay_p95_ms": link["delay_p95"] * 1e3,
        "drop_rate": link["drops"] / arr if arr else 0.0,
        "mark_rate": link["marks"] / arr if arr else 0.0,
        "jain": sum(goodputs) ** 2 / (len(goodputs) * sq) if sq > 0 else 0.0,
        "mean_queue": link["mean_queue"],
    }


def _run_one(
    job: tuple[tuple[Any, ...], dict[str, Any], int],
) -> tuple[tuple[Any, ...], int, dict[str, Any]]:
    from . import _native

    key, data, seed = job
    sim = _native.Simulation(data)
    sim.run_until(sim.duration)
    return key, seed, sim.summary()


def compare(
    scenario: Mapping[str, Any],
    queues: Mapping[str, Mapping[str, Any]],
    seeds: Sequence[int] = (1,),
    jobs: int = 1,
    tcp: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], dict[tuple[Any, ...], dict[str, Any]]]:
    """Run `scenario` once per queue (label -> queue table) and seed, and with `tcp` (TCP
    variants, see :func:`with_tcp`) once per variant too. Returns the rows of
    ``compare.csv`` (in the order of `queues`, then `tcp`, then `seeds`; with `tcp`, each
    row has a ``tcp`` column) and each run's summary, keyed (label, seed) or, with `tcp`,
    (label, variant, seed); `jobs` runs in parallel."""
    positive_int("jobs", jobs)
    data = dict(scenario)
    key = data["bottleneck"].replace(" ", "")
    axis: list[str | None] = list(tcp) or [None]
    runs = []
    for label, q in queues.items():
        queued = with_queue(data, q)
        for t in axis:
            sc = queued if t is None else with_tcp(queued, t)
            for s in seeds:
                runs.append((_key(label, t, s), dict(sc, seed=s), s))
    if jobs > 1 and len(runs) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(_run_one, runs))
    else:
        done = [_run_one(r) for r in runs]
    summaries = {k: summ for k, _, summ in done}
    rows = []
    for label, q in queues.items():
        for t in axis:
            for s in seeds:
                row: dict[str, Any] = {"aqm": label, "type": q["type"], "seed": s}
                row.update(_metrics(summaries[_key(label, t, s)], key))
                if t is not None:
                    row[TCP_COLUMN] = t
                rows.append(row)
    return rows, summaries


def _key(label: str, tcp: str | None, seed: int) -> tuple[Any, ...]:
    """A run's key: (label, seed), or (label, variant, seed) on the transport axis."""
    return (label, seed) if tcp is None else (label, tcp, seed)


def plot(rows: Sequence[Mapping[str, Any]], path: Path, title: str) -> None:
    """Goodput against mean queueing delay, one marker per AQM and seed, the bar reaching
    to the 95th percentile (the RFC 7928 delay-goodput view, delay growing to the left)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.6, 4.4))
    name = {id(r): r["aqm"] + (f"/{r[TCP_COLUMN]}" if TCP_COLUMN in r else "") for r in rows}
    labels = list(dict.fromkeys(name.values()))
    # ten colours and eleven marker shapes: every (colour, shape) pair differs for up
    # to 110 labels, so an eleventh AQM is not drawn like the first
    shapes = "osD^v<>ph*X"
    for i, label in enumerate(labels):
        mine = [r for r in rows if name[id(r)] == label]
        x = [r["mean_delay_ms"] for r in mine]
        y = [r["goodput_mbps"] for r in mine]
        err = [[0.0] * len(mine), [r["delay_p95_ms"] - r["mean_delay_ms"] for r in mine]]
        ax.errorbar(
            x, y, xerr=err, fmt=shapes[i % len(shapes)], color=f"C{i % 10}", capsize=3, label=label
        )
    ax.invert_xaxis()
    ax.set_xlabel("queueing delay at the bottleneck, ms (mean; bar to the 95th percentile)")
    ax.set_ylabel("goodput, Mb/s (all flows)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def queue_tables(aqms: str | None, aqm_file: PathLike | None = None) -> dict[str, dict[str, Any]]:
    """The queues to set side by side, label -> queue table: the comma-separated types
    `aqms`, each at its defaults (labelled by its type), then the ``[queue.LABEL]``
    tables of the TOML file `aqm_file`. ArgumentError naming `aqms` for an unknown type,
    `aqm_file` for a file that cannot be read or holds no such tables; ValueError when
    there is no queue at all."""
    from . import _native

    out: dict[str, dict[str, Any]] = {}
    types = set(_native.queue_types())
    for n in filter(None, (x.strip() for x in (aqms or "").split(","))):
        if n not in types:
            detail = f": unknown type {n!r}; allowed {', '.join(sorted(types))}"
            raise ArgumentError("aqms", detail)
        out[n] = {"type": n}
    if aqm_file:
        try:
            tables = read_toml(aqm_file).get("queue")
        except ValueError as e:
            raise ArgumentError("aqm_file", str(e)) from None
        if not isinstance(tables, dict) or not tables:
            detail = f"{aqm_file}: expected one or more [queue.LABEL] tables"
            raise ArgumentError("aqm_file", detail)
        python_aqms_beside(tables.values(), Path(aqm_file).parent)
        for label, t in tables.items():
            if not isinstance(t, dict) or "type" not in t:
                raise ArgumentError("aqm_file", f"{aqm_file}: queue.{label}.type: missing")
            out[label] = dict(t)
    if not out:
        raise ValueError("no queue: give aqms (queue types) or aqm_file ([queue.LABEL] tables)")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab compare``."""
    parser.add_argument("scenario", help='scenario file (TOML) with a `bottleneck = "A->B"`')
    parser.add_argument(
        "--aqm", dest="aqms", help="comma-separated queue types, each at its defaults"
    )
    parser.add_argument("--aqm-file", help="TOML file of [queue.LABEL] tables (type + parameters)")
    parser.add_argument(
        "--tcp",
        metavar="VARIANTS",
        help="comma-separated TCP variants (e.g. cubic,bbr,prague): each runs every TCP "
        "flow in turn (with SACK; paced ones without prep_delay); compare.csv gains a "
        "`tcp` column",
    )
    parser.add_argument("--seeds", default="1", help="comma-separated seeds (default 1)")
    parser.add_argument("--duration", help="override the scenario's duration (e.g. 30s)")
    parser.add_argument("--jobs", type=int, default=1, help="runs in parallel (default 1)")
    parser.add_argument(
        "--out",
        required=True,
        help="output directory, checked before the runs and written whole at their end",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")


def run(args: argparse.Namespace) -> int:
    """Run the comparison; write DIR/compare.csv, DIR/compare.png and DIR/runs/."""
    out = check_out_dir(args.out)
    if not args.aqms and not args.aqm_file:
        raise ValueError("give --aqm TYPES and/or --aqm-file FILE")
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        raise ValueError(
            f"--seeds: expected comma-separated integers, got {args.seeds!r}"
        ) from None
    try:
        sc = Scenario.from_file(args.scenario)
    except OSError as e:
        raise ValueError(f"cannot read {args.scenario}: {e.strerror or e}") from None
    if args.duration:
        sc = sc.replace(duration=args.duration)
    queues = queue_tables(args.aqms, args.aqm_file)
    tcp = tcp_variants(getattr(args, "tcp", None))
    rows, summaries = compare(sc.to_dict(), queues, seeds, args.jobs, tcp)
    with staged_dir(out) as tmp:
        (tmp / "runs").mkdir()
        for k, summ in summaries.items():
            stem = "-".join(str(x) for x in k[:-1]) + f"-s{k[-1]}"
            (tmp / "runs" / f"{stem}.json").write_text(json.dumps(summ, indent=1))
        with open(tmp / "compare.csv", "w", newline="") as f:
            fields = COLUMNS + [TCP_COLUMN] if tcp else COLUMNS
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        plot(rows, tmp / "compare.png", sc.to_dict().get("name") or Path(args.scenario).stem)
    if not args.quiet:
        head = f"{'tcp':>8s} " if tcp else ""
        print(
            f"{'aqm':>12s} {head}{'goodput':>8s} {'util':>6s} {'delay ms':>9s} {'p95 ms':>7s} "
            f"{'drops':>7s} {'jain':>6s}"
        )
        for r in rows:
            cell = f"{r[TCP_COLUMN]:>8s} " if tcp else ""
            print(
                f"{r['aqm']:>12s} {cell}{r['goodput_mbps']:8.3f} {r['utilization']:6.3f} "
                f"{r['mean_delay_ms']:9.2f} {r['delay_p95_ms']:7.2f} {r['drop_rate']:7.4f} "
                f"{r['jain']:6.3f}"
            )
        print(f"-> {out}")
    return 0
