"""``aqmlab run``: one scenario file on the simulator, its files written whole; the
table of its busy link directions; the plots of its traces.

The command's path imports only what it runs: ``argparse`` and the interpreter's own
modules, the command table, this module and the small ones it uses
(:mod:`aqmlab.arguments`, :mod:`aqmlab.outdir`, :mod:`aqmlab.progress`,
``aqmlab._tables``), and the compiled extension, which reads the file's text, runs it
and writes summary.json and the Parquet files from the summary it holds (no Python dict
of it is built under ``-q``; ``tests/python/test_imports.py`` holds the list). A queue
written in Python, traces, ``--plot``, or tables whose column types pandas must decide
take :mod:`aqmlab.sim` (and pandas where they need it)."""

from __future__ import annotations

import os
import sys

from . import _tables, outdir
from .progress import drive

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

__all__ = [
    "add_arguments",
    "run",
    "run_to_dir",
    "links_table",
    "auto_threads",
    "plot_traces",
    "RUN_COLUMNS",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab run``."""
    parser.add_argument("scenario", help="scenario file (TOML)")
    parser.add_argument(
        "--out",
        required=True,
        help="output directory (summary.json, flows/links/trace Parquet), checked before the "
        "run and written whole at its end (an existing one is replaced)",
    )
    parser.add_argument("--seed", type=int, help="override the scenario's seed")
    parser.add_argument("--duration", help="override the scenario's duration (e.g. 10s)")
    parser.add_argument("--warmup", help="override the scenario's warm-up (e.g. 5s)")
    parser.add_argument(
        "--threads",
        choices=["1", "2", "auto"],
        help="threads of the run: 2 runs a network that splits at its merging directions "
        "on two threads, with the results of one; auto (the default, unless the scenario "
        "sets threads) takes 2 whenever this process may use two cores, else 1; where the "
        "cores are shared and two threads turn out slower than one would be, the run goes "
        "on on one for a while (measured as it runs)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--plot",
        action="store_true",
        help="also plot the queue/avg trace (queue.png) and the cwnd trace (cwnd.png) if traced",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")


def run(args: argparse.Namespace) -> int:
    """Run one scenario file; write DIR/summary.json and Parquet files. Exit status 0 on
    success; an output directory that cannot be created or an invalid scenario raises
    ValueError (the CLI prints it and exits 2) before anything runs or is written."""
    outdir.check_dir(args.out, "out")
    try:
        with open(args.scenario) as f:
            text = f.read()
    except OSError as e:
        print(f"aqmlab run: error: cannot read {args.scenario}: {e.strerror or e}", file=sys.stderr)
        return 2
    changes: dict[str, Any] = {}
    if args.seed is not None:
        changes["seed"] = args.seed
    if args.duration is not None:
        changes["duration"] = args.duration
    if args.warmup is not None:
        changes["warmup"] = args.warmup
    # threads: the flag's, else the file's, else auto
    defaults: dict[str, Any] = {}
    if args.threads in (None, "auto"):
        (changes if args.threads else defaults)["threads"] = auto_threads()
    else:
        changes["threads"] = int(args.threads)
    progress = False if args.no_progress or args.quiet else None
    if args.plot or "python" in text or "trace" in text:
        # (a queue ``type = "python"`` perhaps, whose module is looked for beside the
        # file; traces, perhaps, which pandas reads)
        summary = _run_through_sim(args, text, changes, defaults, progress)
    else:
        sim = run_to_dir(text, args.out, changes, defaults, progress)
        summary = None if args.quiet else sim.summary()
    if summary is not None:
        s = summary
        print(f"{args.scenario}: {s['events']} events in {s['wall_seconds']:.2f} s -> {args.out}")
        print(links_table(s))
    return 0


def run_to_dir(
    text: str,
    out: str | os.PathLike[str],
    changes: dict[str, Any] | None = None,
    defaults: dict[str, Any] | None = None,
    progress: Any = None,
) -> Any:
    """Run a scenario file's TOML `text` (keys of `changes` set over the file's, those of
    `defaults` where it has none; no traces) and write summary.json, flows.parquet and
    links.parquet into the directory `out`, whole (built beside it and renamed onto it):
    the files of :meth:`aqmlab.sim.Result.to_dir`, written by the extension from the
    summary it holds. Returns the finished simulation (``summary()`` gives its
    summary). `progress`: as in :func:`aqmlab.simulate`. A queue written in Python is
    looked for on ``sys.path`` only (:func:`aqmlab.sim.simulate_toml` also looks beside
    the file)."""
    from . import _native

    sim = _native.Simulation(text, None, dict(changes or {}), dict(defaults or {}))
    drive(sim, progress)
    tmp = outdir.stage(out)
    try:
        if not sim.write_files(tmp, _tables.large_strings()):
            _write_in_python(sim.summary(), tmp)
    except BaseException:
        outdir.discard(tmp)
        raise
    outdir.swap_in(tmp, out)
    return sim


def _write_in_python(summary: dict[str, Any], tmp: str) -> None:
    """The files written from the Python summary (where pandas decides a column's type)."""
    from .sim import Result

    Result(summary, {})._write_into(tmp)


def _run_through_sim(
    args: argparse.Namespace,
    text: str,
    changes: dict[str, Any],
    defaults: dict[str, Any],
    progress: Any,
) -> dict[str, Any] | None:
    """The run through :func:`aqmlab.sim.simulate_toml` (a queue in Python, found beside
    the file; traces; --plot); the summary to print, None under -q."""
    from .sim import simulate_toml

    directory = os.path.dirname(args.scenario) or "."
    res = simulate_toml(text, directory, changes, defaults, progress=progress)
    out = res.to_dir(args.out)
    if args.plot:
        plot_traces(res, out)
    return None if args.quiet else res.summary


#: The columns ``aqmlab run`` prints for each link direction that saw arrivals.
RUN_COLUMNS = [
    "link",
    "utilization",
    "arrivals",
    "drops",
    "early_drops",
    "marks",
    "mean_queue",
    "mean_avg",
    "mean_delay",
]


def links_table(summary: dict[str, Any]) -> str:
    """The busy link directions of a summary (arrivals > 0) as a text table of
    :data:`RUN_COLUMNS`, numbers to 4 significant digits, columns right-aligned."""
    links = sorted(summary["links"].items(), key=lambda kv: kv[1]["index"])
    rows = [[name] + [l.get(c) for c in RUN_COLUMNS[1:]] for name, l in links if l["arrivals"] > 0]

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return "NaN" if v is None else str(v)

    table = [RUN_COLUMNS] + [[cell(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(RUN_COLUMNS))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table)


def auto_threads() -> int:
    """Threads for a one-off run: 2 where this process may use two cores or more, else
    1. The simulator runs one thread where the network does not split, and falls back
    to one for a while where two turn out slower (cores shared with other work)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


def plot_traces(res: Any, out: Path) -> list[Path]:
    """Plot the queue and avg traces (one panel per traced link direction) and the cwnd
    trace of a result into `out`; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    q = res.traces.get("queue")
    if q is not None and len(q):
        links = list(dict.fromkeys(q["link"]))
        fig, axes = plt.subplots(len(links), 1, figsize=(8, 2.8 * len(links)), squeeze=False)
        for ax, name in zip(axes[:, 0], links):
            d = q[q["link"] == name]
            ax.step(d["time"], d["queue"], where="post", lw=0.6, label="queue q")
            ax.plot(d["time"], d["avg"], lw=1.4, label="average avg")
            ax.set_title(name)
            ax.set_ylabel("packets")
            ax.legend(loc="upper left")
        axes[-1, 0].set_xlabel("time (s)")
        fig.tight_layout()
        fig.savefig(out / "queue.png", dpi=120)
        plt.close(fig)
        written.append(out / "queue.png")
    c = res.traces.get("cwnd")
    if c is not None and len(c):
        fig, ax = plt.subplots(figsize=(8, 3))
        for f, d in c.groupby("flow"):
            ax.step(d["time"], d["cwnd"], where="post", lw=0.8, label=f"flow {f}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        if c["flow"].nunique() <= 10:
            ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(out / "cwnd.png", dpi=120)
        plt.close(fig)
        written.append(out / "cwnd.png")
    return written
