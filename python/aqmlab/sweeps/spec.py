"""Sweep specifications: the sweep file (TOML) or the same structure as a dict.

See ``docs/sweeps.md`` for the format. :func:`load_spec` reads and validates a
specification and returns a :class:`SweepSpec`: the base scenario, the axes, the
ordered list of points (parameters and seed) and the hashes used to detect a changed
sweep. Nothing is run here.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base import int_at_least, positive_int, read_toml
from ..sim import python_aqms_beside, scenario_queues
from . import metrics as _metrics
from . import paths as _paths

DEFAULT_RUNNER = "aqmlab.sweeps.runners:simulate"
SPEC_KEYS = {
    "base",
    "axes",
    "axis",
    "replications",
    "metrics",
    "runner",
    "name",
    "description",
    "validate",
}
AXIS_KEYS = {"path", "paths", "name", "values", "range", "sample", "labels"}
#: Columns of a sweep's table that are not parameters; no axis may take their names.
_RESERVED = {"point", "point_id", "seed", "replication", "wall_time", "error"}


def _round(v: Any) -> Any:
    """Floats rounded to 12 significant digits, so that point ids do not depend on the last ulp."""
    if isinstance(v, float) and math.isfinite(v):
        return float(f"{v:.12g}")
    return v


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=str)


def digest(obj: Any, n: int = 16) -> str:
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()[:n]


@dataclass
class Axis:
    """One axis: one path (or several varied together, ``paths``) and its values."""

    paths: list[str]
    values: list[tuple[Any, ...]]  # one tuple per value, one entry per path
    columns: list[str]  # the column name of each path
    label_column: str | None = None  # zipped axes: column carrying `labels`
    labels: list[Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "paths": self.paths,
            "columns": self.columns,
            "values": [list(v) for v in self.values],
        }
        if self.label_column:
            d["label_column"] = self.label_column
            d["labels"] = self.labels
        return d


@dataclass
class Point:
    index: int
    id: str
    params: dict[str, Any]  # column -> value (JSON-able); includes label columns
    seed: int
    overrides: list[tuple[str, Any]]  # (path, value) to set in the base scenario

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "params": self.params, "seed": self.seed}


@dataclass
class SweepSpec:
    base: dict[str, Any]
    axes: list[Axis]
    replications: int
    seed_axis: bool
    metrics: list[str]
    default_metrics: bool
    runner: str
    validate: bool
    name: str = "sweep"
    source: str | None = None
    points: list[Point] = field(default_factory=list)

    @property
    def param_columns(self) -> list[str]:
        cols: list[str] = []
        for a in self.axes:
            if a.label_column:
                cols.append(a.label_column)
            cols.extend(c for c in a.columns if c != "seed")
        return cols

    def normalised(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "axes": [a.to_dict() for a in self.axes],
            "replications": self.replications,
            "metrics": self.metrics,
            "runner": self.runner,
        }

    @property
    def fixed_hash(self) -> str:
        """Hash of what gives a point's row its meaning: base scenario, runner, metrics, axis paths."""
        return digest(
            {
                "base": self.base,
                "runner": self.runner,
                "metrics": self.metrics,
                "paths": [a.paths for a in self.axes],
                "columns": self.param_columns,
            }
        )

    @property
    def spec_hash(self) -> str:
        """Hash of the whole normalised sweep (fixed part, axis values and replications)."""
        return digest(self.normalised())

    def scenario(self, point: Point) -> dict[str, Any]:
        """The scenario dict of `point`: the base with the point's values and seed set."""
        sc = copy.deepcopy(self.base)
        for path, value in point.overrides:
            _paths.set_path(sc, path, copy.deepcopy(value))
        sc["seed"] = point.seed
        return sc


# ---------------------------------------------------------------------------------


def _err(where: str, msg: str) -> ValueError:
    return ValueError(f"{where}: {msg}")


def _number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _err(where, f"must be a finite number, got {v!r}")
    return float(v)


def _check_table(
    spec: Mapping[str, Any],
    where: str,
    allowed: tuple[str, ...],
    required: tuple[str, ...],
    tolerated: tuple[str, ...] = (),
) -> None:
    """No key of `spec` outside `allowed` (and `tolerated`, accepted but not listed in the
    message), every key of `required` present."""
    unknown = set(spec) - set(allowed) - set(tolerated)
    if unknown:
        raise _err(where, f"unknown key(s) {sorted(unknown)}; allowed: {', '.join(allowed)}")
    for k in required:
        if k not in spec:
            raise _err(f"{where}.{k}", "missing")


