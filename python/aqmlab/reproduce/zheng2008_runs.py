"""Zheng & Atiquzzaman 2008, Section 5: the runs of Figs. 4-16 and what is measured on
them (queue, drops by kind, per-server load, queueing delay, throughput, global
synchronization), and the study over seeds, start times and TCP variants.

One run is ``scenarios/zheng2008.toml`` with RED's weight set to w; its packet and
queue traces of the gateway's output give every series the figures plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..sim import Scenario, simulate
from .common import scenario_dict

#: The gateway's output (the bottleneck) in zheng2008.toml.
LINK = "gw->client"
SERVERS = ("server0", "server1", "server2")
#: w of Section 5.2.1 and of Section 5.2.2.
W_FIRST = (0.05, 0.0042)
W_SECOND = (0.045, 0.071, 0.002)
#: Bin of the per-server load series (s): a server is silent in a bin without a packet.
LOAD_BIN = 0.1
#: Drops closer than this (s) belong to one loss episode (a few round trips here).
EPISODE_GAP = 0.1
#: The first second (slow start of all three) is left out of the silence count.
SETTLE = 1.0


@dataclass
class Run:
    """One run of the paper's network at weight w, and what the figures need from it."""

    w: float
    link: dict[str, Any]  # the bottleneck's summary
    flows: pd.DataFrame  # per-flow summary
    queue: pd.DataFrame  # time, queue, avg at every arrival
    load: pd.DataFrame  # per LOAD_BIN: time, then Mb/s offered by each server
    drops: pd.DataFrame  # time, flow, kind ("early" | "forced" | "overflow")
    delay: pd.DataFrame  # time (arrival), delay (s) of every packet that left
    throughput: pd.DataFrame  # per 1 s: time, normalized throughput of the bottleneck
    stats: dict[str, float]


def base(w: float) -> dict[str, Any]:
    """zheng2008.toml with RED's weight w."""
    sc = scenario_dict("zheng2008.toml")
    sc["link"][3]["queue_ab"]["w_q"] = w
    return sc


def variant_of(sc: dict[str, Any], variant: str, start: Any | None, seed: int) -> None:
    """Set every server's TCP variant and start (None: as in the file), and the seed."""
    sc["seed"] = seed
    for f in sc["flow"]:
        f["variant"] = variant
        if start is not None:
            f["start"] = start


def classify_drops(
    pk: pd.DataFrame, q: pd.DataFrame, min_th: float, max_th: float, limit: int
) -> pd.DataFrame:
    """Each drop of the packet trace with its kind, from the queue sample the same arrival
    left: overflow if the buffer was full, forced if the average was at or above max_th,
    else early (RED's random drop between the thresholds)."""
    x = pk[pk["event"] == "x"][["time", "flow"]].sort_values("time")
    s = q[["time", "queue", "avg"]].sort_values("time")
    m = pd.merge_asof(x, s, on="time", direction="backward")
    kind = np.where(
        m["queue"] >= limit, "overflow", np.where(m["avg"] >= max_th, "forced", "early")
    )
    return pd.DataFrame({"time": m["time"], "flow": m["flow"], "kind": kind})


def waiting_times(pk: pd.DataFrame) -> pd.DataFrame:
    """Waiting time of every packet that left the FIFO: the k-th accepted arrival is the
    k-th departure (the trace writes an accepted arrival as 'a' or 'm', a dropped one as
    'x' only)."""
    acc = pk[pk["event"].isin(["a", "m"])]["time"].to_numpy()
    dep = pk[pk["event"] == "d"]["time"].to_numpy()
    n = min(len(acc), len(dep))
    return pd.DataFrame({"time": acc[:n], "delay": dep[:n] - acc[:n]})


def load_series(pk: pd.DataFrame, duration: float, size: int, n_flows: int) -> pd.DataFrame:
    """Mb/s each server offers the gateway, per LOAD_BIN (its data packets arriving,
    accepted or dropped)."""
    arr = pk[pk["event"].isin(["a", "m", "x"])]
    edges = np.arange(0.0, duration + LOAD_BIN / 2, LOAD_BIN)
    out = {"time": edges[:-1]}
    for f in range(n_flows):
        h, _ = np.histogram(arr[arr["flow"] == f]["time"], bins=edges)
        out[SERVERS[f] if f < len(SERVERS) else f"flow{f}"] = h * size * 8 / LOAD_BIN / 1e6
    return pd.DataFrame(out)


