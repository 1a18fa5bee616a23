"""Identifying misbehaving users from the list of the n most recently marked packets
(Floyd & Jacobson 1993, Section X and Appendix).

A RED gateway marks (or drops) an arriving packet of connection i with a probability
roughly proportional to i's share p_i of the bandwidth through it. If it keeps the list
of the n most recently marked packets, S_{i,n}, the number of them that are i's, is
about Binomial(n, p_i), and Hoeffding's inequality gives

    Prob(S_{i,n} >= n (p_i + t)) <= exp(-2 n t^2),   0 <= t <= 1 - p_i.

So a connection whose share of the list exceeds a reference share p_ref (e.g. the fair
share 1/N) by more than ``t = sqrt(ln(1/alpha) / (2 n))`` is, with probability at least
1 - alpha, one whose bandwidth share is above p_ref: it is *flagged*.

This module computes the list from a packet trace, not inside the gateway: the
simulator's per-packet trace (``[trace] packets = ["a->b"]``, columns ``time, link,
event, flow, seq, size, ack, ce``; ``event`` "x" = dropped, "m" = ECN-marked) holds every
drop and mark with its flow, which is all the list needs. Functions:

- :func:`marks_from_trace` -- the drops/marks of one link direction, in time order;
- :func:`recent_marks` -- for every mark, each flow's count among the last n marks;
- :func:`flag_threshold` -- the share of the list above which a flow is flagged;
- :func:`false_flag_bound` -- Hoeffding's bound on the probability that a flow of a
  given bandwidth share reaches a given share of the list;
- :func:`identify_misbehaving` -- the flagged flows at every mark and per-flow
  statistics (share of marks, share of throughput, how often flagged);
- :func:`packet_shares` -- each flow's share of the packets that left (or arrived at) a
  link direction: the p_i the marks are compared with.

Units: times in seconds, shares and probabilities dimensionless, n in marks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from ..base import integer
from ._arrays import scalar_or_array

__all__ = [
    "RecentMarks",
    "marks_from_trace",
    "recent_marks",
    "flag_threshold",
    "false_flag_bound",
    "identify_misbehaving",
    "packet_shares",
]

MARK_EVENTS = ("x", "m")


def _select(
    packets: Any,
    link: str | None,
    events: Sequence[str],
    include_acks: bool,
    start: float | None,
    end: float | None,
):
    need = {"time", "event", "flow"}
    missing = need - set(packets.columns)
    if missing:
        raise ValueError(
            f"packets must have columns {sorted(need)} (the simulator's packets trace), "
            f"missing {sorted(missing)}"
        )
    sel = packets["event"].isin(list(events))
    if link is not None:
        if "link" not in packets.columns:
            raise ValueError("link given but packets has no 'link' column")
        sel &= packets["link"] == link
    elif "link" in packets.columns and packets.loc[sel, "link"].nunique() > 1:
        raise ValueError(
            f"packets holds several links {sorted(packets.loc[sel, 'link'].unique())}: give link"
        )
    if not include_acks and "ack" in packets.columns:
        sel &= packets["ack"] == 0
    if start is not None:
        sel &= packets["time"] >= start
    if end is not None:
        sel &= packets["time"] <= end
    return packets[sel]


def marks_from_trace(
    packets: Any,
    link: str | None = None,
    events: Sequence[str] = MARK_EVENTS,
    include_acks: bool = False,
    start: float | None = None,
    end: float | None = None,
):
    """The marked (ECN, event "m") and dropped (event "x") packets of one link direction.

    `packets`: the simulator's packets trace (a DataFrame with ``time, event, flow`` and
    usually ``link, ack``); `link`: the direction, e.g. ``"g->d"`` (needed if the trace
    holds several); `events`: which events count as marks (default drops and ECN marks:
    Section X's "marked" packets are dropped when the gateway signals by dropping);
    `include_acks`: count ACK packets too (default False: the list holds the data
    packets of connections); `start`, `end`: a time window (s). Returns a DataFrame
    ``time, flow`` in time order (stable for equal times).
    """
    ev = [str(e) for e in events]
    if not ev:
        raise ValueError("events must name at least one event, e.g. ('x', 'm')")
    m = _select(packets, link, ev, include_acks, start, end)
    out = m[["time", "flow"]].sort_values("time", kind="stable").reset_index(drop=True)
    return out


@dataclass
class RecentMarks:
    """For every mark k (in time order), each flow's count among the last n marks up to
    and including mark k.

    ``time[k]``, ``flow[k]``: the k-th mark; ``flows``: the flow ids, the columns of
    ``counts``; ``counts[k, j]``: marks of ``flows[j]`` in the list after mark k;
    ``listed[k] = min(k + 1, n)``: the list's length (it is full once n marks were seen).
    """

    n: int
    time: np.ndarray
    flow: np.ndarray
    flows: np.ndarray
    counts: np.ndarray
    listed: np.ndarray

    @property
    def full(self) -> np.ndarray:
        """Mask of the marks after which the list holds n marks."""
        return self.listed >= self.n

    def shares(self) -> np.ndarray:
        """counts / listed: each flow's share of the list after every mark."""
        if len(self.listed) == 0:
            return np.zeros((0, len(self.flows)))
        return self.counts / self.listed[:, None]

    def column(self, flow: Any) -> int:
        """Index of `flow` among ``flows``."""
        idx = np.flatnonzero(self.flows == flow)
        if len(idx) == 0:
            raise ValueError(f"flow {flow!r} never marked: known {list(self.flows)}")
        return int(idx[0])

    def exceedance(self, flow: Any, count: float) -> float:
        """Fraction of the full lists in which `flow` holds at least `count` marks
        (NaN if no list is full): the empirical Prob(S_{i,n} >= count)."""
        full = self.full
        if not full.any():
            return float("nan")
        return float(np.mean(self.counts[full, self.column(flow)] >= count - 1e-9))

    def to_frame(self):
        """Long DataFrame: one row per (mark, flow) with ``time, marked_flow, flow,
        count, share, listed``."""
        import pandas as pd

        k, j = len(self.time), len(self.flows)
        return pd.DataFrame(
            {
                "time": np.repeat(self.time, j),
                "marked_flow": np.repeat(self.flow, j),
                "flow": np.tile(self.flows, k),
                "count": self.counts.ravel(),
                "share": self.shares().ravel(),
                "listed": np.repeat(self.listed, j),
            }
        )


def recent_marks(marks: Any, n: int, flows: Iterable[Any] | None = None) -> RecentMarks:
    """Slide the list of the n most recently marked packets over `marks`.

    `marks`: a DataFrame ``time, flow`` in time order (:func:`marks_from_trace`) or a
    sequence of flow ids in mark order; `n`: the list's length (marks, >= 1); `flows`:
    the flows to count (default: every flow that is marked; a listed flow never
    marked gets a column of zeros). Cost: O(marks x flows) time and memory.
    """
    nn = integer("n", n, minimum=1)
    if hasattr(marks, "columns"):
        times = np.asarray(marks["time"], dtype=float)
        fl = np.asarray(marks["flow"])
    else:
        fl = np.asarray(list(marks))
        times = np.arange(len(fl), dtype=float)
    if flows is None:
        ids = np.unique(fl)
    else:
        ids = np.asarray(list(flows))
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"flows has duplicates: {list(ids)}")
        unknown = np.setdiff1d(np.unique(fl), ids)
        if len(unknown):
            raise ValueError(f"marks of flows {list(unknown)} not in flows {list(ids)}")
    k = len(fl)
    col = np.searchsorted(np.sort(ids), fl) if k else np.zeros(0, dtype=int)
    order = np.argsort(ids, kind="stable")
    ind = np.zeros((k, len(ids)), dtype=np.int64)
    if k:
        ind[np.arange(k), order[col]] = 1
    cum = np.cumsum(ind, axis=0)
    counts = cum.copy()
    if k > nn:
        counts[nn:] -= cum[:-nn]
    listed = np.minimum(np.arange(1, k + 1), nn)
    return RecentMarks(nn, times, fl, ids, counts, listed)


