"""``aqmlab tune``'s command line and its text output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..base import integer
from ..units import parse_rate, parse_size, parse_time
from .advice import recommend
from .link import rate_text, seconds


def _val(p: dict[str, Any]) -> str:
    """A parameter's value and unit for the text output."""
    x, unit = p["value"], p["unit"]
    if isinstance(x, bool):
        s = "on" if x else "off"
    elif isinstance(x, (int, float)):
        s = f"{x:.6g}" if not (isinstance(x, float) and x < 1e-3) else f"{x:.4g}"
    elif isinstance(x, list):
        s = "[" + ", ".join(f"{y:g}" for y in x) + "]"
    else:
        s = str(x)
    return f"{s} {unit}".strip()


def format_text(rec: dict[str, Any]) -> str:
    """The recommendation as plain text for people."""
    i, lk = rec["inputs"], rec["link"]
    lines = [
        f"aqmlab tune: {rate_text(i['rate_bps'])}, RTT {seconds(i['rtt_s'])}, {i['packet_size_bytes']:g}-byte packets, "
        f"target delay {seconds(i['target_delay_s'])}, bursts of {i['burst_packets']} packets",
        f"link: C = {lk['capacity_pkts_per_s']:.6g} packets/s ({seconds(lk['service_time_s'])} per packet), "
        f"delay-bandwidth product {lk['bdp_packets']:.6g} packets",
    ]
    titles = (
        ("red", "RED (Floyd & Jacobson 1993)"),
        ("adaptive_red", "Adaptive RED (Floyd, Gummadi & Shenker 2001)"),
        ("fred", "FRED (Lin & Morris 1997)"),
    )
    for key, title in titles:
        lines += ["", title]
        params = rec[key]["parameters"]
        width = max(len(n) for n in params)
        pad = " " * (width + 4)
        for name, p in params.items():
            lines.append(f"  {name:<{width}}  {_val(p):<20} {p['rule']}")
            lines.append(f"{pad}from: {p['source']}")
            if p.get("why"):
                lines.append(f"{pad}why:  {p['why']}")
        if key == "adaptive_red":
            lines.append(f"  adaptation: {rec[key]['adaptation']['explanation']}")
    z = rec["zheng"]
    lines += ["", "Zheng & Atiquzzaman 2008 bounds on w"]
    if z["available"]:
        inp = z["inputs"]
        lines.append(
            f"  w in [{z['lower']:.4g}, {z['upper']:.4g}] (eq. 14, eq. 21); inputs b = {inp['b']:.3g}, "
            f"q0 = {inp['q0']:.3g}, l1 = {inp['l1']:.3g}, g = {inp['g']:.3g}, m2 = {inp['m2_lower']:.3g} / "
            f"{inp['m2_upper']:.3g}"
        )
    else:
        lines.append(f"  not computed: {z['reason']}")
    pd = rec["predicted_delay"]
    lines += [
        "",
        "Predicted queueing delay",
        f"  Adaptive RED: {seconds(pd['adaptive_red']['delay_s'])} (target band {seconds(pd['adaptive_red']['band_s'][0])} - "
        f"{seconds(pd['adaptive_red']['band_s'][1])})",
        f"  RED:          {seconds(pd['red']['delay_range_s'][0])} - {seconds(pd['red']['delay_range_s'][1])} depending on load",
        f"  FRED:         {seconds(pd['fred']['delay_range_s'][0])} - {seconds(pd['fred']['delay_range_s'][1])}",
        f"  worst case (full buffer): {seconds(pd['worst_case_s'])}",
    ]
    if rec["warnings"]:
        lines += ["", "Warnings (where the rules conflict)"]
        lines += [f"  - [{w['code']}] {w['message']}" for w in rec["warnings"]]
    if rec["notes"]:
        lines += ["", "Notes"]
        lines += [f"  - {n}" for n in rec["notes"]]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``aqmlab tune``'s options to `parser`."""
    parser.add_argument(
        "--rate", required=True, help="link rate, e.g. 10Gbps, 100Mb/s (bits per second)"
    )
    parser.add_argument("--rtt", required=True, help="typical round-trip time, e.g. 50ms")
    parser.add_argument(
        "--packet-size",
        default="1500B",
        help="mean packet size, e.g. 1500 or 1500B (default 1500B)",
    )
    parser.add_argument(
        "--target-delay", default="5ms", help="average queueing delay wanted (default 5ms)"
    )
    parser.add_argument(
        "--burst", default="50", help="burst in packets to absorb without marking (default 50)"
    )
    parser.add_argument(
        "--trace",
        default=None,
        help="queue trace (Parquet or CSV from the simulator) to estimate Zheng & Atiquzzaman's bounds",
    )
    parser.add_argument("--trace-link", default=None, help="link direction in --trace, e.g. r1->r2")
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``aqmlab tune``; returns the exit code (2 with a message naming the option on bad input)."""
    try:
        rate = parse_rate(args.rate, "--rate")
        rtt = parse_time(args.rtt, "--rtt")
        size = parse_size(args.packet_size, "--packet-size")
        target = parse_time(args.target_delay, "--target-delay")
        burst = integer("--burst", args.burst, minimum=1)
        rec = recommend(
            rate, rtt, size, target, burst, trace=args.trace, trace_link=args.trace_link
        )
    except ValueError as e:
        print(f"aqmlab tune: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rec, indent=2, allow_nan=False))
    else:
        print(format_text(rec))
    return 0