def sync_stats(load: pd.DataFrame, drops: pd.DataFrame, n_flows: int) -> dict[str, float]:
    """Global synchronization: the time every server is silent at once (bins after SETTLE
    with no packet from any), the number of such silences, the share of loss episodes
    that hit every server, and the mean pairwise correlation of the servers' loads
    (1 s bins)."""
    cols = list(load.columns[1 : 1 + n_flows])
    after = load[load["time"] >= SETTLE]
    silent = (after[cols] == 0).all(axis=1).to_numpy()
    starts = int(np.sum(silent[1:] & ~silent[:-1]) + (1 if silent.size and silent[0] else 0))
    t = drops["time"].to_numpy()
    episodes = np.cumsum(np.concatenate([[1], np.diff(t) > EPISODE_GAP])) if t.size else t
    hit_all = 0
    n_ep = int(episodes.max()) if t.size else 0
    if t.size:
        per = pd.DataFrame({"e": episodes, "flow": drops["flow"].to_numpy()})
        hit_all = int((per.groupby("e")["flow"].nunique() == n_flows).sum())
    coarse = load.groupby((load["time"] // 1.0).astype(int))[cols].mean()
    c = np.corrcoef(coarse.to_numpy().T)
    iu = np.triu_indices(n_flows, 1)
    return {
        "silent_all_s": float(silent.sum() * LOAD_BIN),
        "silences": float(starts),
        "loss_episodes": float(n_ep),
        "episodes_hitting_all": float(hit_all),
        "share_episodes_all": hit_all / n_ep if n_ep else float("nan"),
        "load_correlation": float(np.nanmean(c[iu])),
    }


def simulate_run(sc: dict[str, Any]) -> Run:
    """Run one scenario dict of this network and measure it."""
    s = Scenario.from_dict(sc)
    norm = s.normalized()
    (d,) = (d for d in norm["directions"] if d["name"] == LINK)
    red = d["queue"]
    size = int(norm["flows"][0]["packet_size"])
    duration = float(norm["duration"])
    res = simulate(s, progress=False)
    pk = res.traces["packets"]
    pk = pk[(pk["link"] == LINK) & (pk["ack"] == 0)]
    n = len(norm["flows"])
    link = res.summary["links"][LINK]
    if "queue" in res.traces:
        q = res.traces["queue"]
        q = q[q["link"] == LINK][["time", "queue", "avg"]].reset_index(drop=True)
        drops = classify_drops(pk, q, red["min_th"], red["max_th"], int(red["limit"]))
    else:  # the study: drops by kind from the summary only
        q = pd.DataFrame({"time": [], "queue": [], "avg": []})
        x = pk[pk["event"] == "x"]
        drops = pd.DataFrame({"time": x["time"], "flow": x["flow"], "kind": "unknown"})
    delay = waiting_times(pk)
    load = load_series(pk, duration, size, n)
    dep = pk[pk["event"] == "d"]["time"].to_numpy()
    edges = np.arange(0.0, duration + 0.5, 1.0)
    h, _ = np.histogram(dep, bins=edges)
    thr = pd.DataFrame({"time": edges[:-1], "normalized": h * size * 8 / d["rate_bps"]})
    stats = {
        "w": float(red["w_q"]),
        "mean_queue": float(link["mean_queue"]),
        "queue_sd": float(q["queue"].std()) if len(q) else float("nan"),
        "max_queue": float(link["max_queue"]),
        "mean_avg": float(link["mean_avg"]),
        "mean_delay": float(link["mean_delay"]),
        "delay_sd": float(np.sqrt(link["delay_var"])),
        "drops": float(link["drops"]),
        "early_drops": float(link["early_drops"]),
        "forced_drops": float(link["forced_drops"]),
        "overflow_drops": float(link["overflow_drops"]),
        "arrivals": float(link["arrivals"]),
        "utilization": float(link["utilization"]),
        "normalized_throughput": float(link["throughput_bps"] / d["rate_bps"]),
        "timeouts": float(res.flows["timeouts"].sum()),
    }
    stats["drop_rate"] = stats["drops"] / stats["arrivals"] if stats["arrivals"] else 0.0
    stats.update(sync_stats(load, drops, n))
    return Run(float(red["w_q"]), link, res.flows, q, load, drops, delay, thr, stats)


def paper_runs(ws: Sequence[float]) -> dict[float, Run]:
    """The paper's runs (scenario as in the file) for each w."""
    return {w: simulate_run(base(w)) for w in ws}


#: The study's axes: TCP variants and start-time rules (None: all at 0 s, as the file).
STUDY_VARIANTS = ("reno", "newreno")
STUDY_STARTS: dict[str, Any | None] = {
    "simultaneous": None,
    "staggered": {"uniform": [0.0, 2.0]},
}


def study(ws: Sequence[float], seeds: Sequence[int]) -> pd.DataFrame:
    """Every w under each TCP variant, start rule and seed: one row of stats per run."""
    rows: list[dict[str, Any]] = []
    for variant in STUDY_VARIANTS:
        for start_name, start in STUDY_STARTS.items():
            for seed in seeds:
                for w in ws:
                    sc = base(w)
                    variant_of(sc, variant, start, seed)
                    sc["trace"] = {"packets": [LINK]}
                    r = simulate_run(sc)
                    rows.append(dict(r.stats, variant=variant, start=start_name, seed=seed))
    return pd.DataFrame(rows)