def _axis_values(entry: Mapping[str, Any], where: str) -> list[Any]:
    """An axis's values from its one of ``values``, ``range`` or ``sample``."""
    kinds = [k for k in ("values", "range", "sample") if k in entry]
    if len(kinds) != 1:
        raise _err(
            where,
            "give exactly one of values = [...], range = {start, stop, num, scale} "
            "or sample = {distribution, low, high, n, seed}",
        )
    kind = kinds[0]
    spec = entry[kind]
    if kind == "values":
        return _listed_values(spec, where)
    if not isinstance(spec, Mapping):
        raise _err(f"{where}.{kind}", "must be a table")
    if kind == "range":
        return _range_values(spec, f"{where}.range")
    return _sample_values(spec, f"{where}.sample")


def _listed_values(spec: Any, where: str) -> list[Any]:
    """``values = [...]``: as given, ints and floats mixed made floats (one column type)."""
    if not isinstance(spec, (list, tuple)) or not spec:
        raise _err(f"{where}.values", "must be a non-empty list")
    vals = list(spec)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals) and any(
        isinstance(v, float) for v in vals
    ):
        vals = [float(v) for v in vals]
    return [_round(v) for v in vals]


def _range_values(spec: Mapping[str, Any], where: str) -> list[Any]:
    """``range = {start, stop, num, scale}``: linear or log-spaced; integers when start
    and stop are integers and every linear step lands on one."""
    import numpy as np

    _check_table(
        spec, where, ("start", "stop", "num", "scale"), ("start", "stop", "num"), ("step",)
    )
    start = _number(spec["start"], f"{where}.start")
    stop = _number(spec["stop"], f"{where}.stop")
    num = positive_int(f"{where}.num", spec["num"])
    scale = spec.get("scale", "linear")
    if scale == "linear":
        vals = np.linspace(start, stop, num)
    elif scale == "log":
        if start <= 0 or stop <= 0:
            raise _err(where, 'scale = "log" needs start > 0 and stop > 0')
        vals = np.geomspace(start, stop, num)
    else:
        raise _err(f"{where}.scale", f'must be "linear" or "log", got {scale!r}')
    ints = (
        isinstance(spec["start"], int)
        and isinstance(spec["stop"], int)
        and scale == "linear"
        and all(float(v).is_integer() for v in vals)
    )
    return [int(round(v)) if ints else _round(float(v)) for v in vals]


def _sample_values(spec: Mapping[str, Any], where: str) -> list[Any]:
    """``sample = {distribution, low, high, n, seed}``: n seeded draws, uniform or
    log-uniform on [low, high]."""
    import numpy as np

    _check_table(spec, where, ("distribution", "low", "high", "n", "seed"), ("low", "high", "n"))
    low = _number(spec["low"], f"{where}.low")
    high = _number(spec["high"], f"{where}.high")
    if high < low:
        raise _err(f"{where}.high", f"must be >= low ({low})")
    n = positive_int(f"{where}.n", spec["n"])
    seed = int_at_least(f"{where}.seed", spec.get("seed", 0), 0)
    rng = np.random.default_rng(seed)
    dist = spec.get("distribution", "uniform")
    if dist == "uniform":
        vals = rng.uniform(low, high, n)
    elif dist == "loguniform":
        if low <= 0:
            raise _err(f"{where}.low", 'distribution = "loguniform" needs low > 0')
        vals = np.exp(rng.uniform(math.log(low), math.log(high), n))
    else:
        raise _err(f"{where}.distribution", f'must be "uniform" or "loguniform", got {dist!r}')
    return [_round(float(v)) for v in vals]


def _axis_paths(entry: Mapping[str, Any], where: str, base: Mapping[str, Any]) -> list[str]:
    """The path(s) an axis varies, each checked against the base scenario."""
    unknown = set(entry) - AXIS_KEYS
    if unknown:
        raise _err(
            where, f"unknown key(s) {sorted(unknown)}; allowed: {', '.join(sorted(AXIS_KEYS))}"
        )
    if ("path" in entry) == ("paths" in entry):
        raise _err(where, 'give path = "..." (or paths = [...] for values varied together)')
    plist = list(entry["paths"]) if "paths" in entry else [entry["path"]]
    if not plist or not all(isinstance(p, str) for p in plist):
        raise _err(where, "paths must be a non-empty list of strings")
    for p in plist:
        try:
            _paths.parse(p)
            if p != "seed":
                _paths.check(base, p)
        except ValueError as e:
            raise ValueError(f"axis {p!r}: {e}") from None
    return plist


