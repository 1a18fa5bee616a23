"""Floyd & Jacobson 1993: the multi-run experiments (Fig. 5 and Figs. 12-15), run through aqmlab.sweeps.

Fig. 5 (network of Fig. 6) and Figs. 12-15 (network of Fig. 11) are families of short
simulations. Each family is one sweep (``aqmlab.sweeps.sweep``): a zipped axis sets the
gateway's queue together with the sources' packet-preparation delay, replications vary
the seed. The sweep's runner, :func:`run_periods`, is the packet simulator plus a packet
trace of the gateway's output queue, from which it computes what the paper measures and
the simulator's summary does not give: the average queue *as seen by arriving packets*,
per-flow departures and drops, and the same per one-second period.
"""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from ..units import parse_time
from .framework import Context, build_id, experiment, stored_sweep

PAPER = "Floyd & Jacobson 1993, IEEE/ACM ToN 1(4)"

_SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
RUNNER = "aqmlab.reproduce.floyd1993_multirun:run_periods"
#: Bumped whenever run_periods' output changes, so that a stored sweep is not reused.
RUNNER_VERSION = 1
#: Length of a measurement period of Figs. 12-15 (s).
PERIOD = 1.0
#: The packet-preparation time bound t of Sections V and IX (s): "the bottleneck service time of 0.17 ms".
PREP_T = 0.17e-3
#: Drops closer than this (s) belong to one drop episode (for the synchronization count of Fig. 5).
EPISODE_GAP = 0.1

# The paper's reference curves of Fig. 5: average queue (packets) against throughput x.
RED_CURVE = (1.73, 1)  # 1.73 / (1 - x)
DT_CURVE = (0.1, 3)  # 0.1 / (1 - x)^3

NODE5 = 4  # flow index of node 5 in floyd1993_fig12.toml


# ------------------------------------------------------------------ trace analysis


