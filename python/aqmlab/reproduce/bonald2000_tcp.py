"""Bonald, May & Bolot 2000: the runs of Section V, TCP flows with CBR UDP through RED
and Tail Drop (Table V, Figs. 13-15); the experiments are in :mod:`.bonald2000_tcp_flows`
(Table V, Fig. 14) and :mod:`.bonald2000_tcp_traces` (Figs. 13, 15).

Section V of the paper runs many NewReno connections and constant-rate UDP traffic (10%
of the bottleneck) through one router managed by RED or Tail Drop
(``scenarios/bonald2000_tcp.toml``). Three families of runs, each one sweep
(``aqmlab.sweeps.sweep``) over that scenario:

- ``flows``: number of TCP flows x policy x seeds, buffer 40 (Table V and Fig. 14);
- ``delay``: buffer 40 and 150 x policy, 100 flows, with a packet trace of the router
  from which the UDP packets' queueing delays are taken (Fig. 13);
- ``queue``: 25-100 flows x policy, buffer 200 and RED 50/150 (Fig. 15).

The sweeps' runner, :data:`run_point`, is the simulator plus the per-class (TCP / UDP)
statistics the paper measures, statistics of the sampled queue, and the traces the
figures draw. The TCP flows sit in delay classes (one pair of access links each); the
number of flows is set by the classes' ``count``; a class with no flow is removed by the
runner.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..base import positive_int
from . import common
from .common import ScenarioDict, SweepRunner, direction, simulate_normalized
from .context import Context

PAPER = "Bonald, May & Bolot 2000, Infocom"

SCENARIO = "bonald2000_tcp.toml"
BOTTLENECK = "r1->r2"
#: Delay classes of the scenario: TCP flow entries flow[0..CLASSES-1], CBR entries after them.
CLASSES = 20
RTT_MIN, RTT_MAX = 0.120, 0.220
BOTTLENECK_DELAY = 0.010
PACKET = 1000  # bytes
RATE = 10e6  # bottleneck, b/s
SERVICE = PACKET * 8 / RATE  # transmission time of a packet at the bottleneck (s)
#: Queue sampling interval of the traces (s).
SAMPLE = 0.02

# Table V of the paper
TABLE5_PAPER = {
    "droptail": {"udp_loss": 0.051, "tcp_loss": 0.102, "goodput": 5.55},
    "red": {"udp_loss": 0.083, "tcp_loss": 0.102, "goodput": 5.56},
}
NAMES = {"droptail": "Tail Drop", "red": "RED"}


# ------------------------------------------------------------------ scenario helpers


def flow_counts(n: int, classes: int = CLASSES) -> list[int]:
    """TCP flows per delay class for `n` flows: with n >= classes as even as possible
    (flow j in class floor(j classes / n)); with fewer flows than classes one flow per
    class, spread over the whole range of round-trip times (the first and last classes
    included)."""
    positive_int("n", n)
    out = [0] * classes
    for j in range(n):
        if n <= classes:
            c = round(j * (classes - 1) / (n - 1)) if n > 1 else 0
        else:
            c = j * classes // n
        out[c] += 1
    return out


def class_rtt(c: int, classes: int = CLASSES) -> float:
    """Round-trip propagation time (s) of delay class c: evenly from RTT_MIN to RTT_MAX."""
    return RTT_MIN + (RTT_MAX - RTT_MIN) * c / (classes - 1)


def access_delay(c: int, classes: int = CLASSES) -> float:
    """One-way delay (s) of each of class c's two access links: 2 (2 d + bottleneck) = RTT."""
    return (class_rtt(c, classes) / 2 - BOTTLENECK_DELAY) / 2


def droptail(buffer: int) -> dict[str, Any]:
    """Tail Drop with a buffer of `buffer` packets as ns-2 counts it (the one in
    transmission included): `buffer - 1` waiting packets."""
    return {"type": "droptail", "limit": int(buffer) - 1}