def _zipped_axis(entry: Mapping[str, Any], label: str, plist: list[str], raw: list) -> Axis:
    """An axis of several paths varied together (``paths = [...]``), maybe labelled."""
    values = []
    for i, v in enumerate(raw):
        if not isinstance(v, (list, tuple)) or len(v) != len(plist):
            raise _err(
                f"{label}.values[{i}]", f"must be a list of {len(plist)} values (one per path)"
            )
        values.append(tuple(_round(x) for x in v))
    names = entry.get("name")
    if "labels" in entry:
        labels = list(entry["labels"])
        if not isinstance(names, str):
            raise _err(label, 'labels need name = "column" (the column holding them)')
        if len(labels) != len(values):
            raise _err(f"{label}.labels", f"has {len(labels)} entries for {len(values)} values")
        return Axis(plist, values, list(plist), names, [_round(x) for x in labels])
    if names is not None:
        raise _err(label, "name on a zipped axis names its labels column; give labels = [...] too")
    return Axis(plist, values, list(plist))


def _parse_axis(entry: Mapping[str, Any], where: str, base: Mapping[str, Any]) -> Axis:
    plist = _axis_paths(entry, where, base)
    zipped = "paths" in entry
    label = where if not zipped else f"axis {plist!r}"
    raw = _axis_values(entry, label)
    if zipped:
        return _zipped_axis(entry, label, plist, raw)
    if "labels" in entry:
        raise _err(label, "labels are for zipped axes (paths = [...])")
    col = entry.get("name", plist[0])
    if not isinstance(col, str) or not col:
        raise _err(f"{label}.name", "must be a non-empty string")
    if plist[0] == "seed":
        col = "seed"
        for v in raw:
            int_at_least(f"{label}.values: seed", v, 0)
    return Axis(plist, [(v,) for v in raw], [col])


def load_spec(
    spec: str | os.PathLike | Mapping[str, Any] | SweepSpec,
    base_dir: str | os.PathLike | None = None,
) -> SweepSpec:
    """Read and validate a sweep: a path to a sweep TOML file or a dict of the same structure.

    Raises ValueError naming the offending entry (``axis 'link[7].queue_ab.max_p': link has
    3 entries``) before anything runs.
    """
    if isinstance(spec, SweepSpec):
        return spec
    source = None
    if isinstance(spec, (str, os.PathLike)):
        source = str(spec)
        d = read_toml(Path(spec))
        here = Path(spec).resolve().parent
    elif isinstance(spec, Mapping):
        d = dict(spec)
        here = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        raise TypeError(f"sweep spec must be a path or a dict, got {type(spec).__name__}")
    unknown = set(d) - SPEC_KEYS
    if unknown:
        raise ValueError(
            f"sweep: unknown key(s) {sorted(unknown)}; allowed: {', '.join(sorted(SPEC_KEYS))}"
        )
    base = _base_scenario(d, here)
    axes = [_parse_axis(e, where, base) for where, e in _axis_entries(d)]
    seed_axis = _check_axes(axes)
    reps = d.get("replications", 1)
    positive_int("sweep: replications", reps)
    if seed_axis and reps != 1:
        raise ValueError("sweep: give replications or a seed axis, not both")
    mets, default_metrics = _metric_paths(d)
    runner = d.get("runner", DEFAULT_RUNNER)
    if not isinstance(runner, str) or ":" not in runner:
        raise ValueError(f'sweep: runner must be "module:function", got {runner!r}')
    validate = d.get("validate", True)
    if not isinstance(validate, bool):
        raise ValueError("sweep: validate must be true or false")
    name = d.get("name") or (Path(source).stem if source else "sweep")

    s = SweepSpec(
        base=base,
        axes=axes,
        replications=reps,
        seed_axis=seed_axis,
        metrics=mets,
        default_metrics=default_metrics,
        runner=runner,
        validate=validate,
        name=str(name),
        source=source,
    )
    s.points = _points(s)
    return s


def _base_scenario(d: Mapping[str, Any], here: Path) -> dict[str, Any]:
    """The base scenario: a scenario file (relative to `here`), an inline table or an
    ``aqmlab.sim.Scenario``."""
    if "base" not in d:
        raise ValueError("sweep: missing base (a scenario file path or an inline [base] table)")
    b = d["base"]
    if isinstance(b, (str, os.PathLike)):
        bp = Path(b)
        if not bp.is_absolute():
            bp = here / bp
        data = read_toml(bp)
        # (a Python class's module beside the scenario file, for this process and the
        # workers the sweep starts)
        python_aqms_beside(scenario_queues(data), bp.parent)
        return data
    if isinstance(b, Mapping):
        return copy.deepcopy(dict(b))
    if hasattr(b, "to_dict"):  # an aqmlab.sim.Scenario
        return b.to_dict()
    raise ValueError(f"sweep: base must be a scenario file path or a table, got {type(b).__name__}")


