"""Choosing what ``aqmlab evaluate`` runs: the RFC 7928 scenarios (each, and its ECN
variant, a :class:`Run`), the AQMs (label -> queue table), and each run as a sweep of
:mod:`aqmlab.sweeps` (its base the point dict of :mod:`.point`, its one axis the
(variant, queue) pairs labelled by the AQM, its replications the seeds).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from ..aqm import QUEUE_TYPES
from ..base import ArgumentError
from ..compare import queue_tables
from .scenarios import SCENARIOS, unavailable

__all__ = [
    "RUNNER",
    "DEFAULT_AQMS",
    "Run",
    "all_runs",
    "list_scenarios",
    "select",
    "queues_from",
    "sweep_spec",
]

#: The sweep runner (``module:function``) every point runs on its worker.
RUNNER = "aqmlab.evaluate.point:run"
#: The AQMs evaluated when none are named (Drop Tail is the reference).
DEFAULT_AQMS = ("droptail", "red", "ared", "codel", "pie", "fq_codel", "fq_pie")

PathLike = Union[str, "os.PathLike[str]"]

_ECN_TEXT = (
    "\n\nECN variant (RFC 7928 Section 4.5): every TCP flow is ECN-capable and the AQM "
    "has ecn = true where its type has the key (Drop Tail has none and drops)."
)


@dataclass(frozen=True)
class Run:
    """One sweep: an RFC 7928 scenario, with or without ECN."""

    scenario: Any  #: the ``scenarios.EvalScenario``
    ecn: bool

    @property
    def id(self) -> str:
        return f"{self.scenario.id}+ecn" if self.ecn else str(self.scenario.id)

    def dirname(self, quick: bool) -> str:
        return self.id + ("-quick" if quick else "")

    def info(self) -> dict[str, Any]:
        """What the report shows of it: id, section, title, description, ECN."""
        sc = self.scenario
        title = sc.title + (" (ECN)" if self.ecn else "")
        return {
            "id": self.id,
            "scenario": sc.id,
            "section": sc.section,
            "title": title,
            "description": sc.description + (_ECN_TEXT if self.ecn else ""),
            "ecn": self.ecn,
        }


def all_runs() -> list[Run]:
    """Every scenario in RFC order, each followed by its ECN variant if it has one."""
    runs: list[Run] = []
    for sc in SCENARIOS:
        runs.append(Run(sc, False))
        if sc.has_ecn:
            runs.append(Run(sc, True))
    return runs


def list_scenarios() -> list[dict[str, Any]]:
    """The scenarios (ECN variants included) as dicts: id, scenario, section, title,
    description, ecn."""
    return [r.info() for r in all_runs()]


def _matches(scenario_id: str, token: str) -> bool:
    return scenario_id == token or scenario_id.startswith(token + ".")


def select(tokens: str | Sequence[str] | None) -> list[Run]:
    """The runs chosen by `tokens` (comma-separated text or a list; ``None``: all).

    A token is a scenario id or an RFC section prefix (``5``, ``5.3``, ``8.2.4``), which
    selects the matching scenarios with their ECN variants; ``<prefix>+ecn`` selects only
    the ECN variants of the matching scenarios, and ``ecn`` all of them. The result keeps
    the RFC order. A scenario beyond RFC 7928 (``l4s``) runs only when named by its id
    (``l4s``, ``l4s+ecn``): it is in neither the default nor ``ecn``. ValueError names an unknown token and lists the ids. A scenario the
    installed simulator cannot run (:func:`.scenarios.unavailable`) is left out of a
    selection by prefix (and of the default) and refused when named by its id.
    """
    runs = all_runs()
    why = {r.id: unavailable(r.scenario.id) for r in runs}
    if tokens is None:
        return [r for r in runs if why[r.id] is None and not r.scenario.opt_in]
    if isinstance(tokens, str):
        tokens = tokens.split(",")
    toks = [t.strip() for t in tokens if t.strip()]
    if not toks:
        raise ArgumentError("scenarios", ": empty; give ids or RFC sections, e.g. 5,6,8.2.3")
    chosen: set = set()
    for t in toks:
        if t == "ecn":
            hit = [r for r in runs if r.ecn]
        elif t.endswith("+ecn"):
            hit = [r for r in runs if r.ecn and _matches(r.scenario.id, t[: -len("+ecn")])]
        else:
            hit = [r for r in runs if _matches(r.scenario.id, t)]
        # (a scenario run only when named is left out of "ecn" and of prefixes)
        hit = [r for r in hit if not r.scenario.opt_in or t.split("+")[0] == r.scenario.id]
        if not hit:
            ids = ", ".join(r.id for r in runs)
            raise ArgumentError("scenarios", f": no scenario {t!r}; the scenarios are: {ids}, ecn")
        chosen.update(r.id for r in hit)
    named = [f"{t} ({why[t]})" for t in toks if why.get(t) is not None]
    if named:
        raise ArgumentError("scenarios", f": cannot run {', '.join(named)}")
    return [r for r in runs if r.id in chosen and why[r.id] is None]


def queues_from(
    aqms: str | Sequence[str] | Mapping[str, Mapping[str, Any]] | None = None,
    aqm_file: PathLike | None = None,
) -> dict[str, dict[str, Any]]:
    """The AQMs to evaluate, label -> queue table: `aqms` (comma-separated types, a list of
    types, or a dict of label -> table) and the ``[queue.LABEL]`` tables of `aqm_file`
    (as ``aqmlab compare --aqm-file``); neither: :data:`DEFAULT_AQMS`. ValueError for an
    unknown type, a bad file, or two AQMs with the same table."""
    types = set(QUEUE_TYPES)
    out: dict[str, dict[str, Any]] = {}
    names: str | None = None
    if isinstance(aqms, Mapping):
        for label, t in aqms.items():
            if not isinstance(t, Mapping) or "type" not in t:
                raise ValueError(f"aqms[{label!r}]: expected a queue table with a type")
            out[str(label)] = dict(t)
    elif isinstance(aqms, str):
        names = aqms
    elif aqms is not None:
        names = ",".join(aqms)
    if names is None and aqm_file is None and not out:
        names = ",".join(DEFAULT_AQMS)
    if names is not None and not [n for n in names.split(",") if n.strip()]:
        raise ArgumentError("aqms", ": empty; give queue types, e.g. red,codel")
    if names is not None or aqm_file is not None:
        out.update(queue_tables(names, aqm_file))
    # (an AQM from outside: a Python class, a plugin; the simulator checks its table)
    external = {"python", "plugin"}
    seen: dict[str, str] = {}
    for label, t in out.items():
        if t["type"] not in types | external:
            raise ValueError(
                f"queue.{label}.type: unknown type {t['type']!r}; allowed {', '.join(sorted(types))}"
            )
        key = json.dumps(t, sort_keys=True, default=str)
        if key in seen:
            raise ValueError(
                f"AQMs {seen[key]!r} and {label!r} are the same queue table {t}; keep one"
            )
        seen[key] = label
    return out


def sweep_spec(
    run: Run,
    queues: Mapping[str, Mapping[str, Any]],
    quick: bool,
    seeds: int,
    tcp: Sequence[str] = (),
) -> dict[str, Any]:
    """The sweep of `run`: base = the runner's point dict, one axis of (variant, queue)
    pairs labelled by the AQM, with `tcp` (TCP variants) a second axis of the point's
    ``tcp``, `seeds` replications (seeds 1..seeds)."""
    values: list[list[Any]] = []
    labels: list[str] = []
    for label, q in queues.items():
        for v in run.scenario.variants(quick, dict(q)):
            values.append([v, dict(q)])
            labels.append(label)
    base = {
        "scenario": run.scenario.id,
        "variant": "",
        "ecn": run.ecn,
        "quick": quick,
        "queue": {},
        "seed": 1,
    }
    axes: list[dict[str, Any]] = [
        {"paths": ["variant", "queue"], "name": "aqm", "values": values, "labels": labels}
    ]
    if tcp:
        base["tcp"] = tcp[0]
        axes.append(
            {
                "paths": ["tcp"],
                "name": "transport",
                "values": [[t] for t in tcp],
                "labels": list(tcp),
            }
        )
    return {
        "name": f"evaluate {run.dirname(quick)}",
        "base": base,
        "replications": seeds,
        "runner": RUNNER,
        "metrics": ["*", "flows_json"],
        "axis": axes,
    }