def flag_threshold(n: int, reference_share: float, alpha: float = 0.01) -> float:
    """The share of the last n marks above which a flow is flagged.

    ``reference_share + sqrt(ln(1 / alpha) / (2 n))``: by Hoeffding's inequality (Floyd
    & Jacobson Appendix, t = sqrt(ln(1/alpha)/(2n))), a flow whose bandwidth share is
    at most `reference_share` reaches this share of the list with probability at most
    `alpha`. `n` >= 1 marks; `reference_share` in [0, 1] (e.g. the fair share 1/N);
    `alpha` in (0, 1). May exceed 1 (then nothing can be flagged: n is too small).
    """
    nn = integer("n", n, minimum=1)
    p = float(reference_share)
    if not (0.0 <= p <= 1.0):
        raise ValueError(f"reference_share must be in [0, 1], got {reference_share!r}")
    a = float(alpha)
    if not (0.0 < a < 1.0):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return p + math.sqrt(math.log(1.0 / a) / (2.0 * nn))


@overload
def false_flag_bound(n: int, share: float, threshold: float) -> float: ...
@overload
def false_flag_bound(n: int, share: np.ndarray, threshold: float) -> np.ndarray: ...
def false_flag_bound(n: int, share: float | np.ndarray, threshold: float) -> float | np.ndarray:
    """Hoeffding's bound on Prob(S_{i,n} >= threshold n) for a flow whose marks are its
    with probability `share` each: exp(-2 n (threshold - share)^2) when threshold >
    share, else 1 (no bound). With threshold = c share this is Section X's
    exp(-2 n (c - 1)^2 p_i^2) (:func:`aqmlab.analysis.hoeffding_bound`)."""
    nn = integer("n", n, minimum=1)
    p = np.asarray(share, dtype=float)
    if np.any(~(p >= 0)) or np.any(p > 1):
        raise ValueError(f"share must be in [0, 1], got {share!r}")
    th = float(threshold)
    if not (0.0 <= th <= 1.0 + 1e-12):
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    out = np.where(th > p, np.exp(-2.0 * nn * (th - p) ** 2), 1.0)
    return scalar_or_array(out)


