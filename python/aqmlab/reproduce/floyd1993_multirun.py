"""Floyd & Jacobson 1993: the runs of the multi-run experiments (Fig. 5 and Figs. 12-15),
made through aqmlab.sweeps; the figures are in :mod:`.floyd1993_fig5` and
:mod:`.floyd1993_fig12`.

Fig. 5 (network of Fig. 6) and Figs. 12-15 (network of Fig. 11) are families of short
simulations. Each family is one sweep (``aqmlab.sweeps.sweep``): a zipped axis sets the
gateway's queue together with the sources' packet-preparation delay, replications vary
the seed. The sweep's runner, :data:`run_periods`, is the packet simulator plus a packet
trace of the gateway's output queue, from which it computes what the paper measures and
the simulator's summary does not give: the average queue *as seen by arriving packets*,
per-flow departures and drops, and the same per one-second period.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .common import ScenarioDict, SweepRunner, direction, scenario, simulate_normalized, sweep
from .context import Context

#: Length of a measurement period of Figs. 12-15 (s).
PERIOD = 1.0
#: The packet-preparation time bound t of Sections V and IX (s): "the bottleneck service time of 0.17 ms".
PREP_T = 0.17e-3
#: Drops closer than this (s) belong to one drop episode (for the synchronization count of Fig. 5).
EPISODE_GAP = 0.1

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
) -> tuple[np.ndarray, np.ndarray]:
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


def drop_episodes(times: ArrayLike, flows: ArrayLike, gap: float = EPISODE_GAP) -> tuple[int, int]:
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
) -> dict[str, float]:
    """Statistics of one link direction's packet trace over [t0, t1): utilization (bytes
    that started transmission x 8 / rate / length), arrivals, drops, the mean queue seen
    by arrivals (``q_seen``), per-flow departures ``dep<i>``, drops ``drop<i>`` and
    arrivals ``arr<i>``. `pk` must carry the columns of ``queue_seen`` (``is_arrival``,
    ``seen``) and ``evicted``."""
    w = pk[(pk["time"] >= t0) & (pk["time"] < t1)]
    dep = w[w["event"] == "d"]
    drops = w[w["event"] == "x"]
    arr = w[w["is_arrival"]]
    out: dict[str, float] = {
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
    path: Sequence[tuple[float, float]],
    pkt_bytes: float = 1000,
    ack_bytes: float = 40,
) -> float:
    """Largest throughput (packets/s) of a connection limited by its window: `window`
    packets per round trip over an empty network, the round trip being twice the sum of
    the propagation delays plus the transmission times of a data packet and of its ACK on
    every link. `path`: (rate b/s, delay s) of each link from source to sink."""
    rtt = sum(2 * d + pkt_bytes * 8 / r + ack_bytes * 8 / r for r, d in path)
    return window / rtt


def fit_constant(x: ArrayLike, q: ArrayLike, power: int) -> float:
    """The constant c of the curve q = c / (1 - x)^power that fits points (x, q) best in
    the least-squares sense on log q (the geometric mean of q (1 - x)^power); points with
    x >= 1 or q <= 0 are left out."""
    xa = np.asarray(x, dtype=float)
    qa = np.asarray(q, dtype=float)
    ok = (xa < 1) & (qa > 0)
    if not ok.any():
        return float("nan")
    return float(np.exp(np.mean(np.log(qa[ok]) + power * np.log(1 - xa[ok]))))


def centroid_ratio(drop_share: ArrayLike, throughput_share: ArrayLike) -> float:
    """Where the centre of a drop-share vs throughput-share scatter lies relative to the
    diagonal: mean drop share / mean throughput share (1 on the diagonal)."""
    d = np.asarray(drop_share, dtype=float)
    t = np.asarray(throughput_share, dtype=float)
    if len(d) == 0 or np.nanmean(t) <= 0:
        return float("nan")
    return float(np.nanmean(d) / np.nanmean(t))


def spearman(a: ArrayLike, b: ArrayLike) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    ra = pd.Series(np.asarray(a, dtype=float)).rank().to_numpy()
    rb = pd.Series(np.asarray(b, dtype=float)).rank().to_numpy()
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def share(num: ArrayLike, den: ArrayLike) -> float:
    """sum(num) / sum(den), NaN when the denominator is 0 (pooled share)."""
    d = float(np.sum(den))
    return float(np.sum(num)) / d if d > 0 else float("nan")


# ------------------------------------------------------------------ the sweep runner


def _periods(scenario: ScenarioDict) -> dict[str, Any]:
    """The simulator with a packet trace of the scenario's ``bottleneck``; returns the
    simulator's summary plus ``gateway`` (statistics over the measurement window
    [warmup, duration]) and ``periods`` (the same per ``PERIOD`` seconds; see
    :func:`interval_stats`), and drop episodes (``episodes``, ``episodes_multi``)."""
    sc = copy.deepcopy(dict(scenario))
    bn = sc["bottleneck"]
    sc["trace"] = {"packets": [bn]}
    res, norm = simulate_normalized(sc)
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
    t_start, t_end = norm["warmup"], norm["duration"]
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


#: The sweeps' runner (see :func:`_periods`).
run_periods = SweepRunner(
    _periods, ref="aqmlab.reproduce.floyd1993_multirun:run_periods", version=1
)


# ------------------------------------------------------------------ sweeps and their data


def periods_long(df: pd.DataFrame, keep: Sequence[str]) -> pd.DataFrame:
    """The sweep's wide ``periods[k].field`` columns as one row per (point, period)."""
    pat = re.compile(r"^periods\[(\d+)\]\.(.+)$")
    cols: dict[int, dict[str, str]] = {}
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