def red(buffer: int, min_th: float | None = None, max_th: float | None = None) -> dict[str, Any]:
    """RED on a buffer of `buffer` packets (ns-2's count, as :func:`droptail`); thresholds
    by default buffer/4 and 3 buffer/4 (Example 2 for 40, Fig. 15's 50/150 for 200),
    max_p = 0.1, w_q = 0.002, no gentle mode, ns-2's drop spacing (``wait_``)."""
    lo = buffer / 4 if min_th is None else min_th
    hi = 3 * buffer / 4 if max_th is None else max_th
    return {
        "type": "red",
        "limit": int(buffer) - 1,
        "min_th": float(lo),
        "max_th": float(hi),
        "max_p": 0.1,
        "w_q": 0.002,
        "gentle": False,
        "mark_method": "ns2_wait",
        "mean_pkt_size": PACKET,
        "max_pkt_size": PACKET,
    }


def queue_for(policy: str, buffer: int) -> dict[str, Any]:
    return red(buffer) if policy == "red" else droptail(buffer)


def prepare(scenario: dict[str, Any]) -> dict[str, Any]:
    """A copy of the scenario without the flow entries whose ``count`` is 0 (delay
    classes left empty when there are fewer flows than classes)."""
    sc = copy.deepcopy(dict(scenario))
    sc["flow"] = [f for f in sc["flow"] if f.get("count", 1) != 0]
    return sc


# ------------------------------------------------------------------ statistics


def class_stats(flows: pd.DataFrame) -> dict[str, float]:
    """Per traffic class at the bottleneck: loss rate = drops / arrivals, goodput sums,
    TCP timeouts and retransmissions."""
    out: dict[str, float] = {}
    tcp = flows[flows["type"] == "tcp"]
    udp = flows[flows["type"] != "tcp"]
    for name, g in (("tcp", tcp), ("udp", udp)):
        arr = float(g["arrivals"].sum())
        drops = float(g["drops"].sum())
        out[f"{name}_flows"] = float(len(g))
        out[f"{name}_arrivals"] = arr
        out[f"{name}_drops"] = drops
        out[f"{name}_loss"] = drops / arr if arr > 0 else float("nan")
        out[f"{name}_goodput_bps"] = float(g["goodput_bps"].sum())
    out["tcp_timeouts"] = float(tcp["timeouts"].sum())
    out["tcp_fast_retransmits"] = float(tcp["fast_retransmits"].sum())
    out["tcp_retransmits"] = float(tcp["retransmits"].sum())
    gp = tcp["goodput_bps"].to_numpy(dtype=float)
    out["tcp_jain"] = (
        float(gp.sum() ** 2 / (len(gp) * (gp**2).sum()))
        if len(gp) and (gp**2).sum() > 0
        else float("nan")
    )
    return out


def queue_stats(queue: np.ndarray, avg: np.ndarray, limit: int) -> dict[str, float]:
    """Statistics of a sampled queue (packets waiting) and RED average: mean, standard
    deviation, fraction of samples with an empty queue and with a full buffer, mean
    and standard deviation of the average."""
    q = np.asarray(queue, dtype=float)
    a = np.asarray(avg, dtype=float)
    if len(q) == 0:
        nan = float("nan")
        return {
            "mean": nan,
            "std": nan,
            "empty": nan,
            "full": nan,
            "avg_mean": nan,
            "avg_std": nan,
            "samples": 0.0,
        }
    return {
        "mean": float(q.mean()),
        "std": float(q.std()),
        "empty": float(np.mean(q == 0)),
        "full": float(np.mean(q >= limit - 1)),
        "avg_mean": float(a.mean()),
        "avg_std": float(a.std()),
        "samples": float(len(q)),
    }


