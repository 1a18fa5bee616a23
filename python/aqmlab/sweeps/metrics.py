"""The metric-path language: which numbers of a run's summary become columns.

A metric path walks the summary dict from its top (``links``, ``flows``, ``events``,
...), one dot-separated step at a time:

- ``name`` -- a key of a table (``links.r1->r2.utilization``; keys may contain ``->``
  or dots, the longest matching key wins);
- ``*`` -- every key of a table (``links.*.utilization`` gives one column per link;
  under ``*`` only numeric values are kept);
- ``[i]`` / ``[*]`` -- an element / every element of an array (``flows[0].goodput_bps``,
  ``flows[*].goodput_bps``);
- on an array, ``FIELD.AGG`` -- the field of every element reduced by an aggregate:
  ``sum``, ``mean``, ``min``, ``max``, ``std`` (population), ``median``, ``count``
  or ``jain`` (Jain's fairness index, (sum x)^2 / (n sum x^2)); ``*.AGG`` does it for
  every numeric field except ``id`` (``flows.*.sum``).

``{key}`` is first replaced by the top-level value ``key`` of the point's scenario (or,
if the scenario has none, of the summary): ``links.{bottleneck}.utilization`` is the
utilization of the link direction the scenario names as its ``bottleneck``.

Each resolved value is one column, named by the path with the wildcards filled in
(``links.r1->r2.utilization``, ``flows[3].goodput_bps``, ``flows.goodput_bps.sum``).
A path that does not resolve makes the point fail with an error naming it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

AGGREGATES = ("sum", "mean", "min", "max", "std", "median", "count", "jain")

#: Used when a sweep gives no ``metrics``: every numeric metric of the bottleneck link
#: (of every link if the summary names no ``bottleneck``), the per-flow sums and
#: means, the goodput fairness and the event count. Entries of the default set that a
#: runner's summary does not have are skipped.
DEFAULT_METRICS = (
    "links.{bottleneck}.*",
    "flows.*.sum",
    "flows.*.mean",
    "flows.goodput_bps.jain",
    "events",
)

_BRACKET = re.compile(r"^\[(\d+|\*)\]")


class MetricError(ValueError):
    """A metric path that does not resolve on a summary."""


def parse(metric: str) -> None:
    """Check the syntax of a metric path (ValueError naming it)."""
    if (
        not isinstance(metric, str)
        or not metric
        or metric.startswith(".")
        or metric.endswith(".")
        or ".." in metric
    ):
        raise ValueError(
            f"metric {metric!r}: malformed (e.g. links.r1->r2.utilization, flows.goodput_bps.sum)"
        )
    if metric.count("[") != metric.count("]"):
        raise ValueError(f"metric {metric!r}: unbalanced brackets")
    for m in re.finditer(r"\[([^\]]*)\]", metric):
        if not re.fullmatch(r"\d+|\*", m.group(1)):
            raise ValueError(f"metric {metric!r}: index [{m.group(1)}] must be a number or *")


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float))  # bools count (as 0 / 1)


def _num(v: Any) -> float:
    return float(v)


def _aggregate(agg: str, xs: Sequence[float]) -> float:
    n = len(xs)
    if agg == "count":
        return float(n)
    if n == 0:
        return float("nan")
    if agg == "sum":
        return float(math.fsum(xs))
    if agg == "mean":
        return float(math.fsum(xs) / n)
    if agg == "min":
        return float(min(xs))
    if agg == "max":
        return float(max(xs))
    if agg == "median":
        s = sorted(xs)
        return float(s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)
    if agg == "std":
        m = math.fsum(xs) / n
        return float(math.sqrt(math.fsum((x - m) ** 2 for x in xs) / n))
    if agg == "jain":
        sq = math.fsum(x * x for x in xs)
        return float(math.fsum(xs) ** 2 / (n * sq)) if sq > 0 else float("nan")
    raise AssertionError(agg)


def _next_step(rest: str) -> tuple[str, str]:
    """Split the first dot-separated step (used for fields and aggregates)."""
    i = rest.find(".")
    return (rest, "") if i < 0 else (rest[:i], rest[i + 1 :])


def _strip_dot(rest: str) -> str:
    return rest[1:] if rest.startswith(".") else rest


class _Walk:
    """One metric path being resolved: its text (for messages) and the columns found."""

    def __init__(self, metric: str, out: list[tuple[str, Any]]) -> None:
        self.metric = metric
        self.out = out

    def fail(self, wild: bool, message: str) -> None:
        """Under a wildcard a path that does not resolve is skipped; otherwise it fails."""
        if not wild:
            raise MetricError(f"metric {self.metric!r}: {message}")


def _resolve(node: Any, rest: str, name: str, wild: bool, walk: _Walk) -> None:
    """Follow the path `rest` from `node` (reached as `name`), adding the columns found
    to `walk.out`; `wild`: below a wildcard, where misses are skipped."""
    if rest == "":
        _leaf(node, name, wild, walk)
    elif isinstance(node, Mapping):
        _in_table(node, rest, name, wild, walk)
    elif isinstance(node, list):
        _in_array(node, rest, name, wild, walk)
    else:
        walk.fail(wild, f"{name} is a value ({node!r}); nothing below it")


def _leaf(node: Any, name: str, wild: bool, walk: _Walk) -> None:
    """The end of a path: a value is a column; a table or an array is not."""
    if isinstance(node, (Mapping, list)):
        kind = "a table" if isinstance(node, Mapping) else "an array"
        walk.fail(wild, f"{name or 'the summary'} is {kind}; name a field")
    elif _is_num(node):
        walk.out.append((name, _num(node)))
    elif not wild:
        walk.out.append((name, node))


def _in_table(node: Mapping[str, Any], rest: str, name: str, wild: bool, walk: _Walk) -> None:
    """A step into a table: ``*`` for every key, else the longest key the path starts with."""
    if rest == "*" or rest.startswith("*.") or rest.startswith("*["):
        after = _strip_dot(rest[1:])
        for k in node:
            _resolve(node[k], after, f"{name}.{k}" if name else str(k), True, walk)
        return
    best = None
    for k in node:
        k = str(k)
        if rest == k or rest.startswith(k + ".") or rest.startswith(k + "["):
            if best is None or len(k) > len(best):
                best = k
    if best is None:
        have = ", ".join(map(str, node)) or "nothing"
        step = _next_step(rest)[0]
        walk.fail(wild, f"{name or 'the summary'} has no {step!r} (it has: {have})")
        return
    child = f"{name}.{best}" if name else best
    _resolve(node[best], _strip_dot(rest[len(best) :]), child, wild, walk)


def _in_array(node: list[Any], rest: str, name: str, wild: bool, walk: _Walk) -> None:
    """A step into an array: ``[i]`` or ``[*]``, else ``FIELD.AGGREGATE``."""
    m = _BRACKET.match(rest)
    if not m:
        _aggregate_field(node, rest, name, wild, walk)
        return
    after = _strip_dot(rest[m.end() :])
    if m.group(1) == "*":
        for i, el in enumerate(node):
            _resolve(el, after, f"{name}[{i}]", True, walk)
        return
    i = int(m.group(1))
    if i >= len(node):
        walk.fail(wild, f"{name} has {len(node)} entries")
        return
    _resolve(node[i], after, f"{name}[{i}]", wild, walk)


def _aggregate_field(node: list[Any], rest: str, name: str, wild: bool, walk: _Walk) -> None:
    """``FIELD.AGGREGATE`` on an array (``*.AGGREGATE``: every numeric field but ``id``)."""
    fieldname, after = _next_step(rest)
    agg, after2 = _next_step(after)
    if agg not in AGGREGATES or after2:
        walk.fail(
            wild,
            f"on the array {name}, give FIELD.AGGREGATE with AGGREGATE one of "
            f"{', '.join(AGGREGATES)} (or index it: {name}[0].{fieldname})",
        )
        return
    if fieldname == "*":
        fields: list[str] = []
        for el in node:
            if isinstance(el, Mapping):
                for k, v in el.items():
                    if k != "id" and k not in fields and _is_num(v):
                        fields.append(k)
        for f in fields:
            xs = [_num(el[f]) for el in node if isinstance(el, Mapping) and _is_num(el.get(f))]
            walk.out.append((f"{name}.{f}.{agg}", _aggregate(agg, xs)))
        return
    present = [el for el in node if isinstance(el, Mapping) and fieldname in el]
    if node and not present:
        have = ", ".join(node[0]) if isinstance(node[0], Mapping) else "no fields"
        walk.fail(wild, f"the entries of {name} have no {fieldname!r} (they have: {have})")
        return
    xs = [_num(el[fieldname]) for el in present if _is_num(el[fieldname])]
    if len(xs) != len(present):
        raise MetricError(f"metric {walk.metric!r}: {name}[*].{fieldname} is not numeric")
    walk.out.append((f"{name}.{fieldname}.{agg}", _aggregate(agg, xs)))


def _substitute(summary: Mapping[str, Any], metric: str, scenario: Mapping[str, Any] | None) -> str:
    def ok(d: Mapping[str, Any] | None, k: str) -> bool:
        return (
            d is not None and k in d and d[k] is not None and not isinstance(d[k], (Mapping, list))
        )

    def rep(mo: re.Match[str]) -> str:
        k = mo.group(1)
        if scenario is not None and ok(scenario, k):
            return str(scenario[k])
        if ok(summary, k):
            return str(summary[k])
        raise MetricError(
            f"metric {metric!r}: neither the scenario nor the summary has a top-level "
            f"value {k!r} for {{{k}}}"
        )

    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", rep, metric)


def extract(
    summary: Mapping[str, Any],
    metrics: Sequence[str],
    optional: bool = False,
    scenario: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The columns named by `metrics` from `summary` (MetricError if one does not resolve,
    unless `optional`, as for the default set, where it is skipped). `scenario` is the
    point's scenario, for ``{key}`` references."""
    out: list[tuple[str, Any]] = []
    for m in metrics:
        try:
            if (
                optional
                and m == "links.{bottleneck}.*"
                and "bottleneck" not in summary
                and not (scenario and "bottleneck" in scenario)
            ):
                m = "links.*.*"
            _resolve(summary, _substitute(summary, m, scenario), "", False, _Walk(m, out))
        except MetricError:
            if not optional:
                raise
    cols: dict[str, Any] = {}
    for k, v in out:
        cols.setdefault(k, v)
    return cols
