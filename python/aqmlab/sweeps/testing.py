"""A deterministic, cheap runner for tests and demos of the sweep machinery.

``runner = "aqmlab.sweeps.testing:run"`` returns a summary shaped like the
simulator's (``links``, ``flows``, ``events``, ``wall_seconds``) computed from the
scenario's numbers and seed, with no simulation. Options, read from the scenario's
``testing`` table (so they can themselves be swept):

- ``sleep`` -- seconds to sleep per point (to make a sweep take a while);
- ``fail_if`` -- a table ``{path = value, ...}``: raise RuntimeError on a point whose
  scenario has all those values (to test error recording);
- ``crash_if`` -- same, but kill the worker process (``os._exit``).

If the environment variable ``AQMLAB_SWEEP_TEST_LOG`` names a file, every computed
point appends one line to it: the canonical JSON of its scenario.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
from typing import Any

from . import paths as _paths


def _numbers(doc: Any, prefix: str = "") -> list[float]:
    out: list[float] = []
    if isinstance(doc, dict):
        for k in sorted(doc):
            if k != "testing":
                out += _numbers(doc[k], f"{prefix}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _numbers(v, f"{prefix}[{i}]")
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        out.append(float(doc))
    return out


def _matches(scenario: dict[str, Any], cond: dict[str, Any]) -> bool:
    try:
        return all(_paths.get_path(scenario, p) == v for p, v in cond.items())
    except (KeyError, IndexError, TypeError, ValueError):
        return False


def run(scenario: dict[str, Any]) -> dict[str, Any]:
    """The test runner (see the module docstring)."""
    opts = scenario.get("testing", {}) or {}
    t0 = time.perf_counter()
    if opts.get("sleep"):
        time.sleep(float(opts["sleep"]))
    if opts.get("crash_if") and _matches(scenario, opts["crash_if"]):
        os._exit(3)
    if opts.get("fail_if") and _matches(scenario, opts["fail_if"]):
        raise RuntimeError(f"testing runner: asked to fail on {opts['fail_if']}")
    canon = json.dumps(scenario, sort_keys=True, separators=(",", ":"))
    h = int(hashlib.sha256(canon.encode()).hexdigest()[:12], 16)
    rng = random.Random(h)
    xs = _numbers(scenario)
    load = sum(math.log1p(abs(x)) for x in xs)
    nflows = (
        sum(int(f.get("count", 1)) for f in scenario.get("flow", []) if isinstance(f, dict)) or 1
    )
    links = {}
    for ln in scenario.get("link", []) or [{"a": "r1", "b": "r2"}]:
        name = f"{ln.get('a', 'a')}->{ln.get('b', 'b')}"
        links[name] = {
            "utilization": 1.0 - 1.0 / (1.0 + load + rng.random()),
            "arrivals": float(1000 + rng.randrange(1000)),
            "drops": float(rng.randrange(100)),
            "mean_queue": 10 * load + rng.random(),
            "mean_delay": 0.001 * load + 0.0001 * rng.random(),
        }
    flows = [
        {
            "id": i,
            "src": "s",
            "dst": "k",
            "goodput_bps": 1e6 * (1 + rng.random()),
            "drops": float(rng.randrange(10)),
            "timeouts": float(rng.randrange(3)),
        }
        for i in range(nflows)
    ]
    log = os.environ.get("AQMLAB_SWEEP_TEST_LOG")
    if log:
        with open(log, "a") as f:
            f.write(canon + "\n")
            f.flush()
    return {
        "links": links,
        "flows": flows,
        "events": len(canon) * 10,
        "wall_seconds": time.perf_counter() - t0,
    }


def example_spec(
    sleep: float = 0.0,
    max_p=(0.02, 0.05, 0.1, 0.2),
    counts=(1, 3, 10),
    replications: int = 2,
    fail_if: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """A small sweep over the test runner (max_p x flow count x replications), as a dict."""
    testing: dict[str, Any] = {"sleep": sleep}
    if fail_if:
        testing["fail_if"] = dict(fail_if)
    spec: dict[str, Any] = {
        "runner": "aqmlab.sweeps.testing:run",
        "base": {
            "duration": 10,
            "seed": 5,
            "testing": testing,
            "link": [
                {
                    "a": "r1",
                    "b": "r2",
                    "rate": "10Mbps",
                    "delay": "10ms",
                    "queue": {"type": "red", "limit": 100, "min_th": 5, "max_th": 15, "max_p": 0.1},
                }
            ],
            "flow": [{"type": "tcp", "src": "r1", "dst": "r2", "count": 1}],
        },
        "axes": {"link[0].queue.max_p": list(max_p), "flow[0].count": list(counts)},
        "replications": replications,
        "metrics": [
            "links.r1->r2.utilization",
            "links.r1->r2.mean_queue",
            "flows.goodput_bps.sum",
            "flows.goodput_bps.jain",
            "events",
        ],
    }
    spec.update(extra)
    return spec


def to_toml(d: Any, _prefix: str = "") -> str:
    """A minimal TOML writer for sweep dicts like :func:`example_spec` (tests write sweep files)."""

    def val(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {val(x)}" for k, x in v.items()) + " }"
        raise TypeError(type(v))

    lines = [
        f"{json.dumps(k) if not k.isidentifier() else k} = {val(v)}"
        for k, v in d.items()
        if not isinstance(v, dict)
    ]
    for k, v in d.items():
        if isinstance(v, dict):
            lines.append(f"\n[{_prefix}{k}]")
            lines.append(to_toml(v, f"{_prefix}{k}.").strip())
    return "\n".join(lines) + "\n"
