"""aqmlab's side of an E case (RFC 7928 point, see evaluate_cases.py) run in a behaviour
profile (aqmlab's `profile` key: ``rfc``, ``ns2``, ``ns3``, ``linux``; ``aqmlab profiles
NAME`` lists the keys each sets), with keys of one's own on top, to see which rule closes
which difference:

    python benchmarks/peers/evaluate_rules.py --scenario 5.2 --aqm pie,codel \
        --profiles rfc,ns3 --seeds 1,2,3

A profile spec is ``NAME`` or ``NAME+KEY=VALUE+...``: a plain ``KEY`` goes to every TCP
flow (``ns3+fast_retransmit_timer=restart``), ``queue.KEY`` to the queue of the
bottleneck's direction alone, not the reverse direction's (``rfc+queue.min_backlog=2``),
``link.KEY`` to the bottleneck link; a value is read as TOML (``true``, ``0``, ``"keep"``
or a bare word). What a profile sets for links (ns-3's
one-packet ``device_queue``) goes to the bottleneck link only, and its queues' ``limit``
shrinks by as much, so that as many packets wait in all (ns-3's device queue under its
queue disc); the profile's TCP and queue keys go wherever the scenario reader puts them.
A key written in the scenario wins over the profile, as always. Prints one line per run:
the metrics `aqmlab evaluate` writes, and each flow's timeouts. Needs aqmlab installed
(full length).

The former ``--rules`` sets, as profile specs: ``none`` = ``rfc`` (with the defaults of
their time, ``rfc+recover_rule="cover"+loss_ssthresh="cwnd"+app_limited="grow"``);
``ns3`` = ``rfc`` with the ns3 profile's CUBIC, timer and RTT keys; ``pipe`` =
``loss_ssthresh="pipe"``; ``lt`` = ``limited_transmit=true``; ``keep`` =
``fast_retransmit_timer="keep"``; ``grow`` = ``ecn_cwr="grow"``; ``noprep`` =
``prep_delay=0``; ``qlen`` = ``queue.min_backlog=2``; ``minbytes`` =
``queue.maxpacket=`` the packet size less one; ``noderand`` = ``queue.derandomize=false``;
``pieburst`` = ``queue.burst_reset="quiet"``; ``dev`` = ``link.device_queue=1``. The
``ns3`` profile holds them all but ``noprep`` (``ns3+pipe+lt+dev`` with PIE's, CoDel's
and RED's rules): the send jitter is the scenario's (``prep_delay``, which evaluate's
scenarios write), not a peer's rule, so ns-3's runs without it are ``ns3+prep_delay=0``,
as aqmlab's side of the ``-nsmode`` cases runs (evaluate_cases.profile_scenario, which
also gives PIE the point's derandomization).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from typing import Any

from aqmlab.base import load_toml

SCOPES = ("flow", "queue", "link")


def parse(spec: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """``NAME+KEY=VALUE+...`` -> (NAME, {scope: {key: value}})."""
    name, *sets = spec.split("+")
    keys: dict[str, dict[str, Any]] = {s: {} for s in SCOPES}
    for kv in sets:
        key, eq, text = kv.partition("=")
        if not eq or not key:
            raise SystemExit(f"--profiles: {kv!r} in {spec!r} is not KEY=VALUE")
        scope, dot, bare = key.partition(".")
        if not dot:
            scope, bare = "flow", key
        if scope not in SCOPES:
            raise SystemExit(f"--profiles: {key!r}: a flow key, queue.KEY or link.KEY")
        try:
            value = load_toml(f"v = {text}")["v"]
        except ValueError:
            value = text
        keys[scope][bare] = value
    return name, keys


def _bottleneck(d: dict[str, Any]) -> dict[str, Any]:
    ends = set(d["bottleneck"].split("->"))
    return next(lk for lk in d["link"] if {lk["a"], lk["b"]} == ends)


def _queues(link: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        q for q in (link.get(k) for k in ("queue", "queue_ab", "queue_ba")) if isinstance(q, dict)
    ]


def _forward_queue(d: dict[str, Any], link: dict[str, Any]) -> dict[str, Any]:
    """The queue table of the bottleneck's own direction of `link` (``queue_ab`` when the
    link runs as ``d["bottleneck"]`` does, else ``queue_ba``); a ``queue`` table that
    serves both directions is copied into that direction's first, so that keys written
    into it leave the reverse direction's queue (a Drop Tail) alone."""
    a, b = d["bottleneck"].split("->")
    side = "queue_ab" if (link["a"], link["b"]) == (a, b) else "queue_ba"
    if not isinstance(link.get(side), dict):
        link[side] = copy.deepcopy(link.get("queue") or {})
    return link[side]


def apply(spec: str, d: dict[str, Any]) -> None:
    """Run the scenario dict `d` in the profile spec `spec` (see the module's doc)."""
    from aqmlab.profiles import profile

    name, keys = parse(spec)
    try:
        prof = profile(name)
    except ValueError as e:
        raise SystemExit(f"--profiles: {e}") from e
    d["profile"] = name
    for f in d["flow"]:
        if f.get("type", "tcp") == "tcp":
            f.update(keys["flow"])
    # the profile's link keys on the bottleneck alone (see above), written into each
    # link so that the scenario's profile fills none; its queues one shorter
    bott = _bottleneck(d)
    bott.update(keys["link"])
    for lk in d["link"]:
        for k, v in prof["link"].items():
            lk.setdefault(k, v["value"] if lk is bott else 0)
    forward = _forward_queue(d, bott)
    for q in _queues(bott):
        if "limit" in q:
            q["limit"] -= int(bott.get("device_queue", 0))
    forward.update(keys["queue"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="5.2", help="evaluate's scenario id (default 5.2)")
    ap.add_argument("--variant", default="default", help="its variant (6: an RTT, '10ms')")
    ap.add_argument("--aqm", default="red,codel,pie,fq_codel", help="queue types, comma-separated")
    ap.add_argument(
        "--profiles",
        default="rfc,ns3",
        help="profile specs, comma-separated: NAME[+KEY=VALUE...] (rfc, ns2, ns3, linux)",
    )
    ap.add_argument("--seeds", default="1", help="seeds, comma-separated (default 1)")
    ap.add_argument("--ecn", action="store_true", help="the scenario's ECN variant")
    a = ap.parse_args()
    from aqmlab.evaluate import point as evaluate_point

    base = evaluate_point.scenario_of
    for aqm in a.aqm.split(","):
        for spec in a.profiles.split(","):
            parse(spec)
            for seed in (int(s) for s in a.seeds.split(",")):

                def built(pt: Any, spec: str = spec) -> dict[str, Any]:
                    d = base(pt)
                    apply(spec, d)
                    return d

                evaluate_point.scenario_of = built
                pt = dict(scenario=a.scenario, variant=a.variant, ecn=a.ecn, quick=False)
                row = evaluate_point.run(dict(pt, queue={"type": aqm}, seed=seed))
                flows = json.loads(row["flows_json"])
                per = " ".join(f"{f['class']}:timeouts={f.get('timeouts')}" for f in flows)
                print(
                    f"{aqm:8} {spec:9} seed {seed}: ratio {row['goodput_ratio']:.2f} "
                    f"util {row['utilization']:.3f} jain {row['jain']:.3f} "
                    f"delay {row['delay_mean'] * 1e3:.2f} ms p95 {row['delay_p95'] * 1e3:.1f} ms "
                    f"loss {row['loss_rate']:.2e}  {per}",
                    flush=True,
                )
    evaluate_point.scenario_of = base
    return 0


if __name__ == "__main__":
    sys.exit(main())
