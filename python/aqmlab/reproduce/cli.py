"""``aqmlab reproduce``: run experiments of the catalogue."""

from __future__ import annotations

import argparse
import sys

from ..base import check_out_dir
from . import catalogue


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="experiment ids (e.g. floyd1993-fig7), a paper prefix (floyd1993) or 'all'",
    )
    p.add_argument(
        "--out", default="out/reproduce", help="output directory (default out/reproduce)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="reduced length and replications, for a smoke test of the whole catalogue",
    )
    p.add_argument("--jobs", type=int, default=None, help="parallel processes (default: all cores)")
    p.add_argument("--list", action="store_true", help="list the experiment ids with their titles")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for id_ in catalogue.catalogue_order():
            print(f"{id_}\t{catalogue.REGISTRY[id_].title}")
        return 0
    if not args.ids:
        print(
            "aqmlab reproduce: give experiment ids, a paper prefix or 'all' (see --list)",
            file=sys.stderr,
        )
        return 2

    check_out_dir(args.out, inside=True)
    statuses = catalogue.run(
        args.ids, args.out, quick=args.quick, jobs=args.jobs, progress=not args.no_progress
    )
    failed = [k for k, v in statuses.items() if v != "done"]
    print(f"{len(statuses)} experiments written to {args.out}/ (index: {args.out}/index.html)")
    if failed:
        print("failed to run: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0