def evictions(event: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Which 'x' rows of a link's packet trace drop a packet that was already queued
    (Random Drop's eviction) rather than the arriving one: a drop whose previous event
    for the same packet (flow, sequence number) is an accepted arrival ('a' or 'm')."""
    n = len(event)
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    order = np.lexsort((np.arange(n), key))
    ks, es = key[order], event[order]
    same = ks[1:] == ks[:-1]
    prev_acc = np.isin(es[:-1], ("a", "m"))
    ev_sorted = np.zeros(n, dtype=bool)
    ev_sorted[1:] = (es[1:] == "x") & same & prev_acc
    out[order] = ev_sorted
    return out


def queue_seen(
    event: np.ndarray, time: np.ndarray, key: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """From one link direction's packet trace in file order ('a'/'m' accepted arrival,
    'd' start of transmission, 'x' drop), the arrivals and the number of packets waiting
    that each arrival found (the packet in transmission not counted).

    Returns ``(is_arrival, seen)``: a mask over the rows (accepted arrivals and dropped
    arrivals; a Random Drop eviction is not an arrival) and, for every row, the queue an
    arrival at that row saw (meaningful where ``is_arrival``)."""
    event = np.asarray(event)
    time = np.asarray(time, dtype=float)
    ev = evictions(event, np.asarray(key))
    acc = np.isin(event, ("a", "m"))
    delta = acc.astype(np.int64) - (event == "d") - ev
    after = np.cumsum(delta)
    before = after - delta
    seen = before.copy()
    # an accepted arrival that caused an eviction at the same instant saw the full buffer
    prev_ev = np.zeros(len(event), dtype=bool)
    prev_ev[1:] = ev[:-1] & (time[1:] == time[:-1])
    seen = seen + (acc & prev_ev)
    is_arrival = acc | ((event == "x") & ~ev)
    return is_arrival, seen


def drop_episodes(
    times: Sequence[float], flows: Sequence[int], gap: float = EPISODE_GAP
) -> Tuple[int, int]:
    """Group drops into episodes (a new episode after a quiet time longer than `gap`);
    returns (episodes, episodes in which more than one flow lost a packet)."""
    t = np.asarray(times, dtype=float)
    f = np.asarray(flows)
    if len(t) == 0:
        return 0, 0
    o = np.argsort(t, kind="stable")
    t, f = t[o], f[o]
    ep = np.concatenate([[0], np.cumsum(np.diff(t) > gap)])
    n = int(ep[-1]) + 1
    multi = sum(len(np.unique(f[ep == k])) > 1 for k in range(n))
    return n, int(multi)


def interval_stats(
    pk: pd.DataFrame, rate_bps: float, t0: float, t1: float, n_flows: int
) -> Dict[str, float]:
    """Statistics of one link direction's packet trace over [t0, t1): utilization (bytes
    that started transmission x 8 / rate / length), arrivals, drops, the mean queue seen
    by arrivals (``q_seen``), per-flow departures ``dep<i>``, drops ``drop<i>`` and
    arrivals ``arr<i>``. `pk` must carry the columns of ``queue_seen`` (``is_arrival``,
    ``seen``) and ``evicted``."""
    w = pk[(pk["time"] >= t0) & (pk["time"] < t1)]
    dep = w[w["event"] == "d"]
    drops = w[w["event"] == "x"]
    arr = w[w["is_arrival"]]
    out: Dict[str, float] = {
        "t0": t0,
        "utilization": float(dep["size"].sum()) * 8.0 / rate_bps / (t1 - t0),
        "arrivals": float(len(arr)),
        "departures": float(len(dep)),
        "drops": float(len(drops)),
        "q_seen": float(arr["seen"].mean()) if len(arr) else float("nan"),
    }
    dc = np.bincount(dep["flow"].to_numpy(dtype=np.int64), minlength=n_flows)
    xc = np.bincount(drops["flow"].to_numpy(dtype=np.int64), minlength=n_flows)
    ac = np.bincount(arr["flow"].to_numpy(dtype=np.int64), minlength=n_flows)
    for i in range(n_flows):
        out[f"dep{i}"] = float(dc[i])
        out[f"drop{i}"] = float(xc[i])
        out[f"arr{i}"] = float(ac[i])
    return out


def window_limited_rate(
    window: float,
    path: Sequence[Tuple[float, float]],
    pkt_bytes: float = 1000,
    ack_bytes: float = 40,
) -> float:
    """Largest throughput (packets/s) of a connection limited by its window: `window`
    packets per round trip over an empty network, the round trip being twice the sum of
    the propagation delays plus the transmission times of a data packet and of its ACK on
    every link. `path`: (rate b/s, delay s) of each link from source to sink."""
    rtt = sum(2 * d + pkt_bytes * 8 / r + ack_bytes * 8 / r for r, d in path)
    return window / rtt


def fit_constant(x: Sequence[float], q: Sequence[float], power: int) -> float:
    """The constant c of the curve q = c / (1 - x)^power that fits points (x, q) best in
    the least-squares sense on log q (the geometric mean of q (1 - x)^power); points with
    x >= 1 or q <= 0 are left out."""
    x = np.asarray(x, dtype=float)
    q = np.asarray(q, dtype=float)
    ok = (x < 1) & (q > 0)
    if not ok.any():
        return float("nan")
    return float(np.exp(np.mean(np.log(q[ok]) + power * np.log(1 - x[ok]))))


def centroid_ratio(drop_share: Sequence[float], throughput_share: Sequence[float]) -> float:
    """Where the centre of a drop-share vs throughput-share scatter lies relative to the
    diagonal: mean drop share / mean throughput share (1 on the diagonal)."""
    d = np.asarray(drop_share, dtype=float)
    t = np.asarray(throughput_share, dtype=float)
    if len(d) == 0 or np.nanmean(t) <= 0:
        return float("nan")
    return float(np.nanmean(d) / np.nanmean(t))


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    ra = pd.Series(np.asarray(a, dtype=float)).rank().to_numpy()
    rb = pd.Series(np.asarray(b, dtype=float)).rank().to_numpy()
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def share(num: Sequence[float], den: Sequence[float]) -> float:
    """sum(num) / sum(den), NaN when the denominator is 0 (pooled share)."""
    d = float(np.sum(den))
    return float(np.sum(num)) / d if d > 0 else float("nan")


# ------------------------------------------------------------------ the sweep runner


def run_periods(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Sweep runner: the simulator with a packet trace of the scenario's ``bottleneck``;
    returns the simulator's summary plus ``gateway`` (statistics over the measurement
    window [warmup, duration]) and ``periods`` (the same per ``PERIOD`` seconds; see
    :func:`interval_stats`), and drop episodes (``episodes``, ``episodes_multi``)."""
    from ..sim import Scenario, simulate

    sc = copy.deepcopy(dict(scenario))
    bn = sc["bottleneck"]
    sc["trace"] = {"packets": [bn]}
    res = simulate(Scenario.from_dict(sc), progress=False)
    summary = dict(res.summary)
    link = summary["links"][bn]
    pk = res.traces.get("packets")
    if pk is None or len(pk) == 0:
        pk = pd.DataFrame(
            {c: [] for c in ("time", "link", "event", "flow", "seq", "size", "ack", "ce")}
        )
    pk = pk[(pk["link"] == bn) & (pk["ack"] == 0)].reset_index(drop=True)
    event = pk["event"].to_numpy().astype(str)
    key = pk["flow"].to_numpy(dtype=np.int64) * (1 << 40) + pk["seq"].to_numpy(dtype=np.int64)
    is_arr, seen = queue_seen(event, pk["time"].to_numpy(), key)
    pk = pk.assign(is_arrival=is_arr, seen=seen)
    n_flows = len(summary["flows"])
    t_start = _secs(sc.get("warmup", 0))
    t_end = _secs(sc["duration"])
    g = interval_stats(pk, link["rate_bps"], t_start, t_end + 1e-12, n_flows)
    x = pk[pk["event"] == "x"]
    g["episodes"], g["episodes_multi"] = drop_episodes(x["time"].to_numpy(), x["flow"].to_numpy())
    g["mean_queue"] = link["mean_queue"]
    g["max_queue"] = link["max_queue"]
    g["early_drops"] = link["early_drops"]
    g["forced_drops"] = link["forced_drops"]
    periods = []
    t = t_start
    while t + PERIOD <= t_end + 1e-9:
        periods.append(interval_stats(pk, link["rate_bps"], t, t + PERIOD, n_flows))
        t += PERIOD
    summary["gateway"] = g
    summary["periods"] = periods
    return summary


def _secs(v: Any) -> float:
    """A duration of the scenario shape (seconds, or a string with a unit), in seconds."""
    return parse_time(v, "duration", allow_zero=True)


def _validate(scenario: Dict[str, Any]) -> None:
    from ..sweeps.runners import simulate as _sim

    _sim.validate(scenario)  # type: ignore[attr-defined]


def _warmup() -> None:
    from ..sweeps.runners import simulate as _sim

    _sim.warmup()  # type: ignore[attr-defined]


run_periods.validate = _validate  # type: ignore[attr-defined]
run_periods.warmup = _warmup  # type: ignore[attr-defined]


# ------------------------------------------------------------------ sweeps and their data