def fig5_settings(quick: bool) -> tuple[list[int], list[int], int]:
    """Drop Tail buffers, RED min_th values and runs per setting of Fig. 5: 11 values
    spread evenly over the paper's ranges (15-140 and 3-50), rounded; five runs each."""
    if quick:
        return [15, 40, 90, 140], [3, 12, 26, 50], 2
    dt = [int(v) for v in np.round(np.linspace(15, 140, 11))]
    red = [int(v) for v in np.round(np.linspace(3, 50, 11))]
    return dt, red, 5


def fig12_settings(quick: bool) -> tuple[list[int], list[int], int]:
    """Buffers (Drop Tail and Random Drop), RED min_th values and runs per setting."""
    if quick:
        return [8, 12, 16, 22], [3, 6, 10, 14], 1
    return list(range(8, 23)), list(range(3, 15)), 3


def _red(min_th: int, max_th: int, limit: int) -> dict[str, Any]:
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


def fig5_spec(quick: bool) -> dict[str, Any]:
    """The sweep of Fig. 5: one zipped axis setting the gateway's queue and the sources'
    preparation delay (Drop Tail points) together; the runs of a setting by seed."""
    dt, red, reps = fig5_settings(quick)
    values: list[list[Any]] = []
    labels = []
    for b in dt:
        values.append([{"type": "droptail", "limit": b}, PREP_T, PREP_T])
        labels.append(f"droptail:{b}")
    for m in red:
        values.append([_red(m, 3 * m, 100), 0.0, 0.0])
        labels.append(f"red:{m}")
    return {
        "name": "floyd1993-fig5",
        "base": run_periods.base("floyd1993_fig5.toml"),
        "runner": run_periods.ref,
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


def fig12_spec(quick: bool) -> dict[str, Any]:
    """The sweep of Figs. 12-15: Drop Tail (with preparation delay), Random Drop and RED
    points on one zipped axis; the runs of a setting by seed."""
    bufs, mins, reps = fig12_settings(quick)
    base = run_periods.base("floyd1993_fig12.toml")
    n = len(base["flow"])
    qpaths = ["link[4].queue_ab"] + [f"flow[{i}].prep_delay" for i in range(n)]
    values: list[list[Any]] = []
    labels = []
    for b in bufs:
        values.append([{"type": "droptail", "limit": b}] + [PREP_T] * n)
        labels.append(f"droptail:{b}")
    for b in bufs:
        values.append([{"type": "randomdrop", "limit": b}] + [0.0] * n)
        labels.append(f"randomdrop:{b}")
    for m in mins:
        values.append([_red(m, 2 * m, 4 * m)] + [0.0] * n)
        labels.append(f"red:{m}")
    return {
        "name": "floyd1993-fig12",
        "base": base,
        "runner": run_periods.ref,
        "replications": reps,
        "metrics": ["gateway.*", "periods[*].*"],
        "axis": [{"name": "setting", "paths": qpaths, "values": values, "labels": labels}],
    }


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
    """One row per run of Fig. 5, with its throughput and network power."""

    def build() -> pd.DataFrame:
        out = _runs_frame(sweep(ctx, "fig5", fig5_spec))
        out["throughput"] = out["utilization"]
        # power: throughput over the gateway's mean delay in service times (waiting + own transmission)
        out["power"] = out["throughput"] / (out["q_seen"] + 1.0)
        return out

    return ctx.once("fig5", build)


def fig12_data(ctx: Context) -> pd.DataFrame:
    """One row per one-second period of the Figs. 12-15 sweep, with node 5's shares."""

    def build() -> pd.DataFrame:
        long = periods_long(sweep(ctx, "fig12", fig12_spec), ["setting", "seed"])
        _split_setting(long)
        long["n5_throughput_share"] = long[f"dep{NODE5}"] / long["departures"]
        long["n5_drop_share"] = long[f"drop{NODE5}"] / long["drops"].where(long["drops"] > 0)
        long["n5_rate"] = long[f"dep{NODE5}"] / PERIOD
        return long

    return ctx.once("fig12", build)


def fig12_runs(ctx: Context) -> pd.DataFrame:
    """One row per ten-second run of the Figs. 12-15 sweep (whole-run statistics)."""
    return ctx.once("fig12-runs", lambda: _runs_frame(sweep(ctx, "fig12", fig12_spec)))


def node5_max_rate() -> float:
    """Node 5's window-limited throughput (packets/s) in the network of Fig. 11, over
    its path in the normalised scenario."""
    norm = scenario("floyd1993_fig12.toml").normalized()
    f = norm["flows"][NODE5]
    path = [direction(norm, p) for p in f["path"]]
    return window_limited_rate(
        f["tcp"]["max_window"],
        [(d["rate_bps"], d["delay"]) for d in path],
        f["packet_size"],
        f["tcp"]["ack_size"],
    )


def link_capacity_pps() -> float:
    """The bottleneck of the network of Fig. 11 in 1000-byte packets per second."""
    norm = scenario("floyd1993_fig12.toml").normalized()
    rate: float = direction(norm, norm["bottleneck"])["rate_bps"]
    return rate / 8000.0
