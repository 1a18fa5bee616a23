"""``aqmlab sweep`` and ``aqmlab plot-sweep``.

Also runnable on its own: ``python -m aqmlab.sweeps.cli sweep SWEEP.toml --out DIR``
and ``python -m aqmlab.sweeps.cli plot-sweep DIR --x ... --y ...``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from pathlib import Path

from ..base import check_out_dir, check_out_file, replace_file
from ..cli import run_command
from . import execute, store
from . import spec as _spec
from .plot import plot


def add_sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "spec",
        metavar="SWEEP.toml",
        help="the sweep file (base scenario, axes, replications, metrics)",
    )
    p.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="dataset directory (manifest.json + points/*.parquet); re-running resumes it",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes of the embedded local cluster (default: all cores)",
    )
    p.add_argument(
        "--batch",
        type=int,
        default=None,
        metavar="N",
        help="at most N points per cluster task (default 32; short points are grouped so that a "
        "task lasts about half a second; 1 sends every point alone)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run on this Dask distributed cluster instead of local processes",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--force-new",
        action="store_true",
        help="if DIR holds a different sweep, move it aside to DIR.superseded-<hash> and start over",
    )
    g.add_argument(
        "--extend",
        action="store_true",
        help="if only axis values or replications changed, keep DIR's finished points that are "
        "still in the sweep and compute the rest",
    )
    p.add_argument(
        "--retry-failed", action="store_true", help="compute again the points recorded as failed"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="validate the sweep and list its points; run nothing"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_sweep(args: argparse.Namespace) -> int:
    s = _spec.load_spec(args.spec)
    if args.dry_run:
        execute.validate_points(s)
        print(
            f"{s.name}: {len(s.points)} points ({len(s.axes)} axes, {s.replications} replication(s)); "
            f"spec hash {s.spec_hash}"
        )
        for p in s.points[:20]:
            print(
                f"  {p.index:5d} {p.id} seed={p.seed} "
                + " ".join(f"{k}={v}" for k, v in p.params.items())
            )
        if len(s.points) > 20:
            print(f"  ... {len(s.points) - 20} more")
        return 0
    check_out_dir(args.out, inside=True)
    try:
        df = execute.sweep(
            s,
            out=args.out,
            jobs=args.jobs,
            scheduler=args.scheduler,
            progress=not args.no_progress,
            force_new=args.force_new,
            extend=args.extend,
            retry_failed=args.retry_failed,
            start_method=start_method(),
            batch=args.batch,
        )
    except store.SweepMismatch as e:
        print(f"aqmlab sweep: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted; finished points are kept, re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    st = df.attrs.get("sweep", {})
    nfail = int(df["error"].notna().sum()) if "error" in df else 0
    print(
        f"{len(df)}/{st.get('points', len(df))} points in {args.out} "
        f"({st.get('computed', 0)} computed now, {st.get('already_done', 0)} already there; "
        f"{nfail} failed)"
    )
    if nfail:
        print(
            "failed points are recorded in the 'error' column; --retry-failed computes them again",
            file=sys.stderr,
        )
    return 1 if nfail else 0


def start_method() -> str:
    """How the command lines start a local cluster's workers: from a fork server where the
    platform has one (Linux, macOS), spawned elsewhere; AQMLAB_SWEEP_START_METHOD overrides it.

    Never forked from the command's own process: it runs the cluster's scheduler and event
    loop in threads, and a child forked from a threaded process inherits every lock another
    thread held at that moment, held for ever (a worker waiting on such a futex hangs the
    sweep). The fork server is a fresh process with one thread that imports dask once; each
    worker is forked from it, which starts in about the time of a fork, not of a spawn."""
    return os.environ.get("AQMLAB_SWEEP_START_METHOD") or (
        "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    )


def add_plot_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="a sweep's output directory")
    p.add_argument(
        "--x",
        required=True,
        help="column on the x axis (a unique suffix is enough, e.g. mean_queue)",
    )
    p.add_argument("--y", required=True, help="column on the y axis")
    p.add_argument("--hue", default=None, help="one line per value of this column")
    p.add_argument(
        "--connect",
        default=None,
        help="column ordering the points along a line; replications are averaged per "
        "(hue, connect) (default: x)",
    )
    p.add_argument(
        "--agg",
        default="mean",
        choices=["mean", "median", "none"],
        help="reduce the replications (default mean, with std error bars)",
    )
    p.add_argument("--logx", action="store_true")
    p.add_argument("--logy", action="store_true")
    p.add_argument(
        "--scale-x", type=float, default=1.0, help="multiply x by this (e.g. 1000 for ms)"
    )
    p.add_argument("--scale-y", type=float, default=1.0)
    p.add_argument("--xlabel", default=None)
    p.add_argument("--ylabel", default=None)
    p.add_argument("--title", default=None)
    p.add_argument("--output", "-o", default=None, help="image file (default DIR/plot.png)")


def run_plot(args: argparse.Namespace) -> int:
    out = Path(args.output) if args.output else Path(args.dir) / "plot.png"
    check_out_file(out, "output" if args.output else "dir")
    import matplotlib

    matplotlib.use("Agg")

    fig = plot(
        args.dir,
        x=args.x,
        y=args.y,
        hue=args.hue,
        connect=args.connect,
        agg=args.agg,
        logx=args.logx,
        logy=args.logy,
        scale_x=args.scale_x,
        scale_y=args.scale_y,
        xlabel=args.xlabel,
        ylabel=args.ylabel,
        title=args.title,
    )
    with replace_file(out) as tmp:
        fig.savefig(tmp, dpi=120)
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m aqmlab.sweeps.cli {sweep,plot-sweep} ...`` (the same as ``aqmlab sweep`` / ``plot-sweep``)."""
    parser = argparse.ArgumentParser(prog="python -m aqmlab.sweeps.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    parsers = {
        "sweep": sub.add_parser("sweep", help="run a parameter sweep"),
        "plot-sweep": sub.add_parser("plot-sweep", help="plot a sweep's results"),
    }
    add_sweep_arguments(parsers["sweep"])
    add_plot_arguments(parsers["plot-sweep"])
    args = parser.parse_args(argv)
    run = run_sweep if args.command == "sweep" else run_plot
    return run_command(run, args, parsers[args.command], f"aqmlab {args.command}")


if __name__ == "__main__":
    sys.exit(main())