def _load_base(name: str) -> Dict[str, Any]:
    from ..sim import _load_toml

    base = _load_toml((_SCENARIOS / name).read_text())
    # the stored sweep is tied to the runner's version through the base scenario's hash
    base["notes"] = f"analysed by {RUNNER} version {RUNNER_VERSION}, aqmlab build {build_id()}"
    return base


def _run_sweep(ctx: Context, spec: Dict[str, Any], tag: str) -> pd.DataFrame:
    """The group's sweep `tag`, stored beside the outputs (framework.stored_sweep)."""
    return stored_sweep(ctx, spec, "floyd1993-multirun", tag)


def periods_long(df: pd.DataFrame, keep: Sequence[str]) -> pd.DataFrame:
    """The sweep's wide ``periods[k].field`` columns as one row per (point, period)."""
    pat = re.compile(r"^periods\[(\d+)\]\.(.+)$")
    cols: Dict[int, Dict[str, str]] = {}
    for c in df.columns:
        m = pat.match(c)
        if m:
            cols.setdefault(int(m.group(1)), {})[m.group(2)] = c
    parts = []
    for k in sorted(cols):
        part = df[list(keep)].copy()
        part["period"] = k
        for f, c in cols[k].items():
            part[f] = df[c].to_numpy()
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def fig5_settings(quick: bool) -> Tuple[List[int], List[int], int]:
    """Drop Tail buffers, RED min_th values and runs per setting of Fig. 5: 11 values
    spread evenly over the paper's ranges (15-140 and 3-50), rounded; five runs each."""
    if quick:
        return [15, 40, 90, 140], [3, 12, 26, 50], 2
    dt = [int(v) for v in np.round(np.linspace(15, 140, 11))]
    red = [int(v) for v in np.round(np.linspace(3, 50, 11))]
    return dt, red, 5


def fig12_settings(quick: bool) -> Tuple[List[int], List[int], int]:
    """Buffers (Drop Tail and Random Drop), RED min_th values and runs per setting."""
    if quick:
        return [8, 12, 16, 22], [3, 6, 10, 14], 1
    return list(range(8, 23)), list(range(3, 15)), 3


def _red(min_th: int, max_th: int, limit: int) -> Dict[str, Any]:
    return {
        "type": "red",
        "limit": int(limit),
        "min_th": int(min_th),
        "max_th": int(max_th),
        "w_q": 0.002,
        "max_p": 0.02,
        "mean_pkt_size": 1000,
        "max_pkt_size": 1000,
    }


_CACHE: Dict[Tuple[str, str, bool], pd.DataFrame] = {}


def fig5_spec(quick: bool) -> Dict[str, Any]:
    """The sweep of Fig. 5: one zipped axis setting the gateway's queue and the sources'
    preparation delay (Drop Tail points) together; the runs of a setting by seed."""
    dt, red, reps = fig5_settings(quick)
    values, labels = [], []
    for b in dt:
        values.append([{"type": "droptail", "limit": b}, PREP_T, PREP_T])
        labels.append(f"droptail:{b}")
    for m in red:
        values.append([_red(m, 3 * m, 100), 0.0, 0.0])
        labels.append(f"red:{m}")
    spec = {
        "name": "floyd1993-fig5",
        "base": _load_base("floyd1993_fig5.toml"),
        "runner": RUNNER,
        "replications": reps,
        "metrics": ["gateway.*"],
        "axis": [
            {
                "name": "setting",
                "paths": ["link[2].queue_ab", "flow[0].prep_delay", "flow[1].prep_delay"],
                "values": values,
                "labels": labels,
            }
        ],
    }
    return spec


def _split_setting(frame: pd.DataFrame) -> None:
    """Add `gateway` and `parameter` from the zipped axis label ``"<gateway>:<parameter>"``."""
    parts = frame["setting"].str.split(":")
    frame["gateway"] = parts.str[0]
    frame["parameter"] = parts.str[1].astype(int)