def packet_shares(
    packets: Any,
    link: str | None = None,
    event: str = "d",
    include_acks: bool = False,
    start: float | None = None,
    end: float | None = None,
    by: str = "packets",
) -> dict[Any, float]:
    """Each flow's share of the packets that left (`event` "d", default) or arrived at
    ("a") one link direction in [start, end]: the bandwidth share p_i of Section X.
    `by`: "packets" (RED in packet mode marks per packet) or "bytes". Returns
    ``{flow: share}`` summing to 1 (empty if nothing matched)."""
    if by not in ("packets", "bytes"):
        raise ValueError(f"by must be 'packets' or 'bytes', got {by!r}")
    sel = _select(packets, link, [event], include_acks, start, end)
    if by == "bytes":
        if "size" not in sel.columns:
            raise ValueError("by='bytes' needs a 'size' column")
        tot = sel.groupby("flow")["size"].sum()
    else:
        tot = sel.groupby("flow").size()
    s = float(tot.sum())
    return {k: float(x) / s for k, x in tot.items()} if s > 0 else {}


def identify_misbehaving(  # noqa: PLR0913 - the method's documented options, by name
    packets: Any,
    n: int = 100,
    link: str | None = None,
    threshold: float | None = None,
    reference_share: None | float | Mapping[Any, float] = None,
    alpha: float = 0.01,
    events: Sequence[str] = MARK_EVENTS,
    include_acks: bool = False,
    start: float | None = None,
    end: float | None = None,
) -> dict[str, Any]:
    """Flag the flows holding a large share of the n most recently marked packets.

    At every mark, flow i is flagged when its share of the last n marks (once the list
    is full) is at least its threshold: `threshold` if given (one share for all flows),
    else ``flag_threshold(n, p_ref_i, alpha)`` where p_ref_i is `reference_share` (a
    number for every flow or a ``{flow: share}`` mapping, e.g. each flow's throughput
    share) or, by default, the fair share 1/N of the N flows that sent packets through
    the link in the window. A flow at or below its reference share is then flagged
    with probability at most alpha at each mark (Hoeffding).

    `packets`: the simulator's packets trace (or a ``time, flow`` DataFrame of marks
    already selected, with no ``event`` column); `link`, `events`, `include_acks`,
    `start`, `end`: as :func:`marks_from_trace`.

    Returns a dict: ``recent`` (:class:`RecentMarks`), ``thresholds`` ({flow: share}),
    ``flagged`` (a DataFrame ``time, marked_flow, flagged`` with the tuple of flagged flows
    after each full-list mark), and ``per_flow`` (a DataFrame per flow: ``flow, marks,
    mark_share, throughput_share, reference_share, threshold, flagged_fraction,
    false_flag_bound`` -- the last is Hoeffding's bound on the flagged fraction for a
    flow whose marks follow its throughput share).
    """
    import pandas as pd

    nn = integer("n", n, minimum=1)
    is_trace = "event" in getattr(packets, "columns", [])
    if is_trace:
        marks = marks_from_trace(packets, link, events, include_acks, start, end)
        thr_share = packet_shares(packets, link, "d", include_acks, start, end)
    else:
        marks = packets[["time", "flow"]].sort_values("time", kind="stable").reset_index(drop=True)
        thr_share = {}
    flow_ids = sorted(set(thr_share) | set(np.unique(marks["flow"]).tolist()))
    rm = recent_marks(marks, nn, flows=flow_ids)
    ref = _reference_shares(reference_share, flow_ids)
    if threshold is not None:
        th = float(threshold)
        if not (0.0 < th <= 1.0):
            raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
        thr = {f: th for f in flow_ids}
    else:
        thr = {f: flag_threshold(nn, ref[f], alpha) for f in flow_ids}
    th_vec = np.array([thr[f] for f in rm.flows], dtype=float)
    full = rm.full
    flag = (rm.shares() >= th_vec[None, :] - 1e-12) & full[:, None]
    total = len(marks)
    per = []
    for j, f in enumerate(rm.flows):
        nm = int((rm.flow == f).sum())
        ts = thr_share.get(f, float("nan"))
        frac = float(flag[full, j].mean()) if full.any() else float("nan")
        per.append(
            {
                "flow": f,
                "marks": nm,
                "mark_share": nm / total if total else float("nan"),
                "throughput_share": ts,
                "reference_share": ref[f],
                "threshold": thr[f],
                "flagged_fraction": frac,
                "false_flag_bound": _flag_bound(nn, ts, thr[f]),
            }
        )
    flagged = _flagged(rm, flag)
    return {"recent": rm, "thresholds": thr, "flagged": flagged, "per_flow": pd.DataFrame(per)}