def packet_delays(pk: pd.DataFrame, flow_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(arrival time, waiting time) of the packets of `flow_ids` that were accepted
    ('a' or 'm') and left ('d') a link's queue, from its packet trace."""
    sel = pk[pk["flow"].isin(list(flow_ids)) & (pk["ack"] == 0)]
    arr = sel[sel["event"].isin(["a", "m"])][["flow", "seq", "time"]]
    dep = sel[sel["event"] == "d"][["flow", "seq", "time"]]
    m = arr.merge(dep, on=["flow", "seq"], suffixes=("_a", "_d"))
    m = m.sort_values("time_a")
    return m["time_a"].to_numpy(), (m["time_d"] - m["time_a"]).to_numpy()


# ------------------------------------------------------------------ the sweep runner


def _point(sc: ScenarioDict) -> dict[str, Any]:
    """The simulator's summary plus ``classes`` (:func:`class_stats`) and, if the scenario
    asks for a queue trace of the bottleneck, ``queue`` (:func:`queue_stats` over
    [warmup, duration]) and ``series`` (the trace as JSON); with a packet trace, ``udp``
    (mean and standard deviation of the UDP packets' waiting time over the window) and
    ``udp_delays`` (every UDP packet's arrival time and waiting time, JSON)."""
    res, norm = simulate_normalized(sc)
    summary = dict(res.summary)
    summary["classes"] = class_stats(res.flows)
    t0, t1 = norm["warmup"], norm["duration"]
    limit = int(direction(norm, BOTTLENECK)["queue"]["limit"])
    q = res.traces.get("queue")
    if q is not None and len(q):
        q = q[q["link"] == BOTTLENECK]
        win = q[(q["time"] >= t0) & (q["time"] <= t1)]
        summary["queue"] = queue_stats(win["queue"].to_numpy(), win["avg"].to_numpy(), limit)
        summary["series"] = json.dumps(
            {
                "time": np.round(q["time"].to_numpy(), 4).tolist(),
                "queue": q["queue"].astype(int).tolist(),
                "avg": np.round(q["avg"].to_numpy(dtype=float), 3).tolist(),
            }
        )
    pk = res.traces.get("packets")
    if pk is not None:
        pk = pk[pk["link"] == BOTTLENECK]
        udp_ids = res.flows.loc[res.flows["type"] != "tcp", "id"].tolist()
        ta, d = packet_delays(pk, udp_ids)
        inside = (ta >= t0) & (ta <= t1)
        summary["udp"] = {
            "delay_mean": float(d[inside].mean()) if inside.any() else float("nan"),
            "delay_std": float(d[inside].std()) if inside.any() else float("nan"),
            "packets": float(inside.sum()),
        }
        summary["udp_delays"] = json.dumps(
            {"time": np.round(ta, 5).tolist(), "delay": np.round(d, 6).tolist()}
        )
    return summary


#: The sweeps' runner (see :func:`_point`); it drops the empty delay classes first.
run_point = SweepRunner(
    _point, ref="aqmlab.reproduce.bonald2000_tcp:run_point", version=1, prepare=prepare
)


# ------------------------------------------------------------------ the sweeps


def load_base() -> dict[str, Any]:
    """The scenario as the sweeps' base (tied to the runner's version and the build)."""
    return run_point.base(SCENARIO)


def _flows_axis(ns: Sequence[int]) -> dict[str, Any]:
    return {
        "name": "flows",
        "paths": [f"flow[{c}].count" for c in range(CLASSES)],
        "values": [flow_counts(n) for n in ns],
        "labels": [int(n) for n in ns],
    }


def _policy_axis(buffer: int) -> dict[str, Any]:
    return {
        "name": "policy",
        "paths": ["link[0].queue_ab"],
        "values": [[droptail(buffer)], [red(buffer)]],
        "labels": ["droptail", "red"],
    }


def flows_settings(quick: bool) -> dict[str, Any]:
    """Table V and Fig. 14: numbers of flows, seeds, run length and warm-up (s)."""
    if quick:
        return {"flows": [10, 75, 120, 150], "reps": 1, "duration": 60.0, "warmup": 20.0}
    return {"flows": [10, 25, 50, 75, 100, 120, 150], "reps": 5, "duration": 300.0, "warmup": 50.0}


#: Table V's number of TCP flows ("over 100"), a point of Fig. 14's grid; buffer of Table V and Fig. 14.
TABLE5_FLOWS = 120
BUFFER = 40


def flows_spec(quick: bool) -> dict[str, Any]:
    s = flows_settings(quick)
    base = load_base()
    base["duration"], base["warmup"] = f"{s['duration']:g}s", f"{s['warmup']:g}s"
    return {
        "name": "bonald2000-flows",
        "base": base,
        "runner": run_point.ref,
        "replications": s["reps"],
        "metrics": [
            "classes.*",
            f"links.{BOTTLENECK}.utilization",
            f"links.{BOTTLENECK}.mean_queue",
            f"links.{BOTTLENECK}.mean_avg",
            f"links.{BOTTLENECK}.mean_delay",
            f"links.{BOTTLENECK}.delay_var",
        ],
        "axis": [_flows_axis(s["flows"]), _policy_axis(BUFFER)],
    }


def trace_settings(quick: bool) -> dict[str, float]:
    """Figs. 13 and 15: run length and the start of the statistics window (s)."""
    return {"duration": 40.0, "warmup": 10.0} if quick else {"duration": 150.0, "warmup": 20.0}


DELAY_FLOWS = 100
DELAY_BUFFERS = (40, 150)


def delay_spec(quick: bool) -> dict[str, Any]:
    """Fig. 13: buffers 40 and 150 x policy, 100 flows, queue and packet traces."""
    s = trace_settings(quick)
    base = load_base()
    base["duration"], base["warmup"] = f"{s['duration']:g}s", f"{s['warmup']:g}s"
    for c, k in enumerate(flow_counts(DELAY_FLOWS)):
        base["flow"][c]["count"] = k
    base["trace"] = {"queue": [BOTTLENECK], "interval": SAMPLE, "packets": [BOTTLENECK]}
    values, labels = [], []
    for b in DELAY_BUFFERS:
        for p in ("droptail", "red"):
            values.append([queue_for(p, b)])
            labels.append(f"{p}:{b}")
    return {
        "name": "bonald2000-delay",
        "base": base,
        "runner": run_point.ref,
        "metrics": [
            "classes.*",
            "queue.*",
            "udp.*",
            "series",
            "udp_delays",
            f"links.{BOTTLENECK}.utilization",
        ],
        "axis": [
            {"name": "setting", "paths": ["link[0].queue_ab"], "values": values, "labels": labels}
        ],
    }


QUEUE_BUFFER = 200
QUEUE_RED = (50, 150)


def queue_flows(quick: bool) -> list[int]:
    return [25, 100] if quick else [25, 50, 75, 100]


def queue_spec(quick: bool) -> dict[str, Any]:
    """Fig. 15: 25-100 flows x policy, buffer 200, RED min_th 50, max_th 150, queue traces."""
    s = trace_settings(quick)
    base = load_base()
    base["duration"], base["warmup"] = f"{s['duration']:g}s", f"{s['warmup']:g}s"
    base["trace"] = {"queue": [BOTTLENECK], "interval": SAMPLE}
    pol = {
        "name": "policy",
        "paths": ["link[0].queue_ab"],
        "values": [[droptail(QUEUE_BUFFER)], [red(QUEUE_BUFFER, *QUEUE_RED)]],
        "labels": ["droptail", "red"],
    }
    return {
        "name": "bonald2000-queue",
        "base": base,
        "runner": run_point.ref,
        "metrics": ["classes.*", "queue.*", "series", f"links.{BOTTLENECK}.utilization"],
        "axis": [_flows_axis(queue_flows(quick)), pol],
    }


def run_sweep(ctx: Context, tag: str, spec: Callable[[bool], dict[str, Any]]) -> pd.DataFrame:
    """The group's sweep `tag`, the ``classes.`` prefix taken off its columns."""
    df = common.sweep(ctx, tag, spec)
    return df.rename(columns=lambda c: c.split(".", 1)[1] if c.startswith("classes.") else c)


def _policy_of(df: pd.DataFrame) -> pd.Series:
    """The policy of each row, from the policy axis's labels or the setting label."""
    if "setting" in df:
        return df["setting"].astype(str).str.split(":").str[0]
    return df["policy"].astype(str)


# ------------------------------------------------------------------ assumptions


def assume_common(ctx: Context) -> None:
    """What every id of Section V assumes."""
    ctx.assume(
        "Topology (scenarios/bonald2000_tcp.toml): sources in 20 delay classes joined to router r1 "
        "by 100 Mb/s links and sinks to r2 likewise, so that round-trip propagation times run "
        "evenly from 120 to 220 ms; bottleneck r1 -> r2 10 Mb/s, 10 ms; TCP flows spread evenly "
        "over the classes (with fewer flows than classes, one per class over the whole range)."
    )
    ctx.assume(
        "UDP: 20 CBR flows (one per class) of 50 kb/s each, 1000-byte packets, 1 Mb/s in all "
        "(the paper: 10% of the bottleneck; the number and size of the UDP sources are not given)."
    )
    ctx.assume(
        "TCP: NewReno (RFC 6582), 1000-byte packets, 40-byte ACKs, no delayed ACKs, receiver "
        "window 1000 packets, initial window 2, minimum RTO 0.2 s, 10 ms tick; starts uniform "
        "on [0, 1] s (the paper does not give them)."
    )
    ctx.assume(
        "Buffer of K packets as ns-2 counts it (the packet in transmission included): "
        "limit K-1 waiting packets. RED thresholds K/4 and 3K/4 (the paper's Example 2 for "
        "K = 40; Fig. 15's stated 50/150 for K = 200 is the same proportion), max_p 0.1, "
        "w_q 0.002, no gentle mode, ns-2's drop spacing (wait_), queue in packets."
    )
    ctx.assume(
        "Loss rates as the paper measures them: drops at the first router over arrivals there, "
        "per class (TCP data / UDP); goodput: data delivered in order for the first time at the "
        "TCP receivers, summed."
    )


def flows_data(ctx: Context) -> pd.DataFrame:
    """One row per run of the ``flows`` sweep: number of flows, policy, seed, the classes'
    statistics and the bottleneck's."""
    df = run_sweep(ctx, "flows", flows_spec)
    out = pd.DataFrame(
        {"flows": df["flows"].astype(int), "policy": _policy_of(df), "seed": df["seed"]}
    )
    for c in (
        "tcp_loss",
        "udp_loss",
        "tcp_goodput_bps",
        "udp_goodput_bps",
        "tcp_timeouts",
        "tcp_retransmits",
        "tcp_fast_retransmits",
        "tcp_jain",
        "tcp_arrivals",
        "udp_arrivals",
    ):
        out[c] = df[c].to_numpy()
    for c in ("utilization", "mean_queue", "mean_avg", "mean_delay", "delay_var"):
        out[c] = df[f"links.{BOTTLENECK}.{c}"].to_numpy()
    out["goodput_mbps"] = out["tcp_goodput_bps"] / 1e6
    return out.sort_values(["policy", "flows", "seed"]).reset_index(drop=True)


def flows_assume(ctx: Context) -> None:
    """What Table V and Fig. 14 assume."""
    s = flows_settings(ctx.quick)
    assume_common(ctx)
    ctx.assume(
        f"Buffer 40 packets with RED min_th 10, max_th 30 (Example 2) for Table V and Fig. 14 "
        f"(the paper gives the buffer for Fig. 14 only). {s['reps']} run(s) of {s['duration']:g} s "
        f"per point (seeds 1..{s['reps']}), statistics over [{s['warmup']:g} s, {s['duration']:g} s]; "
        "the paper gives no durations."
    )
