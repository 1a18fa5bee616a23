"""The E cases of the peer benchmark: `aqmlab evaluate`'s RFC 7928 scenarios in ns-3.

A case `E-<id>[-R<ms>]-<aqm>` (`E-5.2-codel`, `E-6-R10-red`) is one point of
`aqmlab evaluate`: scenario id, variant, queue `{type = aqm}` at its defaults, seed 1;
`E-...-nsmode` runs aqmlab's side in its `ns3` profile alone (ns-3's side is the same).
Both sides start from the same scenario dict, `aqmlab.evaluate.scenarios.build(...)`:

- aqmlab: `python evaluate_cases.py --aqmlab POINT.json` runs
  `aqmlab.evaluate.point.run(point)` (the very function `aqmlab evaluate` runs) and
  prints its metrics as one JSON line;
- ns-3: `params(scenario)` converts the normalised scenario (start times drawn, every
  default filled in) into the parameter file of `ns3/evaluate.cc` (dumbbell with
  per-flow access links; each flow's type, variant, IW, start, stop, rate; the
  bottleneck's rate, delay and queue), and `ns3_metrics` computes the same metric
  columns from the program's JSON line with `aqmlab.evaluate.metrics`.

Needs aqmlab importable (from python/). See docs/peers.md, "RFC 7928 scenarios".
"""

from __future__ import annotations

import fnmatch
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The scenarios of the comparison and their variants (6: R in ms).
SCENARIO_IDS = ("5.1.1", "5.2", "5.3.1", "5.3.2", "6", "8.2.2", "8.2.3", "8.2.4")
RTTS_MS = (10, 100, 400)
#: The scenarios of the comparison with an ECN variant in `aqmlab evaluate` (ECN-capable
#: TCP flows, the AQM marking): each also runs as `E-<id>-<aqm>-ecn`.
ECN_SCENARIO_IDS = ("5.1.1", "5.2", "5.3.1", "8.2.3")
#: The queue types ns3/evaluate.cc builds (RED and CoDel first).
AQMS = ("red", "codel", "pie", "fq_codel")
#: The compared metrics: (column, kind) with kind "pp" (2 points) or "rel" (15%).
COMPARED = (
    ("goodput_ratio", "pp"),
    ("utilization", "pp"),
    ("jain", "pp"),
    ("delay_mean", "rel"),
    ("delay_p95", "rel"),
    ("loss_rate", "rel"),
)
#: Flow fields of aqmlab's TCP model that ns3/evaluate.cc cannot set per flow and
#: takes once (all flows of a scenario share them).
SHARED_TCP = ("sack", "min_rto", "initial_rto", "tick", "max_window", "limited_transmit")
#: The suffix of the cases with aqmlab in ns-3's profile, and that profile.
NSMODE = "-nsmode"
NS3_PROFILE = "ns3"


def case_name(sid: str, variant: str, aqm: str, ecn: bool = False) -> str:
    suffix = "-ecn" if ecn else ""
    if sid == "6":
        return f"E-6-R{variant.removesuffix('ms')}-{aqm}{suffix}"
    return f"E-{sid}-{aqm}{suffix}"


def all_cases() -> list[tuple[str, str, str, str, bool, str]]:
    """(name, scenario id, variant, aqm, ecn, profile) of every E case, RED and CoDel
    first, each AQM's ECN cases after its others; then each again as `...-nsmode`, with
    aqmlab in its `ns3` profile alone (profile "ns3"; "" is the scenario's own)."""
    out = []
    for aqm in AQMS:
        for sid in SCENARIO_IDS:
            for v in [f"{r}ms" for r in RTTS_MS] if sid == "6" else ["default"]:
                out.append((case_name(sid, v, aqm), sid, v, aqm, False, ""))
        for sid in ECN_SCENARIO_IDS:
            out.append((case_name(sid, "default", aqm, True), sid, "default", aqm, True, ""))
    return out + [(c[0] + NSMODE, *c[1:5], NS3_PROFILE) for c in out]


