"""``aqmlab evaluate``: the RFC 7928 scenarios for a set of AQMs (see docs/evaluate.md).

    aqmlab evaluate --quick --out out/evaluate
    aqmlab evaluate --aqm red,codel --aqm-file mine.toml --scenarios 5,8.2 --out DIR
    aqmlab evaluate --list

Exit status: 0 when every run finished, 1 when some failed (recorded in
``DIR/evaluate.json``; the report covers the others), 2 for bad arguments (nothing is
written), 130 when interrupted (finished runs are kept; the same command resumes).
"""

from __future__ import annotations

import argparse
import sys

from ..sweeps.cli import start_method
from .execute import DEFAULT_SEEDS, evaluate
from .results import describe
from .selection import DEFAULT_AQMS, list_scenarios


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab evaluate``."""
    parser.add_argument(
        "--aqm",
        dest="aqms",
        metavar="TYPES",
        help="comma-separated queue types, each at its defaults (default: "
        f"{','.join(DEFAULT_AQMS)} when --aqm-file is not given either)",
    )
    parser.add_argument(
        "--aqm-file",
        metavar="FILE",
        help="TOML file of [queue.LABEL] tables (type and parameters), evaluated beside "
        "--aqm; a table without limit/limit_bytes gets the scenario's buffer",
    )
    parser.add_argument(
        "--scenarios",
        metavar="LIST",
        help="comma-separated scenario ids or RFC 7928 section prefixes (5, 5.3, 8.2.4); "
        "a scenario brings its ECN variant; 'ecn' or ID+ecn selects ECN variants only "
        "(default: all; --list shows them)",
    )
    parser.add_argument(
        "--tcp",
        metavar="VARIANTS",
        help="comma-separated TCP variants (e.g. cubic,bbr,prague): every run once with "
        "each, all its TCP flows sending with it (with SACK; paced ones without "
        "prep_delay); the tables gain a `tcp` column (default: the scenarios' own)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"60 s runs with 10 s warm-up and {DEFAULT_SEEDS[True]} seeds, fewer variants "
        f"(default: 300 s, 30 s warm-up, {DEFAULT_SEEDS[False]} seeds)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="seeds 1..N per scenario, variant and AQM (default "
        f"{DEFAULT_SEEDS[False]}, {DEFAULT_SEEDS[True]} with --quick)",
    )
    g = parser.add_mutually_exclusive_group()
    g.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes of the embedded Dask cluster (default: all cores)",
    )
    g.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="run on this Dask distributed cluster instead of local processes",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (required unless --list): DIR/sweeps/ (resumable), "
        "metrics.parquet, flows.parquet, plots/, index.html, evaluate.json; re-running "
        "resumes, another AQM list or seed count extends",
    )
    parser.add_argument(
        "--retry-failed", action="store_true", help="compute again the runs recorded as failed"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument(
        "--list",
        action="store_true",
        help="print the scenarios (id, RFC 7928 section, title) and exit",
    )


def run(args: argparse.Namespace) -> int:
    """List the scenarios, or run the evaluation and print where its report is."""
    if args.list:
        for s in list_scenarios():
            print(f"{s['id']:<12s} Section {s['section']:<6s} {s['title']}")
        return 0
    if not args.out:
        raise ValueError("--out DIR is required (or --list)")

    try:
        df = evaluate(
            aqms=args.aqms,
            aqm_file=args.aqm_file,
            scenarios=args.scenarios,
            quick=args.quick,
            out=args.out,
            jobs=args.jobs,
            scheduler=args.scheduler,
            progress=not args.no_progress,
            seeds=args.seeds,
            retry_failed=args.retry_failed,
            start_method=start_method(),
            tcp=args.tcp,
        )
    except KeyboardInterrupt:
        print(
            "interrupted; finished runs are kept, re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    info = df.attrs.get("evaluate", {})
    for line in describe(info):
        print(line)
    failed = info.get("failed", [])
    for f in failed[:10]:
        print(
            f"failed: {f['scenario']}{'+ecn' if f['ecn'] else ''} variant={f['variant']} "
            f"aqm={f['aqm']} seed={f['seed']}: {f['error']}",
            file=sys.stderr,
        )
    if len(failed) > 10:
        print(f"... {len(failed) - 10} more failed runs (evaluate.json)", file=sys.stderr)
    print(f"-> {args.out}/index.html")
    return 1 if failed else 0
