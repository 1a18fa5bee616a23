"""The metrics of RFC 7928 Section 2, as pure functions of a run's summary and its
bottleneck's congestion signals (the ``drops`` trace as arrays of time and flow).

:func:`row` assembles one row of ``metrics.parquet`` (without the key columns and
``wall_time``); the functions it uses are each defined and tested on their own:

- :func:`loss_intervals`: mean and coefficient of variation of the time between
  consecutive congestion signals (drops and marks) at the bottleneck;
- :func:`loss_sync`: loss synchronization: signals closer than one base RTT to the
  previous one belong to the same congestion event; per event, the fraction of the
  long-lived flows that got a signal; the mean over events;
- :func:`jain`: Jain's fairness index;
- :func:`class_sums`, :func:`class_loss_rates`: per flow class;
- :func:`goodput_ratio`: the scenario's ratio of two classes' goodputs;
- :func:`fct`, :func:`startup_mean`: completion and start-up times of finite transfers,
  from the finite TCP flows and the web connections' per-row statistics.

NaN marks a metric that does not apply (no transfer, fewer than two signals, ...).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "in_window",
    "loss_intervals",
    "loss_sync",
    "jain",
    "fair_shares",
    "class_of",
    "class_sums",
    "class_loss_rates",
    "goodput_ratio",
    "RATIOS",
    "fct",
    "startup_mean",
    "row",
]

NAN = float("nan")

#: Scenario id -> (numerator class, denominator class) of ``goodput_ratio``.
RATIOS: dict[str, tuple[str, str]] = {
    "5.2": ("cubic", "bulk"),
    "5.4": ("ledbat", "bulk"),
    "6": ("rtt", "ref"),
    "l4s": ("prague", "cubic"),
}


def in_window(
    times: ArrayLike, flows: ArrayLike, start: float, end: float
) -> tuple[np.ndarray, np.ndarray]:
    """The signals with ``start <= time <= end``, sorted by time (stable)."""
    t = np.asarray(times, dtype=float)
    f = np.asarray(flows, dtype=np.int64)
    if t.shape != f.shape:
        raise ValueError(f"times and flows differ in length: {t.shape} and {f.shape}")
    keep = (t >= start) & (t <= end)
    t, f = t[keep], f[keep]
    order = np.argsort(t, kind="stable")
    return t[order], f[order]


def loss_intervals(times: ArrayLike) -> tuple[float, float]:
    """(mean, coefficient of variation) of the gaps between consecutive signal times;
    the CV is the population standard deviation over the mean. NaN, NaN with fewer
    than two signals; the CV is NaN when every gap is zero."""
    t = np.sort(np.asarray(times, dtype=float))
    if t.size < 2:
        return NAN, NAN
    gaps = np.diff(t)
    mean = float(gaps.mean())
    cv = float(gaps.std() / mean) if mean > 0 else NAN
    return mean, cv


def loss_sync(times: ArrayLike, flows: ArrayLike, long_lived: Iterable[int], rtt: float) -> float:
    """Loss synchronization: the signals of the `long_lived` flows, in time order, are
    cut into congestion events wherever a signal comes `rtt` or more after the previous
    one; each event scores the fraction of the long-lived flows among its signals; the
    result is the mean score. NaN with fewer than two long-lived flows or no signal."""
    ids = set(int(x) for x in long_lived)
    if len(ids) < 2:
        return NAN
    t = np.asarray(times, dtype=float)
    f = np.asarray(flows, dtype=np.int64)
    mine = np.isin(f, np.fromiter(ids, dtype=np.int64))
    t, f = t[mine], f[mine]
    if t.size == 0:
        return NAN
    order = np.argsort(t, kind="stable")
    t, f = t[order], f[order]
    starts = np.concatenate(([0], np.nonzero(np.diff(t) >= rtt)[0] + 1, [t.size]))
    scores = [len(set(f[a:b].tolist())) / len(ids) for a, b in zip(starts[:-1], starts[1:])]
    return float(np.mean(scores))


def jain(values: ArrayLike) -> float:
    """Jain's index (sum x)^2 / (n sum x^2): 1 for equal shares, 1/n when one takes all.
    NaN for no values or all zero."""
    x = np.asarray(values, dtype=float)
    sq = float((x * x).sum())
    if x.size == 0 or sq == 0:
        return NAN
    return float(x.sum() ** 2 / (x.size * sq))


def fair_shares(intervals: Sequence[tuple[float, float]], start: float, end: float) -> list[float]:
    """Each flow's fair share of a constant capacity over the window [start, end], as a
    fraction of the capacity: at every instant the flows active then (flow i over its
    `intervals[i]` = (begin, end)) share it equally; a flow's share is the time average
    over the window. Equal intervals give 1/n each; a flow never active gets 0."""
    spans = [(max(a, start), min(b, end)) for a, b in intervals]
    cuts = sorted({start, end, *(t for ab in spans for t in ab if start < t < end)})
    shares = [0.0] * len(spans)
    width = end - start
    for a, b in zip(cuts[:-1], cuts[1:]):
        on = [i for i, (x, y) in enumerate(spans) if x <= a and y >= b and y > x]
        for i in on:
            shares[i] += (b - a) / len(on) / width
    return shares


def class_of(name: str | None) -> str:
    """A flow's class from its summary name (``bulk``; a web connection ``web#3.7``)."""
    return (name or "").split("#", 1)[0]