def select(spec: str) -> list[tuple[str, str, str, str, bool, str]]:
    """The E cases named by one of the comma-separated items, or whose name starts with
    it or matches it as a shell-style pattern (`E-*-red`); an item that names a case
    exactly selects that case alone (`E-5.2-codel`, not also `E-5.2-codel-ecn`); the
    `-nsmode` cases only for items that say `-nsmode` (`E-*-nsmode`)."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    names = {c[0] for c in all_cases()}

    def hit(name: str, item: str) -> bool:
        if item in names:
            return name == item
        if name.endswith(NSMODE) and NSMODE not in item:
            return False
        return name.startswith(item) or fnmatch.fnmatchcase(name, item)

    picked = [c for c in all_cases() if any(hit(c[0], i) for i in items)]
    if not picked:
        raise ValueError(f"--cases {spec!r}: no E case matches (see --list)")
    return picked


def point(
    sid: str, variant: str, aqm: str, quick: bool, seed: int = 1, ecn: bool = False
) -> dict[str, Any]:
    return {
        "scenario": sid,
        "variant": variant,
        "ecn": ecn,
        "quick": quick,
        "queue": {"type": aqm},
        "seed": seed,
    }


def normalized(pt: Mapping[str, Any]) -> dict[str, Any]:
    """The normalised simulator scenario of a point (aqmlab draws the start times)."""
    from aqmlab.evaluate import point as evaluate_point
    from aqmlab.sim import Scenario

    return Scenario(evaluate_point.scenario_of(pt)).normalized()


def _fmt(x: Any) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return repr(x)
    return str(x)


def _link(links: Mapping[str, Mapping[str, Any]], name: str) -> tuple[Mapping, Mapping]:
    """(link, queue of that direction) of link direction `a->b`."""
    a, b = name.split("->")
    for lk in links.values():
        if (lk["a"], lk["b"]) == (a, b):
            return lk, lk.get("queue_ab") or lk["queue"]
        if (lk["a"], lk["b"]) == (b, a):
            return lk, lk.get("queue_ba") or lk["queue"]
    raise ValueError(f"link {name!r} not in the scenario")


def _queue_params(q: Mapping[str, Any]) -> dict[str, Any]:
    """The bottleneck queue's keys of ns3/evaluate.cc, from aqmlab's queue table."""
    t = q["type"]
    out: dict[str, Any] = {"queue": t, "limit": q["limit"], "queue_ecn": bool(q.get("ecn"))}
    if t == "red":
        if q["queue_in_bytes"] or q["byte_mode"] or q["mark_method"] != "uniform":
            raise ValueError("queue: only packet-mode RED with mark_method uniform converts")
        out.update(
            red_min_th=q["min_th"],
            red_max_th=q["max_th"],
            red_w_q=q["w_q"],
            red_max_p=q["max_p"],
            red_gentle=q["gentle"],
            red_mean_pkt_size=q["mean_pkt_size"],
        )
    elif t in ("codel", "fq_codel"):
        out.update(
            codel_target=q["target"], codel_interval=q["interval"], codel_maxpacket=q["maxpacket"]
        )
        if t == "fq_codel":
            out.update(
                fq_flows=q["flows"], fq_quantum=q["quantum"], fq_drop_batch=q["drop_batch_size"]
            )
    elif t == "pie":
        out.update(
            pie_target=q["target"],
            pie_tupdate=q["tupdate"],
            pie_alpha=q["alpha"],
            pie_beta=q["beta"],
            pie_max_burst=q["max_burst"],
            pie_rate_estimator=q["delay_mode"] == "rate_estimator",
            pie_dq_threshold=q["dq_threshold"],
            pie_mean_pkt_size=q["mean_pkt_size"],
            pie_derandomize=q["derandomize"],
            pie_mark_ecn_th=q["mark_ecn_th"],
        )
    elif t != "droptail":
        raise ValueError(
            f"queue.type {t!r}: ns3/evaluate.cc has droptail, red, codel, pie, fq_codel"
        )
    return out


def _flow_columns(
    flows: list[Mapping[str, Any]], links: Mapping[str, Any], bott: str
) -> dict[str, list[Any]]:
    """The per-flow lists of ns3/evaluate.cc's parameters (one value per flow)."""
    cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "flow_name",
            "flow_type",
            "flow_variant",
            "flow_iw",
            "flow_start",
            "flow_stop",
            "flow_rate",
            "flow_src_delay",
            "flow_src_rate",
            "flow_src_limit",
            "flow_dst_delay",
            "flow_dst_rate",
            "flow_dst_limit",
        )
    }
    for f in flows:
        path = f["path"]
        if len(path) != 3 or path[1] != bott:
            raise ValueError(f"flow {f['id']}: path {path} is not access -> bottleneck -> access")
        if f["type"] not in ("tcp", "cbr") or (f["type"] == "cbr" and (f["batch"] or 1) != 1):
            raise ValueError(f"flow {f['id']}: type {f['type']!r} (ns3/evaluate.cc: tcp, cbr)")
        src, sq = _link(links, path[0])
        dst, dq = _link(links, path[2])
        tcp = f.get("tcp") or {}
        cols["flow_name"].append(f["name"] or f"flow{f['id']}")
        cols["flow_type"].append(f["type"])
        cols["flow_variant"].append(tcp.get("variant", "-"))
        cols["flow_iw"].append(tcp.get("init_cwnd", 0))
        cols["flow_start"].append(f["start"])
        cols["flow_stop"].append(-1 if f["stop"] is None else f["stop"])
        # a CBR flow's rate from its normalised interval (one packet per interval)
        cols["flow_rate"].append(f["packet_size"] * 8 / f["interval"] if f["type"] == "cbr" else 0)
        cols["flow_src_delay"].append(src["delay"])
        cols["flow_src_rate"].append(src["rate_bps"])
        cols["flow_src_limit"].append(sq["limit"])
        cols["flow_dst_delay"].append(dst["delay"])
        cols["flow_dst_rate"].append(dst["rate_bps"])
        cols["flow_dst_limit"].append(dq["limit"])
    return cols