def _runs_frame(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run of a sweep: its setting, seed, gateway, parameter and the runner's
    ``gateway.*`` statistics (without the prefix)."""
    out = pd.DataFrame({"setting": df["setting"], "seed": df["seed"]})
    _split_setting(out)
    for c in df.columns:
        if c.startswith("gateway."):
            out[c[len("gateway.") :]] = df[c].to_numpy()
    return out


def fig5_data(ctx: Context) -> pd.DataFrame:
    key = ("fig5", str(ctx.out.parent), ctx.quick)
    if key in _CACHE:
        return _CACHE[key]
    df = _run_sweep(ctx, fig5_spec(ctx.quick), "fig5")
    out = _runs_frame(df)
    out["throughput"] = out["utilization"]
    # power: throughput over the gateway's mean delay in service times (waiting + own transmission)
    out["power"] = out["throughput"] / (out["q_seen"] + 1.0)
    _CACHE[key] = out
    return out


def fig12_spec(quick: bool) -> Dict[str, Any]:
    """The sweep of Figs. 12-15: Drop Tail (with preparation delay), Random Drop and RED
    points on one zipped axis; the runs of a setting by seed."""
    bufs, mins, reps = fig12_settings(quick)
    base = _load_base("floyd1993_fig12.toml")
    n = len(base["flow"])
    qpaths = ["link[4].queue_ab"] + [f"flow[{i}].prep_delay" for i in range(n)]
    values, labels = [], []
    for b in bufs:
        values.append([{"type": "droptail", "limit": b}] + [PREP_T] * n)
        labels.append(f"droptail:{b}")
    for b in bufs:
        values.append([{"type": "randomdrop", "limit": b}] + [0.0] * n)
        labels.append(f"randomdrop:{b}")
    for m in mins:
        values.append([_red(m, 2 * m, 4 * m)] + [0.0] * n)
        labels.append(f"red:{m}")
    spec = {
        "name": "floyd1993-fig12",
        "base": base,
        "runner": RUNNER,
        "replications": reps,
        "metrics": ["gateway.*", "periods[*].*"],
        "axis": [{"name": "setting", "paths": qpaths, "values": values, "labels": labels}],
    }
    return spec


def fig12_data(ctx: Context) -> pd.DataFrame:
    key = ("fig12", str(ctx.out.parent), ctx.quick)
    if key in _CACHE:
        return _CACHE[key]
    df = _run_sweep(ctx, fig12_spec(ctx.quick), "fig12")
    runs = _runs_frame(df)
    _CACHE[("fig12-runs",) + key[1:]] = runs
    long = periods_long(df, ["setting", "seed"])
    _split_setting(long)
    long["n5_throughput_share"] = long[f"dep{NODE5}"] / long["departures"]
    long["n5_drop_share"] = long[f"drop{NODE5}"] / long["drops"].where(long["drops"] > 0)
    long["n5_rate"] = long[f"dep{NODE5}"] / PERIOD
    _CACHE[key] = long
    return long


def fig12_runs(ctx: Context) -> pd.DataFrame:
    """One row per ten-second run of the Figs. 12-15 sweep (whole-run statistics)."""
    fig12_data(ctx)
    return _CACHE[("fig12-runs", str(ctx.out.parent), ctx.quick)]


def node5_max_rate() -> float:
    """Node 5's window-limited throughput (packets/s) in the network of Fig. 11."""
    base = _load_base("floyd1993_fig12.toml")
    f = base["flow"][NODE5]
    links = {(l["a"], l["b"]): l for l in base["link"]}
    path = [links[("n5", "g")], links[("g", "s")]]
    return window_limited_rate(
        f["max_window"],
        [(_rate(l["rate"]), _secs(l["delay"])) for l in path],
        f.get("packet_size", 1000),
        40,
    )


def _rate(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v)
    for suf, mul in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("bps", 1.0)):
        if s.endswith(suf):
            return float(s[: -len(suf)]) * mul
    return float(s)


def _link_capacity_pps() -> float:
    base = _load_base("floyd1993_fig12.toml")
    l = next(l for l in base["link"] if (l["a"], l["b"]) == ("g", "s"))
    return _rate(l["rate"]) / 8000.0


# ------------------------------------------------------------------ the experiments


@experiment(
    [
        (
            "floyd1993-fig5",
            "Drop Tail vs RED with two large-window connections: average queue vs throughput",
        ),
        (
            "floyd1993-fig12",
            "Bursty node 5 with Drop Tail gateways: throughput share, queue, utilization",
        ),
        (
            "floyd1993-fig13",
            "Bursty node 5 with Random Drop gateways: throughput share, queue, utilization",
        ),
        (
            "floyd1993-fig14",
            "Bursty node 5 with RED gateways: throughput share, queue, utilization vs min_th",
        ),
        (
            "floyd1993-fig15",
            "Node 5's share of drops against its share of throughput, per one-second period",
        ),
    ],
    paper=PAPER,
)
def multirun(ctx: Context) -> None:
    """Section V's Fig. 5 (network of Fig. 6) and Section IX's Figs. 12-15 (network of Fig. 11)."""
    if ctx.id == "floyd1993-fig5":
        _fig5(ctx)
    elif ctx.id == "floyd1993-fig15":
        _fig15(ctx)
    else:
        _fig12_14(ctx)


