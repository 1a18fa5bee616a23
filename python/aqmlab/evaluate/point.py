"""One point of ``aqmlab evaluate`` (scenario, variant, ECN, queue, seed) -> one row of
metrics: :data:`run`, the runner of the evaluation's sweeps.

``run(point)`` builds the scenario (:func:`.scenarios.build`), simulates it with the
bottleneck's congestion signals traced (``[trace] drops = ["l->r"]``, and ``"r->l"``
too in 9.2, into a temporary directory), and returns the metric columns of
:func:`.metrics.row` plus ``loss_target`` (the congestion level's target loss rate,
NaN outside 8.2-9.2's medium/mild/heavy scenarios) and ``flows_json`` (the per-flow
rows as a JSON string). ``run.validate(point)`` checks a point without running it.
A point is a dict::

    {"scenario": "8.2.3", "variant": "default", "ecn": False, "quick": True,
     "queue": {"type": "codel"}, "seed": 1}

and, on ``--tcp``'s axis, ``"tcp": "prague"``: every TCP flow sends with that variant
(:func:`aqmlab.compare.with_tcp`).

The module keeps no state between calls and prints nothing, so Dask workers can
import it and run points side by side; ``wall_time`` is the sweep's own column.
"""

from __future__ import annotations

import importlib
import json
import math
import tempfile
from collections.abc import Mapping
from typing import Any

from ..compare import with_tcp
from ..sim import Scenario, simulate
from ..sweeps.runners import Runner
from . import metrics, scenarios

__all__ = ["run", "scenario_of", "FLOW_COLUMNS", "POINT_KEYS"]

#: The keys of a point.
POINT_KEYS = ("scenario", "variant", "ecn", "quick", "queue", "seed")

#: The per-flow fields of ``flows_json`` (from the simulator's flow summary; ``class``
#: from the flow's name, ``fct`` = completion_time - start for a finite transfer).
FLOW_COLUMNS = (
    "flow",
    "class",
    "name",
    "type",
    "variant",
    "start",
    "goodput_bps",
    "throughput_bps",
    "sent",
    "delivered",
    "drops",
    "marks",
    "timeouts",
    "retransmits",
    "srtt",
    "completion_time",
    "fct",
    "startup_time",
    "transfers",
    "mean_fct",
    "fct_p95",
    "mean_startup",
    "rejected",
)


def _point(point: Mapping[str, Any]) -> tuple[str, str, bool, bool, Mapping[str, Any], int]:
    missing = [k for k in POINT_KEYS if k not in point]
    if missing:
        raise ValueError(
            f"point: missing {', '.join(missing)} (a point has {', '.join(POINT_KEYS)})"
        )
    sid = str(point["scenario"])
    ecn = bool(point["ecn"]) or sid.endswith("+ecn")
    queue = point["queue"]
    if not isinstance(queue, Mapping):
        raise ValueError(f"point.queue: expected a queue table, got {queue!r}")
    seed = point["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"point.seed: expected an integer, got {seed!r}")
    return sid.split("+", 1)[0], str(point["variant"]), ecn, bool(point["quick"]), queue, seed


def scenario_of(point: Mapping[str, Any]) -> dict[str, Any]:
    """The simulator scenario of `point`, with its congestion-signal trace."""
    sid, variant, ecn, quick, queue, seed = _point(point)
    data = scenarios.build(sid, variant, queue, seed, quick, ecn)
    tcp = point.get("tcp")
    if tcp:
        data = with_tcp(data, str(tcp))
    traced = [scenarios.BOTTLENECK]
    if scenarios.get(sid).both_directions:
        traced.append("r->l")
    data["trace"] = {"drops": traced}
    return data


def _signals(traces: Mapping[str, Any], link: str) -> tuple[Any, Any]:
    """(times, flows) of the congestion signals at `link` from the ``drops`` trace."""
    df = traces.get("drops")
    if df is None or len(df) == 0:
        return [], []
    mine = df[df["link"] == link]
    return mine["time"].to_numpy(dtype=float), mine["flow"].to_numpy(dtype="int64")


def _flow_rows(flows: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in flows:
        r: dict[str, Any] = {k: f.get(k) for k in FLOW_COLUMNS}
        r["flow"] = f["id"]
        r["class"] = metrics.class_of(f.get("name"))
        done = f.get("completion_time")
        r["fct"] = None if done is None else float(done) - float(f["start"])
        out.append(r)
    return out


def _json_value(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _run(point: dict[str, Any]) -> dict[str, Any]:
    """One point: simulate and measure (see the module doc)."""
    scenario = Scenario(scenario_of(point))
    sc = scenarios.get(str(point["scenario"]))
    stops = {int(f["id"]): f.get("stop") for f in scenario.normalized()["flows"]}
    with tempfile.TemporaryDirectory(prefix="aqmlab-evaluate-") as tmp:
        res = simulate(scenario, progress=False, trace_dir=tmp)
    times, flows = _signals(res.traces, scenarios.BOTTLENECK)
    layout = metrics.Layout(
        sc.id,
        scenarios.classes_of(sc.id),
        scenarios.LONG_LIVED,
        scenarios.BASE_RTT,
        scenarios.BOTTLENECK,
    )
    row = metrics.row(
        layout,
        res.summary,
        times,
        flows,
        stops={k: v for k, v in stops.items() if v is not None},
    )
    row["loss_target"] = sc.loss_target if sc.loss_target is not None else float("nan")
    rows = [{k: _json_value(v) for k, v in r.items()} for r in _flow_rows(res.summary["flows"])]
    row["flows_json"] = json.dumps(rows, allow_nan=False)
    return row


def _validate(point: dict[str, Any]) -> None:
    """Raise ValueError, naming the field, if `point` cannot run."""
    Scenario(scenario_of(point))


def _warmup() -> None:
    importlib.import_module("aqmlab.sim")
    importlib.import_module("pandas")  # the trace is read as a DataFrame


#: The runner: ``run(point) -> dict`` with ``run.validate(point)`` and ``run.warmup()``.
run = Runner(_run, validate=_validate, warmup=_warmup)