def class_sums(classes: Sequence[str], values: Sequence[float]) -> dict[str, float]:
    """Sum of `values` per class, classes in order of first appearance."""
    out: dict[str, float] = {}
    for c, v in zip(classes, values):
        out[c] = out.get(c, 0.0) + float(v)
    return out


def class_loss_rates(
    classes: Sequence[str], drops: Sequence[float], sent: Sequence[float]
) -> dict[str, float]:
    """Per class: data packets lost / data packets sent (NaN when it sent nothing)."""
    d, s = class_sums(classes, drops), class_sums(classes, sent)
    return {c: d[c] / s[c] if s[c] > 0 else NAN for c in d}


def goodput_ratio(scenario: str, per_class: Mapping[str, float]) -> float:
    """The scenario's goodput ratio (:data:`RATIOS`): NaN for other scenarios or when
    both classes got nothing; infinite when only the denominator got nothing."""
    pair = RATIOS.get(scenario.split("+", 1)[0])
    if pair is None:
        return NAN
    num, den = per_class.get(pair[0], 0.0), per_class.get(pair[1], 0.0)
    if den > 0:
        return num / den
    return math.inf if num > 0 else NAN


def _weighted(
    single: Sequence[float], rows: Sequence[tuple[float, float | None]]
) -> tuple[float, float]:
    """(total weight, weighted sum): each single value weighs 1, a row (n, value) n;
    rows with n = 0 or no value are left out."""
    n = float(len(single))
    s = float(sum(single))
    for k, v in rows:
        if k > 0 and v is not None and not math.isnan(v):
            n += k
            s += k * v
    return n, s


def fct(
    single: Sequence[float], rows: Sequence[tuple[float, float | None, float | None]]
) -> tuple[float, float]:
    """(mean, 95th percentile) of completion times. `single`: the completion times of
    finite TCP flows; `rows`: (transfers, their mean completion time, their 95th
    percentile), either value None when the row does not give it (the simulator gives
    the mean per web connection and the percentile once per pool, over the pool's
    transfers). The mean is over every transfer; the percentile is the
    transfer-weighted mean of the sources' 95th percentiles (the finite flows' own
    percentile, weight their number; each pool's, weight its transfers), which is the
    percentile itself when there is one source, and an estimate of it otherwise. NaN,
    NaN without transfers."""
    n, s = _weighted(single, [(k, m) for k, m, _ in rows])
    if n == 0:
        return NAN, NAN
    mean = s / n
    p_single = [float(np.percentile(single, 95))] if len(single) else []
    pn, ps = _weighted([], [(len(single), p_single[0])] if p_single else [])
    qn, qs = _weighted([], [(k, p) for k, _, p in rows])
    p95 = (ps + qs) / (pn + qn) if pn + qn > 0 else NAN
    return mean, p95


def startup_mean(single: Sequence[float], rows: Sequence[tuple[float, float | None]]) -> float:
    """Mean start-up time (transfer start to its first data packet delivered) over the
    finite TCP flows' `single` times and the web connections' rows (transfers, mean)."""
    n, s = _weighted(single, rows)
    return s / n if n > 0 else NAN


def _pool(flow: Mapping[str, Any]) -> str:
    """A web connection's pool: its name without the connection index (``web#0.3`` ->
    ``web#0``); the pool's ``fct_p95`` is on its first row and covers all its transfers."""
    return str(flow.get("name") or "").rsplit(".", 1)[0]


def _active(
    flow: Mapping[str, Any], start: float, end: float, stops: Mapping[int, float | None]
) -> tuple[float, float]:
    """The part of [start, end] in which `flow` runs (from its start to its stop)."""
    stop = stops.get(int(flow["id"]))
    return max(start, float(flow["start"])), min(end, end if stop is None else float(stop))


def _num(x: Any) -> float | None:
    return None if x is None else float(x)


@dataclass(frozen=True)
class Layout:
    """What the metrics of a run need to know of its scenario."""

    #: the scenario's id (its goodput ratio's classes depend on it)
    scenario: str
    #: the class columns to write (NaN for a class the run lacks)
    classes: Sequence[str]
    #: the classes of the long-lived flows (Jain's index, loss synchronization)
    long_lived: Sequence[str]
    #: the base round-trip time, s (loss synchronization's window)
    base_rtt: float
    #: the bottleneck direction
    bottleneck: str = "l->r"