def _fig5(ctx: Context) -> None:
    import matplotlib.pyplot as plt

    dt_set, red_set, reps = fig5_settings(ctx.quick)
    ctx.assume(
        "Network of Fig. 6 as scenarios/floyd1993_fig5.toml states: 100 Mb/s access links of 1 and 4 ms, "
        "45 Mb/s 20 ms bottleneck, Tahoe with windows of 240 packets and an initial threshold of 120 "
        "(half the receiver's window), 1000-byte packets, 40-byte ACKs."
    )
    ctx.assume(
        "ftp1 starts at 0 s, ftp2 at a time drawn uniformly in [0, 0.1] s ('slightly different times'); "
        "the runs of one setting differ by seed (start time, preparation delays, RED's draws)."
    )
    ctx.assume(
        f"Drop Tail buffers {dt_set} and RED min_th {red_set} (11 values spread evenly over the paper's "
        "ranges, rounded; the paper does not list them); max_th = 3 min_th, buffer 100, w_q 0.002, "
        f"max_p 1/50; {reps} runs of 5 s per setting, measured over the whole run."
    )
    ctx.assume(
        "The packet-preparation delay U[0, 0.17 ms] only in the Drop Tail runs (the paper gives it "
        "for them); buffers and queues count waiting packets, not the one in transmission."
    )
    ctx.assume(
        "Throughput x = bottleneck utilization over the run (bytes that started transmission x 8 / "
        "45 Mb/s / 5 s, retransmissions included); average queue = mean over all arriving packets "
        "(dropped ones included) of the packets waiting when they arrived, from the gateway's packet trace."
    )
    ctx.assume(
        "Network power (the ratio of throughput to delay) = x / (q + 1): the gateway's mean delay is "
        "q + 1 service times (the waiting packets plus the packet's own transmission); the paper "
        "itself calls the average queue 'the average delay'."
    )
    ctx.assume(
        f"Drop episodes: drops less than {EPISODE_GAP:g} s apart (about two round-trip times) form "
        "one episode; an episode that hits both connections counts as synchronized."
    )
    df = fig5_data(ctx)
    ctx.save_data(df, "fig5_runs")
    means = df.groupby(["gateway", "parameter"], as_index=False)[
        ["throughput", "q_seen", "mean_queue", "power", "drops", "episodes", "episodes_multi"]
    ].mean()
    ctx.save_data(means, "fig5_settings")
    dt = df[df["gateway"] == "droptail"]
    red = df[df["gateway"] == "red"]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    xs = np.linspace(0.0, 0.995, 400)
    ax1.plot(
        dt["throughput"],
        dt["q_seen"],
        "s",
        mfc="none",
        color="C0",
        ms=5,
        label="Drop Tail (buffer 15-140)",
    )
    ax1.plot(red["throughput"], red["q_seen"], "o", color="C3", ms=4, label="RED (min_th 3-50)")
    ax1.plot(
        xs,
        RED_CURVE[0] / (1 - xs) ** RED_CURVE[1],
        "--",
        color="C3",
        lw=1,
        label="1.73/(1-x) (paper, RED)",
    )
    ax1.plot(
        xs,
        DT_CURVE[0] / (1 - xs) ** DT_CURVE[1],
        "--",
        color="C0",
        lw=1,
        label="0.1/(1-x)^3 (paper, Drop Tail)",
    )
    ymax = max(10.0, float(df["q_seen"].max()) * 1.15)
    ax1.set_ylim(0, ymax)
    ax1.set_xlim(min(0.4, float(df["throughput"].min()) - 0.02), 1.0)
    ax1.set_xlabel("throughput (fraction of the 45 Mb/s link)")
    ax1.set_ylabel("average queue seen by arrivals (packets)")
    ax1.set_title("Fig. 5: Drop Tail (squares) and RED (dots), one mark per 5 s run")
    ax1.legend(fontsize=8, loc="upper left")
    ax2.plot(dt["throughput"], dt["power"], "s", mfc="none", color="C0", ms=5, label="Drop Tail")
    ax2.plot(red["throughput"], red["power"], "o", color="C3", ms=4, label="RED")
    ax2.plot(
        xs, xs / (RED_CURVE[0] / (1 - xs) + 1), "--", color="C3", lw=1, label="from 1.73/(1-x)"
    )
    ax2.plot(
        xs, xs / (DT_CURVE[0] / (1 - xs) ** 3 + 1), "--", color="C0", lw=1, label="from 0.1/(1-x)^3"
    )
    ax2.set_xlim(ax1.get_xlim())
    ax2.set_xlabel("throughput (fraction of the 45 Mb/s link)")
    ax2.set_ylabel("network power = throughput / (queue + 1)")
    ax2.set_title("Network power (throughput / delay at the gateway)")
    ax2.legend(fontsize=8)
    ctx.save_fig(fig, "fig5")

    # The paper's approximations, fitted to aqmlab's runs with the paper's functional forms
    c_red = fit_constant(red["throughput"], red["q_seen"], RED_CURVE[1])
    c_dt = fit_constant(dt["throughput"], dt["q_seen"], DT_CURVE[1])
    ctx.compare.value(
        "RED: c in average queue ~ c/(1-x), fitted to the runs",
        RED_CURVE[0],
        c_red,
        0.3,
        relative=True,
    )
    ctx.compare.value(
        "Drop Tail: c in average queue ~ c/(1-x)^3, fitted to the runs",
        DT_CURVE[0],
        c_dt,
        0.3,
        relative=True,
    )
    dtm = means[means["gateway"] == "droptail"].sort_values("parameter")
    rho_x = spearman(dtm["parameter"], dtm["throughput"])
    rho_q = spearman(dtm["parameter"], dtm["q_seen"])
    ctx.compare.claim(
        "Drop Tail: throughput and average queue increase with the buffer (rank correlation of "
        "the per-buffer means > 0.8 for both)",
        rho_x > 0.8 and rho_q > 0.8,
        f"rank correlation {rho_x:.2f} (throughput), {rho_q:.2f} (queue)",
    )
    # Power at equal throughput, for high link utilization
    bins = np.arange(0.80, 1.0001, 0.05)
    won, compared, detail = 0, 0, []
    for lo, hi in zip(bins[:-1], bins[1:]):
        a = red[(red["throughput"] >= lo) & (red["throughput"] < hi)]["power"]
        b = dt[(dt["throughput"] >= lo) & (dt["throughput"] < hi)]["power"]
        if len(a) and len(b):
            compared += 1
            won += a.mean() > b.mean()
            detail.append(f"[{lo:.2f},{hi:.2f}): RED {a.mean():.3f} vs DT {b.mean():.3f}")
    if compared:
        ctx.compare.claim(
            "network power higher with RED than with Drop Tail at high utilization (mean power in "
            "every throughput bin of width 0.05 above 0.8 holding runs of both)",
            won == compared,
            f"{won} of {compared} bins; " + "; ".join(detail),
        )
    else:
        ctx.compare.not_reported(
            "network power, RED vs Drop Tail at high utilization",
            "no throughput bin above 0.8 holds runs of both",
            "RED higher",
        )
    ctx.compare.claim(
        "the best network power of any run is higher with RED than with Drop Tail",
        red["power"].max() > dt["power"].max(),
        f"RED {red['power'].max():.3f}, Drop Tail {dt['power'].max():.3f}",
    )
    sync_dt = share(dt["episodes_multi"], dt["episodes"])
    sync_red = share(red["episodes_multi"], red["episodes"])
    ctx.compare.claim(
        "Drop Tail drops packets of both connections at the same time more often than RED "
        "(fraction of drop episodes hitting both)",
        sync_dt > sync_red,
        f"Drop Tail {sync_dt:.2f}, RED {sync_red:.2f}",
    )
    lo_dt = dtm.iloc[0]
    ctx.compare.not_reported(
        f"Drop Tail, buffer {int(lo_dt['parameter'])}: mean throughput", float(lo_dt["throughput"])
    )
    ctx.compare.not_reported(
        f"Drop Tail, buffer {int(dtm.iloc[-1]['parameter'])}: mean throughput / average queue",
        f"{dtm.iloc[-1]['throughput']:.3f} / {dtm.iloc[-1]['q_seen']:.1f}",
    )
    redm = means[means["gateway"] == "red"].sort_values("parameter")
    ctx.compare.not_reported(
        f"RED, min_th {int(redm.iloc[0]['parameter'])}..{int(redm.iloc[-1]['parameter'])}: "
        "mean throughput range",
        f"{redm['throughput'].min():.3f}..{redm['throughput'].max():.3f}",
    )
    hi_dt = dt[dt["throughput"] >= 0.7]
    small = dt[dt["parameter"] < np.median(dt_set)]
    top = dt[dt["parameter"] == max(dt_set)]
    x_top, q_top = float(top["throughput"].mean()), float(top["q_seen"].mean())
    ctx.note(
        f"Drop Tail: with the paper's form 0.1/(1-x)^3 the fitted constant is {c_dt:.3g}. The runs with the "
        f"smaller buffers (< {int(np.median(dt_set))}) reach a throughput of only "
        f"{small['throughput'].min():.2f}-{small['throughput'].max():.2f}, limited by Tahoe's slow recovery "
        "from its slow-start losses (each window then grows by one packet per ~45 ms round trip, far from "
        "the ~120 packets it needs within a 5 s run), and see "
        f"{small['q_seen'].min():.1f}-{small['q_seen'].max():.1f} packets waiting on arrival where the curve "
        f"gives {DT_CURVE[0] / (1 - small['throughput'].min()) ** 3:.1f}-"
        f"{DT_CURVE[0] / (1 - small['throughput'].max()) ** 3:.1f}; the largest buffer reaches {x_top:.2f} "
        f"with {q_top:.0f} packets, where the curve gives {DT_CURVE[0] / (1 - x_top) ** 3:.0f}. "
        f"Fitted on the runs with throughput >= 0.7 only: "
        f"{fit_constant(hi_dt['throughput'], hi_dt['q_seen'], 3):.3g}; with the time-average queue instead "
        f"of the queue seen by arrivals: {fit_constant(dt['throughput'], dt['mean_queue'], 3):.3g} (all runs)."
    )
    for name, sub, c, p in (("RED", red, RED_CURVE[0], 1), ("Drop Tail", dt, DT_CURVE[0], 3)):
        resid = np.log(sub["q_seen"].clip(lower=1e-9)) - np.log(
            c / (1 - sub["throughput"].clip(upper=0.999)) ** p
        )
        ctx.note(
            f"{name}: aqmlab's runs lie a factor {math.exp(float(np.median(resid))):.2f} (median) from the "
            f"paper's curve; the fitted constant is {c_red if p == 1 else c_dt:.3g} against the paper's {c:g}."
        )


