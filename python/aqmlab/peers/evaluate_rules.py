"""aqmlab's side of an E case (RFC 7928 point, see evaluate_cases.py) with ns-3's TCP
rules switched on in its flows, to see which rule closes which difference:

    python benchmarks/peers/evaluate_rules.py --scenario 5.2 --aqm pie,codel \
        --rules none,ns3 --seeds 1,2,3

Rule sets: ``none`` (aqmlab's defaults); ``ns3``: the CUBIC flows take NS3_CUBIC
(scenarios.py), every TCP flow ``rto_backoff = "ack"``, ``recover_rule = "beyond"``,
``fast_retransmit_timer = "keep"`` and ``rtt_sampling = "ack"`` (ns-3 3.37's socket);
``ns3-cubic``: NS3_CUBIC only; ``keep``: ``fast_retransmit_timer = "keep"`` only; ``pipe``:
``loss_ssthresh = "pipe"`` (ns-3's NewReno halves the packets in flight; a rule of its own,
so that ``ns3`` keeps the figures docs/peers.md gives for it); ``lt``: ``limited_transmit =
true`` (ns-3 3.37 with SACK sends while cwnd exceeds the pipe, so each SACKing duplicate
ACK before recovery releases a new packet); ``grow``:
``ecn_cwr = "grow"`` (the window grows in the round trip after an ECN reduction, which
neither ns-3 nor ns-2 does); ``noprep``: ``prep_delay = 0`` (ns-3
has no send jitter); ``minbytes``: the CoDel and FQ-CoDel queues take ``maxpacket`` one byte
below the packet size (ns-3 3.37's CoDel drops unless fewer than ``MinBytes`` bytes are
left, RFC 8289 and Linux unless at most ``maxpacket``); ``qlen``: the RED queues take
``min_backlog = 2`` (ns-2's and ns-3's
rule: no drop while at most one packet waits); ``noderand``: the PIE queues take
``derandomize = false`` (run ns-3 the same way: ``run --cases E-... --queue-set
derandomize=false``); ``pieburst``: the PIE queues take ``burst_reset = "quiet"`` (ns-3's
burst allowance rule); ``dev``: the bottleneck link takes ``device_queue = 1`` and its
queues a ``limit`` one less (ns-3's one-packet device queue under its queue disc);
several joined by '+' (``ns3+noprep``). Prints one line per run: the metrics `aqmlab
evaluate` writes, and each flow's timeouts. Needs aqmlab installed (full length).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import NS3_CUBIC  # noqa: E402

SOCKET = dict(
    rto_backoff="ack",
    recover_rule="beyond",
    fast_retransmit_timer="keep",
    rtt_sampling="ack",
)

#: rule -> keys every TCP flow takes ("ns3" and "ns3-cubic" add NS3_CUBIC to CUBIC flows)
FLOW_RULES: dict[str, dict[str, Any]] = {
    "none": {},
    "ns3": SOCKET,
    "ns3-cubic": {},
    "keep": {"fast_retransmit_timer": "keep"},
    "pipe": {"loss_ssthresh": "pipe"},
    "lt": {"limited_transmit": True},
    "grow": {"ecn_cwr": "grow"},
    "noprep": {"prep_delay": 0.0},
}
#: rule -> (queue types, keys those queues take); "maxpacket" None: the smallest packet
#: size less one byte
QUEUE_RULES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "qlen": (("red", "ared"), {"min_backlog": 2}),
    "minbytes": (("codel", "fq_codel"), {"maxpacket": None}),
    "noderand": (("pie",), {"derandomize": False}),
    "pieburst": (("pie",), {"burst_reset": "quiet"}),
}
#: rule -> keys the bottleneck link takes; its queues' ``limit`` shrinks by its
#: ``device_queue``, so that as many packets wait in all
LINK_RULES: dict[str, dict[str, Any]] = {"dev": {"device_queue": 1}}
RULES = (*FLOW_RULES, *QUEUE_RULES, *LINK_RULES)


def _queues(link: dict[str, Any]) -> list[dict[str, Any]]:
    """The queue tables of a link (both directions', when they differ)."""
    return [
        q for q in (link.get(k) for k in ("queue", "queue_ab", "queue_ba")) if isinstance(q, dict)
    ]


def _apply_link_rule(rule: str, d: dict[str, Any]) -> None:
    ends = set(d["bottleneck"].split("->"))
    for link in d["link"]:
        if {link["a"], link["b"]} == ends:
            link.update(LINK_RULES[rule])
            for q in _queues(link):
                if "limit" in q:
                    q["limit"] -= LINK_RULES[rule].get("device_queue", 0)


def _apply_queue_rule(rule: str, d: dict[str, Any]) -> None:
    types, keys = QUEUE_RULES[rule]
    for link in d["link"]:
        for q in _queues(link):
            if q.get("type") in types:
                q.update(keys)
                if "maxpacket" in keys:
                    q["maxpacket"] = min(f["packet_size"] for f in d["flow"]) - 1


def apply(rules: str, d: dict[str, Any]) -> None:
    """Switch the rule sets `rules` (several joined by '+': ``ns3+noprep``) on in the
    scenario dict `d` (its flows and its links' queues)."""
    for rule in rules.split("+"):
        if rule not in RULES:
            raise SystemExit(f"--rules: unknown {rule!r} ({', '.join(RULES)})")
        tcp = [f for f in d["flow"] if f.get("type", "tcp") == "tcp"]
        for f in tcp:
            f.update(FLOW_RULES.get(rule, {}))
            if rule in ("ns3", "ns3-cubic") and f.get("variant") == "cubic":
                f.update(NS3_CUBIC)
        if rule in LINK_RULES:
            _apply_link_rule(rule, d)
        if rule in QUEUE_RULES:
            _apply_queue_rule(rule, d)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="5.2", help="evaluate's scenario id (default 5.2)")
    ap.add_argument("--variant", default="default", help="its variant (6: an RTT, '10ms')")
    ap.add_argument("--aqm", default="red,codel,pie,fq_codel", help="queue types, comma-separated")
    ap.add_argument(
        "--rules",
        default="none,ns3",
        help=f"rule sets, comma-separated: {', '.join(RULES)}, or several joined by '+'",
    )
    ap.add_argument("--seeds", default="1", help="seeds, comma-separated (default 1)")
    ap.add_argument("--ecn", action="store_true", help="the scenario's ECN variant")
    a = ap.parse_args()
    from aqmlab.evaluate import point as evaluate_point

    base = evaluate_point.scenario_of
    for aqm in a.aqm.split(","):
        for rules in a.rules.split(","):
            for seed in (int(s) for s in a.seeds.split(",")):

                def built(pt: Any, rules: str = rules) -> dict[str, Any]:
                    d = base(pt)
                    apply(rules, d)
                    return d

                evaluate_point.scenario_of = built
                pt = dict(scenario=a.scenario, variant=a.variant, ecn=a.ecn, quick=False)
                row = evaluate_point.run(dict(pt, queue={"type": aqm}, seed=seed))
                flows = json.loads(row["flows_json"])
                per = " ".join(f"{f['class']}:timeouts={f.get('timeouts')}" for f in flows)
                print(
                    f"{aqm:8} {rules:9} seed {seed}: ratio {row['goodput_ratio']:.2f} "
                    f"util {row['utilization']:.3f} jain {row['jain']:.3f} "
                    f"delay {row['delay_mean'] * 1e3:.2f} ms p95 {row['delay_p95'] * 1e3:.1f} ms "
                    f"loss {row['loss_rate']:.2e}  {per}",
                    flush=True,
                )
    evaluate_point.scenario_of = base
    return 0


if __name__ == "__main__":
    sys.exit(main())
