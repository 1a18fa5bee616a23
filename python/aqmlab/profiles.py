"""Behaviour profiles: named sets of scenario keys that make the simulator behave as a
peer does (``rfc``, the default; ``ns2``; ``ns3``; ``linux``). A scenario names one at
its top (``scenario["profile"] = "ns2"``), on a flow or on a queue table; a key written
in the scenario wins over the profile. ``aqmlab profiles [NAME]`` prints them; the
simulator's summary records what each filled (``summary["profiles"]``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ._native import sim_profiles


def profiles() -> list[dict[str, Any]]:
    """Every profile, ``rfc`` first: ``name``, ``about``, and the keys it sets for TCP
    flows (``tcp``), queues by type (``queue``) and links (``link``), each key with its
    ``value`` and ``why`` (the peer's name for it)."""
    return list(sim_profiles())


def profile(name: str) -> dict[str, Any]:
    """The profile called `name`; ValueError naming the allowed ones otherwise."""
    every = profiles()
    for p in every:
        if p["name"] == name:
            return p
    allowed = ", ".join(p["name"] for p in every)
    raise ValueError(f"profile {name!r} is unknown: allowed {allowed}")


def format_profile(p: dict[str, Any]) -> str:
    """A profile as text: its description, then one line per key."""
    lines = [f"{p['name']}: {p['about']}"]

    def keys(title: str, ks: dict[str, Any]) -> None:
        if not ks:
            return
        lines.append(f"  {title}:")
        for k, v in ks.items():
            lines.append(f"    {k} = {json.dumps(v['value'])}  ({v['why']})")

    keys("TCP flows", p["tcp"])
    for ty, ks in p["queue"].items():
        keys(f"queues of type {ty}", ks)
    keys("links", p["link"])
    if len(lines) == 1:
        lines.append("  (every key at its default)")
    return "\n".join(lines)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("name", nargs="?", help="one profile (default: all)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    try:
        chosen = [profile(args.name)] if args.name else profiles()
    except ValueError as e:
        print(f"aqmlab profiles: {e}")
        return 2
    if args.json:
        print(json.dumps(chosen if not args.name else chosen[0], indent=2))
    else:
        print("\n\n".join(format_profile(p) for p in chosen))
    return 0