def _node5_panels(sub: pd.DataFrame, xlabel: str):
    import matplotlib.pyplot as plt

    cap = _link_capacity_pps()
    r5 = node5_max_rate()
    fig, axes = plt.subplots(3, 1, figsize=(7, 9), sharex=True)
    jitter = (sub["seed"] - sub["seed"].mean()) * 0.08
    x = sub["parameter"] + jitter
    axes[0].plot(x, 100 * sub["n5_throughput_share"], "o", ms=2.5, alpha=0.6)
    m = sub.groupby("parameter", as_index=False)[
        ["n5_throughput_share", "q_seen", "utilization"]
    ].mean()
    axes[0].plot(m["parameter"], 100 * m["n5_throughput_share"], "-", color="k", lw=1, label="mean")
    axes[0].axhline(
        100 * r5 / cap,
        ls="--",
        color="C3",
        lw=1,
        label=f"window-limited maximum ({r5:.0f} pkt/s = {100 * r5 / cap:.2f}% of the link)",
    )
    axes[0].set_ylabel("node 5 throughput (%)")
    axes[0].legend(fontsize=8)
    axes[1].plot(x, sub["q_seen"], "o", ms=2.5, alpha=0.6)
    axes[1].plot(m["parameter"], m["q_seen"], "-", color="k", lw=1)
    axes[1].set_ylabel("average queue (packets)")
    axes[2].plot(x, sub["utilization"], "o", ms=2.5, alpha=0.6)
    axes[2].plot(m["parameter"], m["utilization"], "-", color="k", lw=1)
    axes[2].set_ylabel("utilization")
    axes[2].set_xlabel(xlabel)
    return fig, axes, m


