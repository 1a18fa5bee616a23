"""Field paths into a scenario: ``link[2].queue_ab.max_p``, ``flow[0].count``, ``seed``.

A path is a dot-separated list of keys, each optionally followed by ``[i]`` indices
into arrays of tables (``link``, ``flow``). :func:`check` says whether a path can be
set in a scenario (and why not, in the words used by sweep errors); :func:`set_path`
sets it in a copy.
"""

from __future__ import annotations

import re
from typing import Any, Union

Step = Union[str, int]

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)((?:\[\d+\])*)$")
_INDEX = re.compile(r"\[(\d+)\]")


def parse(path: str) -> list[Step]:
    """``"link[2].queue_ab.max_p"`` -> ``["link", 2, "queue_ab", "max_p"]``; ValueError if malformed."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"path {path!r}: must be a non-empty string like 'link[0].queue.max_p'")
    steps: list[Step] = []
    for seg in path.split("."):
        m = _SEGMENT.match(seg)
        if not m:
            raise ValueError(
                f"path {path!r}: malformed segment {seg!r} "
                "(expected name or name[index], e.g. link[0].queue.max_p)"
            )
        steps.append(m.group(1))
        steps.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return steps


def format_steps(steps: list[Step]) -> str:
    out = ""
    for s in steps:
        if isinstance(s, int):
            out += f"[{s}]"
        else:
            out += ("." if out else "") + s
    return out


def check(doc: Any, path: str) -> None:
    """Raise ValueError (message without the ``axis '...'`` prefix) unless `path` can be set in `doc`.

    Every step must exist, except the last key, which may be absent from an existing
    table (it is then added: ``flow[0].count`` on a flow that has no ``count``).
    """
    steps = parse(path)
    node = doc
    for k, step in enumerate(steps):
        where = format_steps(steps[:k]) or "the scenario"
        last = k == len(steps) - 1
        if isinstance(step, int):
            if not isinstance(node, list):
                raise ValueError(f"{where} is not an array (cannot index it with [{step}])")
            if step >= len(node):
                n = len(node)
                raise ValueError(f"{where} has {n} {'entry' if n == 1 else 'entries'}")
            node = node[step]
        else:
            if not isinstance(node, dict):
                kind = "an array" if isinstance(node, list) else f"a value ({node!r})"
                hint = (
                    f" (index it first, e.g. {where}[0].{step})" if isinstance(node, list) else ""
                )
                raise ValueError(f"{where} is {kind}, it has no field {step!r}{hint}")
            if step not in node:
                if last:
                    return  # a new key in an existing table: allowed, the scenario validation checks it
                have = ", ".join(sorted(map(str, node))) or "nothing"
                raise ValueError(f"{where} has no {step!r} (it has: {have})")
            node = node[step]


def get_path(doc: Any, path: str) -> Any:
    node = doc
    for step in parse(path):
        node = node[step]
    return node


def set_path(doc: Any, path: str, value: Any) -> None:
    """Set `path` in `doc` in place (the path must have passed :func:`check`)."""
    steps = parse(path)
    node = doc
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value