def _axis_entries(d: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Every axis as (where, entry): the ``[axes]`` table's ``path = values`` (or
    ``path = {range = ...}``) first, then the ``[[axis]]`` entries."""
    entries: list[tuple[str, Mapping[str, Any]]] = []
    axes_t = d.get("axes", {})
    if not isinstance(axes_t, Mapping):
        raise ValueError("sweep: [axes] must be a table of path = values (or use [[axis]] entries)")
    for p, v in axes_t.items():
        where = f"axis {p!r}"
        if isinstance(v, Mapping):
            entries.append((where, {"path": p, **v}))
        else:
            entries.append((where, {"path": p, "values": v}))
    axis_l = d.get("axis", [])
    if not isinstance(axis_l, list):
        raise ValueError("sweep: [[axis]] must be an array of tables")
    for i, v in enumerate(axis_l):
        if not isinstance(v, Mapping):
            raise ValueError(f"sweep: axis[{i}] must be a table")
        p = v.get("path", v.get("paths"))
        entries.append((f"axis {p!r}" if p is not None else f"axis[{i}]", v))
    return entries


def _check_axes(axes: list[Axis]) -> bool:
    """No path or column given twice, no reserved column, the seed axis alone; returns
    whether there is a seed axis."""
    seen: dict[str, str] = {}
    for a in axes:
        for p, c in zip(a.paths, a.columns):
            if p in seen:
                raise ValueError(f"axis {p!r}: given twice")
            seen[p] = c
        cols = a.columns + ([a.label_column] if a.label_column else [])
        for c in cols:
            if c in _RESERVED and c != "seed":
                raise ValueError(f"axis column {c!r}: reserved name, give the axis another name")
    allcols = [c for a in axes for c in a.columns + ([a.label_column] if a.label_column else [])]
    dup = {c for c in allcols if allcols.count(c) > 1}
    if dup:
        raise ValueError(
            f"axis columns {sorted(dup)} given twice (use name = ... to tell them apart)"
        )
    seed_axis = "seed" in seen
    if seed_axis and any(len(a.paths) > 1 and "seed" in a.paths for a in axes):
        raise ValueError("axis 'seed': cannot be zipped with other paths")
    return seed_axis


def _metric_paths(d: Mapping[str, Any]) -> tuple[list[str], bool]:
    """The metric paths (syntax checked) and whether they are the default ones."""
    mets = d.get("metrics")
    default_metrics = mets is None
    if default_metrics:
        mets = list(_metrics.DEFAULT_METRICS)
    if not isinstance(mets, list) or not mets or not all(isinstance(m, str) for m in mets):
        raise ValueError("sweep: metrics must be a non-empty list of metric paths")
    for m in mets:
        _metrics.parse(m)  # syntax errors name the metric
    return mets, default_metrics


def replication_seed(base_seed: int, r: int) -> int:
    """The seed of replication `r`: the base scenario's seed plus r."""
    return int(base_seed) + r


def _points(s: SweepSpec) -> list[Point]:
    base_seed = s.base.get("seed", 1)
    int_at_least("base.seed", base_seed, 0)
    pts: list[Point] = []
    ids: dict[str, int] = {}
    for combo in itertools.product(*[range(len(a.values)) for a in s.axes]):
        params: dict[str, Any] = {}
        overrides: list[tuple[str, Any]] = []
        seed = base_seed
        for a, i in zip(s.axes, combo):
            if a.label_column and a.labels is not None:
                params[a.label_column] = _jsonable(a.labels[i])
            for p, c, v in zip(a.paths, a.columns, a.values[i]):
                if p == "seed":
                    seed = int(v)
                    continue
                params[c] = _jsonable(v)
                overrides.append((p, v))
        for r in range(s.replications):
            sd = seed if s.seed_axis else replication_seed(base_seed, r)
            pid = digest({"params": {p: v for p, v in overrides}, "seed": sd})
            if pid in ids:
                raise ValueError(
                    f"sweep: points {ids[pid]} and {len(pts)} are the same "
                    f"(parameters {params}, seed {sd}); remove the duplicate axis values"
                )
            ids[pid] = len(pts)
            pts.append(Point(len(pts), pid, dict(params), sd, list(overrides)))
    return pts


def _jsonable(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return canonical_json(v)