def _fig12_14(ctx: Context) -> None:
    gw = {"floyd1993-fig12": "droptail", "floyd1993-fig13": "randomdrop", "floyd1993-fig14": "red"}[
        ctx.id
    ]
    name = {"droptail": "Drop Tail", "randomdrop": "Random Drop", "red": "RED"}[gw]
    _assume_fig12(ctx)
    long = fig12_data(ctx)
    sub = long[long["gateway"] == gw].reset_index(drop=True)
    ctx.save_data(sub, f"{ctx.id.split('-')[1]}_periods")
    xlabel = (
        "min_th (packets); max_th = 2 min_th, buffer = 4 min_th"
        if gw == "red"
        else "buffer size (packets)"
    )
    fig, axes, m = _node5_panels(sub, xlabel)
    n = ctx.id.split("fig")[1]
    fig.suptitle(f"Fig. {n}: {name} gateway, network of Fig. 11 (one mark per one-second period)")
    ctx.save_fig(fig, f"fig{n}")
    ctx.save_data(m, f"fig{n}_means")

    r5 = node5_max_rate()
    pooled = share(sub[f"dep{NODE5}"], sub["departures"])
    drop_share = share(sub[f"drop{NODE5}"], sub["drops"])
    rate5 = float(sub["n5_rate"].mean())
    ctx.compare.not_reported(
        f"{name}: node 5's throughput share, all periods pooled (%)", 100 * pooled
    )
    ctx.compare.not_reported(
        f"{name}: node 5's share of the drops, all periods pooled (%)", 100 * drop_share
    )
    ctx.compare.not_reported(
        f"{name}: node 5's throughput / its window-limited maximum ({r5:.0f} pkt/s)", rate5 / r5
    )
    ctx.compare.not_reported(
        f"{name}: average queue range over the settings (packets)",
        f"{m['q_seen'].min():.1f}..{m['q_seen'].max():.1f}",
    )
    ctx.compare.not_reported(
        f"{name}: utilization range over the settings",
        f"{m['utilization'].min():.3f}..{m['utilization'].max():.3f}",
    )
    rho = spearman(m["parameter"], m["n5_throughput_share"])
    if gw in ("droptail", "randomdrop"):
        ratio = drop_share / pooled if pooled > 0 else float("nan")
        ctx.compare.claim(
            f"{name}: node 5 packets have a disproportionate probability of being dropped "
            "(node 5's share of drops at least twice its share of throughput, pooled)",
            ratio >= 2.0,
            f"ratio {ratio:.2f}",
        )
        ctx.compare.claim(
            f"{name}: node 5's throughput share grows with the buffer (rank correlation of the "
            "per-buffer means > 0.8)",
            rho > 0.8,
            f"rank correlation {rho:.2f}",
        )
        small = sub[sub["parameter"] <= np.median(m["parameter"])]
        big = sub[sub["parameter"] == m["parameter"].max()]
        s_small = float(small["n5_rate"].mean()) / r5
        s_big = float(big["n5_rate"].mean()) / r5
        ctx.compare.claim(
            f"{name} penalizes node 5 unless the buffer is very large: below half its "
            f"window-limited throughput with the smaller buffers (<= {int(np.median(m['parameter']))}), "
            f"above 90% with the largest ({int(m['parameter'].max())})",
            s_small < 0.5 and s_big > 0.9,
            f"{s_small:.2f} and {s_big:.2f} of the maximum",
        )
        # the comparison the paper calls most appropriate: a RED gateway with the same average queue
        redm = (
            long[long["gateway"] == "red"]
            .groupby("parameter", as_index=False)[["q_seen", "n5_throughput_share"]]
            .mean()
            .sort_values("q_seen")
        )
        # only buffers where the gateway does drop (>= 3 drops per period on average, Fig. 15's cut)
        drops = sub.groupby("parameter")["drops"].mean()
        lossy = m[m["parameter"].map(drops) >= 3]
        inside = lossy[
            (lossy["q_seen"] >= redm["q_seen"].min()) & (lossy["q_seen"] <= redm["q_seen"].max())
        ]
        if len(inside):
            red_at = np.interp(inside["q_seen"], redm["q_seen"], redm["n5_throughput_share"])
            wins = int((red_at > inside["n5_throughput_share"].to_numpy()).sum())
            ctx.compare.claim(
                f"at the same average queue node 5 gets a larger share with RED than with {name} "
                "(every buffer with >= 3 drops per period whose average queue lies in RED's range)",
                wins == len(inside),
                f"{wins} of {len(inside)} buffers "
                f"({', '.join(str(int(b)) for b in inside['parameter'])})",
            )
        else:
            ctx.compare.claim(
                f"at the same average queue node 5 gets a larger share with RED than with {name}",
                False,
                "no buffer with an average queue inside RED's range",
            )
    else:
        ctx.compare.claim(
            "RED: node 5's throughput is close to its window-limited maximum (mean over all "
            "periods >= 80% of it)",
            rate5 / r5 >= 0.8,
            f"{rate5 / r5:.2f} of {r5:.0f} pkt/s",
        )
        low = sub[sub["parameter"] == m["parameter"].min()]
        ctx.compare.not_reported(
            f"RED, min_th {int(m['parameter'].min())}: node 5 throughput / maximum",
            float(low["n5_rate"].mean()) / r5,
        )
        runs = fig12_runs(ctx)
        r = runs[runs["gateway"] == "red"]
        ctx.compare.not_reported(
            "RED: share of the drops that are forced (buffer overflow or avg > max_th)",
            share(r["forced_drops"], r["drops"]),
        )
        r0 = r[r["parameter"] == r["parameter"].min()]
        rest = sub[sub["parameter"] > m["parameter"].min()]
        ctx.note(
            f"With the smallest min_th ({int(r0['parameter'].iloc[0])}: max_th "
            f"{2 * int(r0['parameter'].iloc[0])}, buffer {4 * int(r0['parameter'].iloc[0])}) "
            f"{100 * share(r0['forced_drops'], r0['drops']):.0f}% of RED's drops are forced (full buffer or "
            "average above max_th), which hit a burst of node 5 the way Drop Tail does; node 5 then gets "
            f"{float(low['n5_rate'].mean()) / r5:.2f} of its window-limited throughput, against "
            f"{float(rest['n5_rate'].mean()) / r5:.2f} over the larger min_th values."
        )