def params(sc: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of ns3/evaluate.cc for a normalised scenario (`normalized`).

    Every flow runs s<i> -> l -> r -> k<i> over its own access links; the flow lists
    hold one value per flow. The TCP settings that the program takes once must be
    the same for every TCP flow (they are in every evaluate scenario). The flows' send
    jitter (`prep_delay`) is not carried: the program's senders have none, and aqmlab's
    side of the `-nsmode` cases runs without it (`profile_scenario`)."""
    links = {str(i): lk for i, lk in enumerate(sc["links"])}
    bott = sc["bottleneck"]
    blink, bq = _link(links, bott)
    _, rq = _link(links, "->".join(reversed(bott.split("->"))))
    flows = sc["flows"]
    tcps = [f["tcp"] for f in flows if f["type"] == "tcp"]
    for key in SHARED_TCP:
        if len({json.dumps(t[key]) for t in tcps}) > 1:
            raise ValueError(f"flows: tcp.{key} differs between flows (ns-3 takes it once)")
    sizes = {f["packet_size"] for f in flows}
    if len(sizes) != 1:
        raise ValueError("flows: packet sizes differ (ns3/evaluate.cc takes one)")
    pkt = sizes.pop()
    t0 = tcps[0] if tcps else {}
    out: dict[str, Any] = {
        "name": sc["name"],
        "duration": sc["duration"],
        "warmup": sc["warmup"],
        "seed": sc["seed"],
        "bottleneck_rate": blink["rate_bps"],
        "bottleneck_delay": blink["delay"],
        "reverse_limit": rq["limit"],
        "packet_size": pkt,
        "segment_size": pkt - 40,
        "max_window": t0.get("max_window", 10000),
        "sack": t0.get("sack", True),
        "limited_transmit": t0.get("limited_transmit", False),
        "min_rto": t0.get("min_rto", 0.2),
        "init_rto": t0.get("initial_rto", 1.0),
        "tcp_tick": t0.get("tick", 0.01),
        "ecn": any(f["ecn"] for f in flows),
        "flows": len(flows),
        **_queue_params(bq),
    }
    out.update(_flow_columns(flows, links, bott))
    return out


def params_text(p: Mapping[str, Any]) -> str:
    lines = []
    for k, v in p.items():
        vals = v if isinstance(v, list) else [v]
        lines.append(k + " " + " ".join(_fmt(x) for x in vals))
    return "\n".join(lines) + "\n"


def parse_params(text: str) -> dict[str, Any]:
    """A parameter file back as {key: [values]} (flow lists) or {key: value}."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        parts = line.split()
        if parts:
            out[parts[0]] = parts[1:] if parts[0].startswith("flow_") else parts[1]
    return out


def ns3_metrics(sid: str, p: Mapping[str, Any], res: Mapping[str, Any]) -> dict[str, Any]:
    """aqmlab evaluate's metric columns from ns3/evaluate.cc's JSON line."""
    from aqmlab.evaluate import metrics, scenarios

    names = [metrics.class_of(n) for n in p["flow_name"]]
    gp = [float(x) for x in res["flow_goodput_bps"]]
    per_class = metrics.class_sums(names, gp)
    ll = [g for g, c in zip(gp, names) if c in scenarios.LONG_LIVED]
    out = {
        "goodput_bps": sum(gp),
        "utilization": res["utilization"],
        "delay_mean": res["delay_mean"],
        "delay_p95": res["delay_p95"],
        "loss_rate": res["loss_rate"],
        "jain": metrics.jain(ll),
        "goodput_ratio": metrics.goodput_ratio(sid, per_class),
        "wall_time": res["wall_time"],
    }
    for c, v in per_class.items():
        out[f"goodput_bps_{c}"] = v
    # per class: drops / arrivals at the bottleneck's queue disc (aqmlab's
    # class_loss_rate counts a flow's drops / packets sent; its access links drop none)
    if "flow_drops" in res:
        rates = metrics.class_loss_rates(names, res["flow_drops"], res["flow_arrivals"])
        for c, v in rates.items():
            out[f"class_loss_rate_{c}"] = v
    return out


def profile_scenario(pt: Mapping[str, Any], spec: str, base: Any = None) -> dict[str, Any]:
    """The scenario dict aqmlab runs for the point `pt` (`base`: the function building a
    point's scenario, aqmlab.evaluate.point.scenario_of) in the profile spec `spec`
    (evaluate_rules.apply; "": the point's own scenario). With a profile (the `-nsmode`
    cases), what ns3/evaluate.cc is given wins over the profile: PIE's derandomization as
    the point has it (params' pie_derandomize), and no send jitter (each TCP flow's
    `prep_delay` 0: ns-3's senders have none, and params carries none); a
    `prep_delay=...` key of the spec still sets one."""
    from aqmlab.evaluate import point as evaluate_point
    from aqmlab.sim import Scenario

    base = base or evaluate_point.scenario_of
    d = base(pt)
    if not spec:
        return d
    import evaluate_rules

    plain = Scenario(base(pt)).normalized()
    given = [lk.get("queue_ab") or {} for lk in plain["links"]]
    for f in d["flow"]:
        if f.get("type", "tcp") == "tcp":
            f["prep_delay"] = 0.0
    evaluate_rules.apply(spec, d)
    for q in evaluate_rules._queues(evaluate_rules._bottleneck(d)):
        pie = [g for g in given if g.get("type") == "pie"]
        if q.get("type") == "pie" and pie:
            q["derandomize"] = pie[0]["derandomize"]
    return d


def aqmlab_metrics(pt: Mapping[str, Any]) -> dict[str, Any]:
    """The row `aqmlab evaluate` writes for the point (aqmlab.evaluate.point.run), NaN as
    None; with a `profile` in the point, the point's scenario run in that profile alone
    (`profile_scenario`: the profile's keys wherever the scenario leaves them unsaid,
    what ns3/evaluate.cc is given over both)."""
    from aqmlab.evaluate import point as evaluate_point

    pt = dict(pt)
    spec = pt.pop("profile", "")
    base = evaluate_point.scenario_of
    if spec:

        def built(p: Any) -> dict[str, Any]:
            return profile_scenario(p, spec, base)

        evaluate_point.scenario_of = built
    try:
        row = evaluate_point.run(pt)
    finally:
        evaluate_point.scenario_of = base
    row.pop("flows_json", None)
    return {k: _clean(v) for k, v in row.items()}


def _clean(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def verdict(kind: str, aq: float | None, n3: float | None) -> str | None:
    """'ok' / 'DIFF': within 2 points (ratios, utilization, Jain) or 15% (the others)."""
    if aq is None or n3 is None or (isinstance(aq, float) and math.isnan(aq)):
        return None
    if kind == "pp":
        return "ok" if abs(aq - n3) <= 0.02 + 1e-12 else "DIFF"
    return "ok" if abs(aq - n3) <= 0.15 * abs(n3) + 1e-12 else "DIFF"


def delay_split(
    arrivals: list[float],
    starts: list[float],
    device: int = 1,
    window: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """The mean queueing delay at the bottleneck split in two: (mean time in the queue
    disc, mean time in the device queue below it), of packets given in the order of
    their transmissions with their arrival at the queue disc and the start of their
    transmission. RFC 7928's queueing delay at the bottleneck (both sides' `delay_mean`)
    is the sum, arrival to the start of transmission. A device of `device` packets takes a
    packet from the queue disc as soon as it has room: the k-th packet enters it at its
    arrival, or when the packet `device` transmissions before it leaves the device for
    the line, whichever is later (aqmlab's `device_queue`, ns-3's point-to-point device
    queue under the queue disc, flow control on). With `window`, the means are over the
    packets whose transmission starts inside it (the first packet's predecessor unknown,
    it enters at its arrival)."""
    if len(arrivals) != len(starts) or not arrivals:
        raise ValueError("delay_split: arrivals and starts must be equal, non-empty lists")
    if device < 0:
        raise ValueError(f"delay_split: device must be >= 0, got {device}")
    lo, hi = window if window is not None else (-math.inf, math.inf)
    disc = dev = 0.0
    n = 0
    for k, (a, s) in enumerate(zip(arrivals, starts)):
        if not a <= s:
            raise ValueError(f"delay_split: packet {k} starts ({s}) before it arrives ({a})")
        if not lo <= s <= hi:
            continue
        entry = s if device == 0 else max(a, starts[k - device]) if k >= device else a
        disc += entry - a
        dev += s - entry
        n += 1
    if n == 0:
        raise ValueError(f"delay_split: no transmission starts in the window {window}")
    return disc / n, dev / n


def aqmlab_transmissions(packets: Any, link: str) -> tuple[list[float], list[float]]:
    """(arrivals, starts) of the data packets aqmlab's packet trace (``[trace] packets``,
    a DataFrame) shows leaving `link`, in transmission order: each
    departure (`d`) paired with the earliest arrival (`a`, `m`) of the same flow and
    sequence number (and ACK flag) still queued; drops (`x`) take theirs out."""
    import collections

    queued: dict[tuple, collections.deque] = collections.defaultdict(collections.deque)
    arrivals: list[float] = []
    starts: list[float] = []
    rows = packets[packets["link"] == link]
    for t, ev, f, q, ack in zip(
        rows["time"], rows["event"], rows["flow"], rows["seq"], rows["ack"]
    ):
        key = (int(f), int(q), int(ack))
        if ev in ("a", "m"):
            queued[key].append(float(t))
        elif ev == "x":
            if queued[key]:
                queued[key].popleft()
        elif ev == "d":
            a = queued[key].popleft()
            arrivals.append(a)
            starts.append(float(t))
    return arrivals, starts


def ns3_transmissions(trace: str) -> tuple[list[float], list[float]]:
    """(arrivals, starts) from ns3/evaluate.cc's `trace_tx 1` lines (`tx TIME FLOW DELAY`:
    each transmission in the window, its start and its delay from the queue disc's
    enqueue), in transmission order."""
    arrivals: list[float] = []
    starts: list[float] = []
    for line in trace.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "tx":
            s, d = float(parts[1]), float(parts[3])
            arrivals.append(s - d)
            starts.append(s)
    return arrivals, starts


def aqmlab_delay_split(pt: Mapping[str, Any]) -> tuple[float, float]:
    """`delay_split` of the point's run in aqmlab (in its `profile`, as `aqmlab_metrics`
    runs it) over the window, from a packet trace of the bottleneck; device of the
    bottleneck link's `device_queue` packets."""
    import tempfile

    from aqmlab.evaluate import scenarios
    from aqmlab.sim import Scenario, simulate

    pt = dict(pt)
    d = profile_scenario(pt, pt.pop("profile", ""))
    d["trace"]["packets"] = [scenarios.BOTTLENECK]
    sc = Scenario(d)
    ends = scenarios.BOTTLENECK.split("->")
    device = next(
        lk["device_queue"]
        for lk in sc.normalized()["links"]
        if [lk["a"], lk["b"]] in (ends, ends[::-1])
    )
    with tempfile.TemporaryDirectory(prefix="aqmlab-delay-split-") as tmp:
        res = simulate(sc, progress=False, trace_dir=tmp)
    a, s = aqmlab_transmissions(res.traces["packets"], scenarios.BOTTLENECK)
    window = (float(res.summary["warmup"]), float(res.summary["duration"]))
    return delay_split(a, s, device, window)


def main(argv: list[str] | None = None) -> int:
    """`--aqmlab POINT.json`: run the point in aqmlab and print its metrics;
    `--params POINT.json OUT`: write ns-3's parameter file (and print it as JSON);
    `--ns3 ID PARAMS RESULT.json`: the metrics of ns3/evaluate.cc's result line;
    `--delay-split POINT.json`: aqmlab's mean delay of the point (with its `profile`)
    split into queue disc and device queue (`delay_split`); `--delay-split-ns3 TRACE`:
    the same of ns3/evaluate.cc's `trace_tx 1` lines (its stderr)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "--aqmlab":
        pt = json.loads(Path(args[1]).read_text())
        print(json.dumps(aqmlab_metrics(pt)))
        return 0
    if len(args) == 4 and args[0] == "--ns3":
        p = parse_params(Path(args[2]).read_text())
        res = json.loads(Path(args[3]).read_text())
        print(json.dumps({k: _clean(v) for k, v in ns3_metrics(args[1], p, res).items()}))
        return 0
    if len(args) == 2 and args[0] == "--delay-split":
        pt = json.loads(Path(args[1]).read_text())
        disc, dev = aqmlab_delay_split(pt)
        print(json.dumps({"sim": "aqmlab", "delay_qdisc": disc, "delay_device": dev}))
        return 0
    if len(args) == 2 and args[0] == "--delay-split-ns3":
        a, s = ns3_transmissions(Path(args[1]).read_text())
        disc, dev = delay_split(a, s)
        print(json.dumps({"sim": "ns3", "delay_qdisc": disc, "delay_device": dev}))
        return 0
    if len(args) == 3 and args[0] == "--params":
        pt = json.loads(Path(args[1]).read_text())
        p = params(normalized(pt))
        Path(args[2]).write_text(params_text(p))
        print(json.dumps(p))
        return 0
    print(
        "usage: evaluate_cases.py --aqmlab POINT.json | --params POINT.json OUT"
        " | --ns3 ID PARAMS RESULT.json | --delay-split POINT.json | --delay-split-ns3 TRACE",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