def _reference_shares(
    reference_share: None | float | Mapping[Any, float], flow_ids: Sequence[Any]
) -> dict[Any, float]:
    """Each flow's reference share: the one given for it, else the fair share 1/N."""
    n_flows = max(1, len(flow_ids))
    if isinstance(reference_share, Mapping):
        return {f: float(reference_share.get(f, 1.0 / n_flows)) for f in flow_ids}
    if reference_share is None:
        return {f: 1.0 / n_flows for f in flow_ids}
    return {f: float(reference_share) for f in flow_ids}


def _flag_bound(n: int, share: float, threshold: float) -> float:
    """Hoeffding's bound on the flagged fraction of a flow whose marks follow its
    throughput `share` (NaN where the share is unknown, 0 for a threshold above 1)."""
    if share != share:  # no throughput share known
        return float("nan")
    if threshold > 1:  # a share above 1 cannot be reached
        return 0.0
    return false_flag_bound(n, share, threshold)


def _flagged(rm: RecentMarks, flag: np.ndarray) -> Any:
    """``time, marked_flow, flagged``: the flows flagged after each mark of a full list."""
    import pandas as pd

    rows_idx = np.flatnonzero(rm.full)
    return pd.DataFrame(
        {
            "time": rm.time[rows_idx],
            "marked_flow": rm.flow[rows_idx],
            "flagged": [tuple(rm.flows[flag[k]].tolist()) for k in rows_idx],
        }
    )
