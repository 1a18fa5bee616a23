"""``run_testbed``: a scenario on live Linux flows through the gateway, and the
``aqmlab testbed`` command.

The run: plan the scenario (:mod:`.scenario`), build the network and start the gateway
(:mod:`.network`, :mod:`.gateway`), run the flows (:mod:`.flows`), then write the
simulator's ``summary.json`` shape from the gateway's statistics and the flows'
reports, with the simulator's prediction for the same scenario beside it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from aqmlab.sim import simulate

from ..base import check_out_dir, staged_dir
from . import flows as flmod
from . import netns as nsmod
from . import scenario as scmod
from . import windows as wmod
from .gateway import GATEWAY_ENV, gateway_args, gateway_env
from .network import Testbed


class WindowError(RuntimeError):
    """A flow's live window is not the scenario's (each flow named with both)."""


def _link_view(d: dict[str, Any], pl: scmod.Plan, back: bool) -> dict[str, Any]:
    """A gateway direction as a summary's link: the scenario's direction index and
    node names, without the per-flow tables."""
    view = {k: v for k, v in d.items() if k not in ("flows", "other_flows")}
    a, b = pl.link_name.split("->")
    view["index"] = 2 * pl.link_index + int(back)
    view["from"], view["to"] = (b, a) if back else (a, b)
    return view


def predict(scenario: Any, path: str | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """The simulator's summary for the same scenario (a dict, or the file at `path`),
    or (None, why not)."""
    try:
        return simulate(path if path is not None else scenario).summary, None
    except ImportError as e:  # no compiled simulator in this installation
        return None, f"simulator not available ({type(e).__name__}: {e})"
    except Exception as e:  # noqa: BLE001
        return None, f"simulator failed ({type(e).__name__}: {e})"


def _comparison(summary: dict[str, Any], pred: dict[str, Any] | None, link: str) -> dict[str, Any]:
    def rate(l):
        return (l.get("drops", 0) / l["arrivals"]) if l and l.get("arrivals") else None

    t = summary["links"].get(link, {})
    p = (pred or {}).get("links", {}).get(link) if pred else None
    row: dict[str, Any] = {"link": link}
    for k in ("utilization", "mean_queue", "mean_avg", "marks"):
        row[k] = {"testbed": t.get(k), "simulator": p.get(k) if p else None}
    row["drop_rate"] = {"testbed": rate(t), "simulator": rate(p) if p else None}
    return row


def _summary(
    pl: scmod.Plan, tb: Testbed, run: flmod.Outcome, gw: dict[str, Any], wall: float
) -> dict[str, Any]:
    """The simulator's summary shape from the gateway's statistics and the flows
    (`wall`: when the run started, monotonic clock)."""
    ab, ba = gw["links"]["ab"], gw["links"]["ba"]
    rows = [flmod.flow_row(pl, f, tb.out, gw["links"], run) for f in pl.flows]
    sched = tb.scheduling_record(gw)
    refused = [f"scheduling not applied: {e}" for e in sched["errors"]]
    counts = {s: flmod.load_json(tb.out / f"count_{s}.json") for s in ("a", "b")}
    return {
        "links": {
            pl.link_name: _link_view(ab, pl, back=False),
            pl.link_name_back: _link_view(ba, pl, back=True),
        },
        "flows": rows,
        "events": None,
        "wall_seconds": time.monotonic() - wall,
        "testbed": {
            "namespaces": list(tb.ns.names.values()),
            "gateway": gw["gateway"],
            "rate_bps": pl.rate_ab,
            "one_way_delay_s": pl.delay_s,
            "kernel_congestion_control": {f.variant: f.kernel_cc for f in pl.flows if f.variant},
            "scheduling": sched,
            "ecn": pl.ecn,
            "ce_received": {s: (c or {}).get("ce") for s, c in counts.items()},
            "tcp_counters": run.tcp_counters,
            "lead_s": pl.lead_s,
            "window_clamps": [
                {
                    "src": k[1],
                    "dst": k[2],
                    "scenario_packets": n,
                    "kernel_packets": run.clamps.get(k),
                }
                for k, n in scmod.window_clamps(pl).items()
            ],
            "notes": pl.notes
            + refused
            + [
                "goodput: bytes the iperf3 receiver reported in [warmup, duration]",
                "timeouts: not observed per flow on live Linux flows (null)",
            ],
            "gateway_flows": {
                pl.link_name: ab.get("flows", []),
                pl.link_name_back: ba.get("flows", []),
            },
        },
    }


def run_testbed(
    scenario: Any,
    out_dir: Any,
    *,
    gateway: str | None = None,
    prediction: bool = True,
    progress: bool = False,
    kernel_cc: str | None = None,
    capture: bool = False,
) -> dict[str, Any]:
    """Run a dumbbell scenario (TOML path or dict) on live Linux flows through the
    gateway; write ``out_dir/summary.json`` (the simulator's shape, plus
    ``"prediction"`` and ``"testbed"``) and return it. `kernel_cc` runs every TCP flow
    with that Linux congestion control (see :func:`.scenario.plan`); `capture` records
    every TCP packet at both hosts' interfaces (:mod:`.timing`).

    `out_dir` is checked before anything starts (ValueError if it cannot be created)
    and written whole: the run works in a directory beside it, renamed onto it at the
    end; a failed run leaves `out_dir` as it was and its files (gateway.log, iperf3
    logs) in ``out_dir.failed``."""
    wall = time.monotonic()
    out = check_out_dir(out_dir, "out_dir")
    path = None if isinstance(scenario, dict) else str(scenario)
    sc = scmod.load(scenario)
    pl = scmod.plan(sc, kernel_cc=kernel_cc)
    ccs = sorted({f.kernel_cc for f in pl.flows if f.kernel_cc})
    hosts = {s: len(pl.hosts[s]) for s in ("a", "b")}
    cc = ccs[0] if ccs else "reno"
    with staged_dir(out, keep_failed=".failed") as work:
        env = gateway_env([pl.queue_ab, pl.queue_ba])
        args = gateway_args(pl)
        with Testbed(work, args, hosts, gateway=gateway, cc=cc, ecn=pl.ecn, env=env) as tb:
            run = flmod.run_flows(tb, pl, capture)
        if run.gateway is None:
            raise RuntimeError(f"the gateway wrote no statistics; see gateway.log in {out}.failed")
        summary = _summary(pl, tb, run, run.gateway, wall)
        judged = [wmod.window_error(r["id"], r["window"]) for r in summary["flows"] if r["window"]]
        errors = [e for e in judged if e]
        if errors:
            # Not compared: the live run did not hold the scenario's windows.
            summary["window_errors"] = errors
            (work / "summary.json").write_text(json.dumps(summary, indent=2))
            raise WindowError("; ".join(errors))
        if prediction:
            pred, why = predict(sc, path)
            summary["prediction"] = pred
            if why:
                summary["prediction_note"] = why
            summary["comparison"] = _comparison(summary, pred, pl.link_name)
        (work / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


# -- command line ---------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument(
        "scenario",
        nargs="?",
        help="scenario TOML file (a dumbbell: every flow crosses one bottleneck link)",
    )
    parser.add_argument(
        "--out",
        help="output directory (summary.json, gateway.json, iperf3 logs), written whole at "
        "the end (a failed run's files go to DIR.failed); required with a scenario",
    )
    parser.add_argument(
        "--gateway",
        default=None,
        help=f"aqmlab-gateway command (default ${GATEWAY_ENV}, else the aqmlab-gateway "
        "installed with this package)",
    )
    parser.add_argument(
        "--kernel-cc",
        default=None,
        help="run every TCP flow with this Linux congestion control (e.g. cubic) "
        "instead of reno for the scenario's variants",
    )
    parser.add_argument(
        "--no-prediction", action="store_true", help="do not run the simulator on the same scenario"
    )
    parser.add_argument(
        "--cleanup",
        action="store_true",
        help="only remove namespaces left by killed runs, then exit",
    )


def _fmt(v, pct=False):
    if v is None:
        return "-"
    return f"{v * 100:.1f}%" if pct else (f"{v:.2f}" if isinstance(v, float) else str(v))


def _print(s: dict[str, Any]) -> None:
    for e in s["testbed"].get("scheduling", {}).get("errors", []):
        print(f"aqmlab testbed: warning: scheduling not applied: {e}", file=sys.stderr)
    for name, l in s["links"].items():
        print(
            f"{name}: utilization {_fmt(l['utilization'], True)}, arrivals {l['arrivals']}, drops {l['drops']} "
            f"(early {l['early_drops']}, forced {l['forced_drops']}), marks {l['marks']}, "
            f"mean queue {_fmt(l['mean_queue'])}, mean avg {_fmt(l['mean_avg'])}"
        )
    for f in s["flows"]:
        g = f["goodput_bps"]
        print(
            f"flow {f['id']} {f['type']} {f['src']}->{f['dst']}: goodput {g / 1e6:.2f} Mb/s"
            if g is not None
            else f"flow {f['id']}: no goodput ({f.get('error')})"
        )
        w = f.get("window")
        if w and w["kernel_clamp_packets"]:
            print(
                f"  window {w['kernel_clamp_packets']} packets ({w['kernel_bytes']} bytes), "
                f"cwnd up to {w['max_cwnd']}, receiver's window up to {w['max_snd_wnd']} bytes "
                f"(window scale {w['wscale']})"
            )
    if "prediction_note" in s:
        print(f"prediction: {s['prediction_note']}")


def run(args) -> int:
    """`aqmlab testbed`: returns the exit status."""
    if not args.cleanup and args.out:
        check_out_dir(args.out)  # before anything starts (the command names --out)
    try:
        nsmod.require_privileges()
        if args.cleanup:
            removed = nsmod.cleanup_stale()
            print(
                f"removed {len(removed)} stale namespace(s): {' '.join(removed)}"
                if removed
                else "nothing to clean up"
            )
            return 0
        if not args.scenario or not args.out:
            print("aqmlab testbed: give a SCENARIO and --out DIR (or --cleanup)", file=sys.stderr)
            return 2
        s = run_testbed(
            args.scenario,
            args.out,
            gateway=args.gateway,
            prediction=not args.no_prediction,
            kernel_cc=args.kernel_cc,
        )
    except nsmod.PrivilegeError as e:
        print(f"aqmlab testbed: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, ValueError) as e:
        print(f"aqmlab testbed: error: {e}", file=sys.stderr)
        failed = Path(f"{args.out}.failed") if args.out else None
        if failed is not None and failed.is_dir():
            print(f"aqmlab testbed: the failed run's files are in {failed}", file=sys.stderr)
        return 1
    _print(s)
    print(f"wrote {Path(args.out) / 'summary.json'}")
    return 0