def _assume_fig12(ctx: Context) -> None:
    bufs, mins, reps = fig12_settings(ctx.quick)
    ctx.assume(
        "Network of Fig. 11 as scenarios/floyd1993_fig12.toml states: sources 1-4 on 100 Mb/s 1 ms links, "
        "node 5 on a 45 Mb/s 16 ms link, gateway -> sink 45 Mb/s 2 ms; Tahoe, windows 12 (1-4) and 8 "
        "(node 5), initial threshold half the window, 1000-byte packets, 40-byte ACKs."
    )
    ctx.assume(
        "Every connection starts at a time drawn uniformly in [0, 0.1] s; the runs of one setting differ "
        "by seed."
    )
    ctx.assume(
        f"Buffers {bufs[0]}-{bufs[-1]} (Drop Tail, Random Drop) and min_th {mins[0]}-{mins[-1]} (RED, "
        f"max_th = 2 min_th, buffer 4 min_th, w_q 0.002, max_p 1/50), {reps} ten-second run(s) per setting "
        "(the paper does not say how many); every one-second period is one mark, the first included."
    )
    ctx.assume(
        "The packet-preparation delay U[0, 0.17 ms] only with Drop Tail (the paper gives it for Drop "
        "Tail); Random Drop drops a packet chosen uniformly among the queued packets and the arrival."
    )
    ctx.assume(
        "Node 5's throughput share = its packets that left the gateway / all packets that left, per "
        "period; drop share likewise over the gateway's drops; average queue = mean over arriving "
        "packets of the packets waiting (the one in transmission not counted)."
    )


def _fig15(ctx: Context) -> None:
    import matplotlib.pyplot as plt

    _assume_fig12(ctx)
    ctx.note(
        "Periods with fewer than three drops are left out of the scatter and its statistics, "
        "as in the paper."
    )
    long = fig12_data(ctx)
    sc = long[long["drops"] >= 3].copy()
    ctx.save_data(
        sc[
            [
                "gateway",
                "parameter",
                "seed",
                "period",
                "drops",
                f"drop{NODE5}",
                "departures",
                f"dep{NODE5}",
                "n5_throughput_share",
                "n5_drop_share",
            ]
        ],
        "fig15_periods",
    )
    fig, ax = plt.subplots(figsize=(6.5, 6))
    style = {
        "droptail": ("s", "C0", "Drop Tail (Fig. 12)"),
        "randomdrop": ("^", "C2", "Random Drop (Fig. 13)"),
        "red": ("o", "C3", "RED (Fig. 14)"),
    }
    for gw, (mk, c, lab) in style.items():
        s = sc[sc["gateway"] == gw]
        ax.plot(
            100 * s["n5_throughput_share"],
            100 * s["n5_drop_share"],
            mk,
            color=c,
            ms=4,
            mfc="none" if gw != "red" else c,
            alpha=0.7,
            label=f"{lab}, {len(s)} periods",
        )
    top = max(5.0, float(100 * sc["n5_throughput_share"].max()) * 1.1) if len(sc) else 5.0
    ax.plot([0, top], [0, top], "k--", lw=1, label="drop share = throughput share")
    ax.set_xlabel("node 5's throughput (% of the total)")
    ax.set_ylabel("node 5's packet drops (% of all drops)")
    ax.set_title("Fig. 15: drops vs throughput of node 5, per one-second period (>= 3 drops)")
    ax.legend(fontsize=8)
    ctx.save_fig(fig, "fig15")

    ratios = {}
    for gw in style:
        s = sc[sc["gateway"] == gw]
        ratios[gw] = centroid_ratio(s["n5_drop_share"], s["n5_throughput_share"])
        pooled = (
            share(s[f"drop{NODE5}"], s["drops"]) / share(s[f"dep{NODE5}"], s["departures"])
            if len(s)
            else float("nan")
        )
        ctx.compare.not_reported(
            f"{style[gw][2]}: centre of the cluster (mean drop share, mean throughput share, %)",
            f"{100 * s['n5_drop_share'].mean():.2f}, {100 * s['n5_throughput_share'].mean():.2f}",
        )
        ctx.compare.not_reported(
            f"{style[gw][2]}: node 5's drops / throughput, all periods pooled", pooled
        )
    ctx.compare.claim(
        "RED: the cluster of dots is roughly centred on the diagonal (mean drop share / mean "
        "throughput share of the periods shown in [0.5, 2])",
        0.5 <= ratios["red"] <= 2.0,
        f"{ratios['red']:.2f}",
    )
    for gw in ("droptail", "randomdrop"):
        s = sc[sc["gateway"] == gw]
        ctx.compare.claim(
            f"{style[gw][2].split(' (')[0]}: node 5 gets a small fraction of the throughput but a "
            "large fraction of the drops (cluster centre: mean drop share at least twice the mean "
            "throughput share)",
            ratios[gw] >= 2.0,
            f"{ratios[gw]:.2f}",
        )
        above = (
            float((s["n5_drop_share"] > s["n5_throughput_share"]).mean())
            if len(s)
            else float("nan")
        )
        red_above = float(
            (
                sc[sc["gateway"] == "red"]["n5_drop_share"]
                > sc[sc["gateway"] == "red"]["n5_throughput_share"]
            ).mean()
        )
        ctx.compare.claim(
            f"more {style[gw][2].split(' (')[0]} periods than RED periods lie above the diagonal",
            above > red_above,
            f"{above:.2f} vs RED {red_above:.2f}",
        )
    mx = int(long["drops"].max())
    ctx.compare.value(
        "largest number of drops in a one-second period (paper: 'ranges from zero to 61')",
        61,
        mx,
        0.5,
        relative=True,
    )
    ctx.compare.claim(
        "some one-second periods have no drop (range starts at zero)",
        int(long["drops"].min()) == 0,
        f"minimum {int(long['drops'].min())}",
    )