def _transfer_times(flows: list[Mapping[str, Any]], start: float) -> tuple[float, float, float]:
    """(FCT mean, FCT 95th percentile, start-up mean) of the finite transfers: the TCP
    transfers that complete and the web sources' transfers; start-up times only of the
    TCP flows that start inside the window (at or after `start`)."""
    finite = [x for x in flows if x["type"] == "tcp" and x.get("completion_time") is not None]
    webs = [x for x in flows if x["type"] == "web"]
    pools = class_sums([_pool(x) for x in webs], [x.get("transfers", 0) for x in webs])
    fct_mean, fct_p95 = fct(
        [float(x["completion_time"]) - float(x["start"]) for x in finite],
        [(x.get("transfers", 0), _num(x.get("mean_fct")), None) for x in webs]
        + [
            (pools[_pool(x)], None, _num(x["fct_p95"]))
            for x in webs
            if x.get("fct_p95") is not None
        ],
    )
    startups = [
        float(x["startup_time"])
        for x in flows
        if x["type"] == "tcp" and x.get("startup_time") is not None and x["start"] >= start
    ]
    webs_startup = [(x.get("transfers", 0), _num(x.get("mean_startup"))) for x in webs]
    return fct_mean, fct_p95, startup_mean(startups, webs_startup)


def row(
    layout: Layout,
    summary: Mapping[str, Any],
    signal_times: ArrayLike,
    signal_flows: ArrayLike,
    stops: Mapping[int, float | None] | None = None,
) -> dict[str, Any]:
    """The metric columns of one run of the scenario `layout` describes: `summary` is
    the simulator's, `signal_*` the bottleneck's congestion signals (every row of its
    ``drops`` trace), `stops` the stop time of each flow id that has one (the flow then
    runs from its ``start`` to its stop).

    Jain's index is over the long-lived flows' goodputs each divided by the flow's fair
    share (:func:`fair_shares`: equal split among the flows running at each instant), as
    Jain, Chiu and Hawe normalize by the fair allocation: when every long-lived flow runs
    through the whole window this is the plain index of the goodputs; in 8.2.5, whose
    extra flows run for a third of it, perfect sharing still gives 1. The start-up mean
    is over transfers that start inside the window (long-lived flows started before the
    warm-up are not transfers measured here)."""
    start, end = float(summary["warmup"]), float(summary["duration"])
    stops = stops or {}
    long_lived = layout.long_lived
    link = summary["links"][layout.bottleneck]
    flows: list[Mapping[str, Any]] = summary["flows"]
    cls = [class_of(f.get("name")) for f in flows]
    goodput = [float(f["goodput_bps"]) for f in flows]
    arrivals = link["arrivals"]
    t, f = in_window(signal_times, signal_flows, start, end)
    li_mean, li_cv = loss_intervals(t)
    ll_ids = [int(x["id"]) for x, c in zip(flows, cls) if c in long_lived]
    ll_rates = [g for g, c in zip(goodput, cls) if c in long_lived]
    shares = fair_shares(
        [_active(x, start, end, stops) for x, c in zip(flows, cls) if c in long_lived], start, end
    )
    fct_mean, fct_p95, startup = _transfer_times(flows, start)
    per_class = class_sums(cls, goodput)
    loss = class_loss_rates(cls, [x["drops"] for x in flows], [x["sent"] for x in flows])
    out: dict[str, Any] = {
        "goodput_bps": float(sum(goodput)),
        "utilization": float(link["utilization"]),
        "delay_mean": float(link["mean_delay"]),
        "delay_p50": float(link["delay_p50"]),
        "delay_p95": float(link["delay_p95"]),
        "delay_p99": float(link["delay_p99"]),
        "loss_rate": link["drops"] / arrivals if arrivals else NAN,
        "mark_rate": link["marks"] / arrivals if arrivals else NAN,
        "loss_interval_mean": li_mean,
        "loss_interval_cv": li_cv,
        "loss_sync": loss_sync(t, f, ll_ids, layout.base_rtt),
        "jain": jain([g / s for g, s in zip(ll_rates, shares) if s > 0]),
        "fct_mean": fct_mean,
        "fct_p95": fct_p95,
        "startup_mean": startup,
    }
    for c in layout.classes:
        out[f"goodput_bps_{c}"] = per_class.get(c, NAN)
    out["goodput_ratio"] = goodput_ratio(layout.scenario, per_class)
    for c in layout.classes:
        out[f"class_loss_rate_{c}"] = loss.get(c, NAN)
    return out
