"""``aqmlab.evaluate.evaluate``: the RFC 7928 scenarios for a set of AQMs, run as sweeps.

Each selected scenario (and its ECN variant) is one :mod:`aqmlab.sweeps` sweep, stored in
``OUT/sweeps/<id>[+ecn][-quick]/``: its base is the runner's point dict (scenario id,
ECN, quick), its one axis the (variant, queue) pairs labelled by the AQM (column
``aqm``), its replications the seeds. All the sweeps run through one Dask client (an
embedded ``LocalCluster`` of ``jobs`` workers, or the cluster at ``scheduler``), every
point is stored as it finishes, and a re-run computes only the missing points; a
changed AQM list or seed count extends the sweeps (the finished points that are still
wanted are kept). At the end the rows become ``OUT/metrics.parquet`` (one row per
scenario, variant, ECN, AQM and seed), ``OUT/flows.parquet`` (one row per flow and run),
``OUT/evaluate.json`` (what was run, with the timings) and the report (``OUT/plots/``,
``OUT/index.html``, :mod:`aqmlab.evaluate.report`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Union,
)

from ..aqm import QUEUE_TYPES
from ..base import ArgumentError, check_out_dir, positive_int, replace_file, set_aside
from ..base import build_id as _bid
from ..compare import queue_tables
from ..sweeps import execute, load_spec, store
from ..sweeps import sweep as run_sweep
from . import report
from .columns import FLOW_KEY_COLUMNS, KEY_COLUMNS, METRIC_COLUMNS
from .scenarios import SCENARIOS, unavailable

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The sweep runner (``module:function``) every point runs on its worker.
RUNNER = "aqmlab.evaluate.runner:run"
#: The AQMs evaluated when none are named (Drop Tail is the reference).
DEFAULT_AQMS = ("droptail", "red", "ared", "codel", "pie", "fq_codel", "fq_pie")
#: Seeds per (scenario, variant, AQM): 1..N.
DEFAULT_SEEDS = {False: 5, True: 3}
#: The sweep's own columns, not metrics.
_SWEEP_COLUMNS = {"point", "point_id", "variant", "queue", "aqm", "seed", "wall_time", "error"}
BUILD_FILE = "aqmlab-build"

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

    def info(self) -> Dict[str, Any]:
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


def all_runs() -> List[Run]:
    """Every scenario in RFC order, each followed by its ECN variant if it has one."""
    runs: List[Run] = []
    for sc in SCENARIOS:
        runs.append(Run(sc, False))
        if sc.has_ecn:
            runs.append(Run(sc, True))
    return runs


def list_scenarios() -> List[Dict[str, Any]]:
    """The scenarios (ECN variants included) as dicts: id, scenario, section, title,
    description, ecn."""
    return [r.info() for r in all_runs()]


def _matches(scenario_id: str, token: str) -> bool:
    return scenario_id == token or scenario_id.startswith(token + ".")


def select(tokens: Optional[Union[str, Sequence[str]]]) -> List[Run]:
    """The runs chosen by `tokens` (comma-separated text or a list; ``None``: all).

    A token is a scenario id or an RFC section prefix (``5``, ``5.3``, ``8.2.4``), which
    selects the matching scenarios with their ECN variants; ``<prefix>+ecn`` selects only
    the ECN variants of the matching scenarios, and ``ecn`` all of them. The result keeps
    the RFC order. ValueError names an unknown token and lists the ids. A scenario the
    installed simulator cannot run (:func:`.scenarios.unavailable`) is left out of a
    selection by prefix (and of the default) and refused when named by its id.
    """
    runs = all_runs()
    why = {r.id: unavailable(r.scenario.id) for r in runs}
    if tokens is None:
        return [r for r in runs if why[r.id] is None]
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
        if not hit:
            ids = ", ".join(r.id for r in runs)
            raise ArgumentError("scenarios", f": no scenario {t!r}; the scenarios are: {ids}, ecn")
        chosen.update(r.id for r in hit)
    named = [f"{t} ({why[t]})" for t in toks if why.get(t) is not None]
    if named:
        raise ArgumentError("scenarios", f": cannot run {', '.join(named)}")
    return [r for r in runs if r.id in chosen and why[r.id] is None]


def queues_from(
    aqms: Optional[Union[str, Sequence[str], Mapping[str, Mapping[str, Any]]]] = None,
    aqm_file: Optional[PathLike] = None,
) -> Dict[str, Dict[str, Any]]:
    """The AQMs to evaluate, label -> queue table: `aqms` (comma-separated types, a list of
    types, or a dict of label -> table) and the ``[queue.LABEL]`` tables of `aqm_file`
    (as ``aqmlab compare --aqm-file``); neither: :data:`DEFAULT_AQMS`. ValueError for an
    unknown type, a bad file, or two AQMs with the same table."""
    types = set(QUEUE_TYPES)
    out: Dict[str, Dict[str, Any]] = {}
    names: Optional[str] = None
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
    seen: Dict[str, str] = {}
    for label, t in out.items():
        if t["type"] not in types:
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
    run: Run, queues: Mapping[str, Mapping[str, Any]], quick: bool, seeds: int
) -> Dict[str, Any]:
    """The sweep of `run`: base = the runner's point dict, one axis of (variant, queue)
    pairs labelled by the AQM, `seeds` replications (seeds 1..seeds)."""
    values: List[List[Any]] = []
    labels: List[str] = []
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
    return {
        "name": f"evaluate {run.dirname(quick)}",
        "base": base,
        "replications": seeds,
        "runner": RUNNER,
        "metrics": ["*", "flows_json"],
        "axis": [
            {"paths": ["variant", "queue"], "name": "aqm", "values": values, "labels": labels}
        ],
    }


#: The modules whose code decides a run's numbers besides the simulator: the scenarios'
#: definitions, the runner and the metrics.
_RESULT_MODULES = ("scenarios.py", "sensitivity.py", "runner.py", "metrics.py")


def build_id() -> str:
    """The digest of the package version, the compiled simulator (the catalogue's build)
    and the source of :data:`_RESULT_MODULES`, so that a changed scenario or metric
    definition is computed again rather than mixed with stored runs."""
    h = hashlib.sha256(_bid().encode())
    for name in _RESULT_MODULES:
        h.update(Path(__file__).with_name(name).read_bytes())
    return h.hexdigest()[:16]


def _keep_or_set_aside(d: Path, build: str, fixed_hash: str, progress: bool) -> None:
    """A stored sweep computed by another build, or of another form (its base, runner,
    metrics or axis paths: ``fixed_hash``), is moved aside to ``<d>.superseded-<tag>``
    (never mixed with this build's points, nothing deleted); then `d` is marked with
    this build."""
    f = d / BUILD_FILE
    m = store.read_manifest(d) if d.is_dir() else None
    if m is not None:
        old = f.read_text().strip() if f.exists() else "unknown"
        why = "another build of aqmlab" if old != build else None
        if why is None and m.get("fixed_hash") != fixed_hash:
            why, old = "another form of the sweep", str(m.get("fixed_hash"))
        if why is not None:
            dest = set_aside(d, old[:8])
            if progress:
                print(
                    f"aqmlab evaluate: {d} was computed by {why}; moved to {dest}", file=sys.stderr
                )
    d.mkdir(parents=True, exist_ok=True)
    if not f.exists() or f.read_text().strip() != build:
        f.write_text(build + "\n")


def _todo(spec: Any, d: Path, retry_failed: bool) -> int:
    """How many points of `spec` are not stored in `d` (a rough count for the cluster size:
    stored points of another build are counted as done)."""
    have = store.finished(d) if d.is_dir() else set()
    n = sum(p.id not in have for p in spec.points)
    if retry_failed and have:
        n += len(store.failed(d, have & {p.id for p in spec.points}))
    return n


def evaluate(
    aqms: Optional[Union[str, Sequence[str], Mapping[str, Mapping[str, Any]]]] = None,
    aqm_file: Optional[PathLike] = None,
    scenarios: Optional[Union[str, Sequence[str]]] = None,
    quick: bool = False,
    out: PathLike = "evaluate-out",
    jobs: Optional[int] = None,
    scheduler: Any = None,
    progress: bool = True,
    seeds: Optional[int] = None,
    *,
    retry_failed: bool = False,
    start_method: Optional[str] = None,
) -> "pd.DataFrame":
    """Run the RFC 7928 scenarios for a set of AQMs; write and return the metrics.

    `aqms`: queue types at their defaults (``"red,codel"`` or a list), or a dict of label
    -> queue table; `aqm_file`: a TOML file of ``[queue.LABEL]`` tables (``aqmlab compare
    --aqm-file``); neither: :data:`DEFAULT_AQMS`. A queue without ``limit`` /
    ``limit_bytes`` gets the scenario's buffer. `scenarios`: ids or RFC section prefixes
    (:func:`select`; default all). `quick`: 60 s runs (10 s warm-up) instead of 300 s
    (30 s), 3 seeds instead of 5; `seeds` overrides the number of seeds (1..seeds).
    `jobs` / `scheduler` / `start_method`: the Dask cluster, as for ``aqmlab.sweep``.

    Writes ``out/sweeps/``, ``metrics.parquet``, ``flows.parquet``, ``evaluate.json``,
    ``plots/`` and ``index.html``. Returns metrics.parquet's rows (failed points are left
    out; ``df.attrs["evaluate"]`` has the run's record, with the failed points and each
    sweep's counts). Bad arguments raise ValueError before anything is written.
    """
    t0 = time.perf_counter()
    if seeds is not None:
        positive_int("seeds", seeds)
    if jobs is not None:
        positive_int("jobs", jobs)
    if jobs is not None and scheduler is not None:
        raise ValueError("give jobs or scheduler, not both (jobs sizes the local cluster)")
    queues = queues_from(aqms, aqm_file)
    runs = select(scenarios)
    nseeds = seeds if seeds is not None else DEFAULT_SEEDS[bool(quick)]
    out = check_out_dir(out, inside=True)
    specs = _checked_specs(runs, queues, bool(quick), nseeds)
    build = build_id()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    stats = _run_sweeps(
        out, runs, specs, bool(quick), jobs, scheduler, progress, retry_failed, start_method, build
    )
    metrics, flows, failed = assemble(out, runs, specs, queues, bool(quick))
    info: Dict[str, Any] = {
        "aqms": queues,
        "scenarios": [r.id for r in runs],
        "quick": bool(quick),
        "seeds": list(range(1, nseeds + 1)),
        "jobs": jobs,
        "scheduler": None if scheduler is None else str(scheduler),
        "runner": RUNNER,
        "build": build,
        "started": started,
        "sweeps": stats,
        "failed": failed,
        "rows": len(metrics),
    }
    _write_tables(out, metrics, flows)

    info["wall_seconds"] = time.perf_counter() - t0
    report.write(out, metrics, info, [r.info() for r in runs])
    info["wall_seconds"] = time.perf_counter() - t0
    _write_json(out / "evaluate.json", info)
    metrics.attrs["evaluate"] = info
    return metrics


def _checked_specs(
    runs: Sequence[Run], queues: Mapping[str, Mapping[str, Any]], quick: bool, seeds: int
) -> List[Any]:
    """Every run's sweep, read and validated (the runner checks one scenario per value)
    before anything runs: a bad parameter is refused up front, naming the scenario."""
    specs = []
    for r in runs:
        try:
            s = load_spec(sweep_spec(r, queues, quick, seeds))
            execute.validate_points(s)
        except ValueError as e:
            raise ValueError(f"scenario {r.id}: {e}") from None
        specs.append(s)
    return specs


def _run_sweeps(
    out: Path,
    runs: Sequence[Run],
    specs: Sequence[Any],
    quick: bool,
    jobs: Optional[int],
    scheduler: Any,
    progress: bool,
    retry_failed: bool,
    start_method: Optional[str],
    build: str,
) -> Dict[str, Dict[str, Any]]:
    """Run (or resume, or extend) every sweep on one Dask client; returns each sweep's
    counts and timings (the sweep engine's ``df.attrs["sweep"]``)."""
    dirs = [out / "sweeps" / r.dirname(quick) for r in runs]
    for s, d in zip(specs, dirs):
        _keep_or_set_aside(d, build, s.fixed_hash, progress)
    todo = sum(_todo(s, d, retry_failed) for s, d in zip(specs, dirs))
    stats: Dict[str, Dict[str, Any]] = {}
    t0 = time.perf_counter()
    with ExitStack() as stack:
        client = (
            stack.enter_context(execute.cluster(scheduler, jobs, todo, start_method))
            if todo
            else None
        )
        startup = time.perf_counter() - t0
        for i, (r, s, d) in enumerate(zip(runs, specs, dirs)):
            if progress:
                print(
                    f"aqmlab evaluate: [{i + 1}/{len(runs)}] {r.id}: {r.scenario.title} "
                    f"({len(s.points)} points)",
                    file=sys.stderr,
                )
            df = run_sweep(
                s,
                out=d,
                scheduler=client,
                progress=progress,
                extend=True,
                retry_failed=retry_failed,
            )
            st = dict(df.attrs.get("sweep", {}))
            st.pop("out", None)
            stats[r.id] = st
    stats["_cluster"] = {"startup_seconds": startup, "points_to_compute": todo}
    return stats


def assemble(
    out: Path,
    runs: Sequence[Run],
    specs: Sequence[Any],
    queues: Mapping[str, Mapping[str, Any]],
    quick: bool,
) -> "tuple[pd.DataFrame, pd.DataFrame, List[Dict[str, Any]]]":
    """metrics.parquet's and flows.parquet's rows from the sweeps' datasets, and the
    failed points (scenario, variant, ecn, aqm, seed, error). The label and variant of a
    row come from the current sweep's point list (by point id)."""
    import pandas as pd

    parts: List[pd.DataFrame] = []
    flow_rows: List[Dict[str, Any]] = []
    failed: List[Dict[str, Any]] = []
    for r, s in zip(runs, specs):
        df = store.load(out / "sweeps" / r.dirname(quick))
        byid = {p.id: p for p in s.points}
        df = df[df["point_id"].isin(byid)]
        pts = [byid[i] for i in df["point_id"]]
        keys = {
            "scenario": [r.scenario.id] * len(df),
            "section": [r.scenario.section] * len(df),
            "variant": [p.params["variant"] for p in pts],
            "ecn": [r.ecn] * len(df),
            "aqm": [p.params["aqm"] for p in pts],
            "type": [queues[p.params["aqm"]]["type"] for p in pts],
            "seed": [int(p.seed) for p in pts],
        }
        k = pd.DataFrame(keys, index=df.index)
        err = df["error"].notna()
        for i in k.index[err]:
            failed.append(
                {**{c: _plain(k.at[i, c]) for c in FLOW_KEY_COLUMNS}, "error": df.at[i, "error"]}
            )
        mcols = [
            c
            for c in df.columns
            if c not in _SWEEP_COLUMNS
            and c not in KEY_COLUMNS
            and c != "flows_json"
            and ":" not in c
        ]
        ok = ~err
        part = pd.concat([k[ok], df.loc[ok, mcols], df.loc[ok, ["wall_time"]]], axis=1)
        parts.append(part)
        if "flows_json" in df.columns:
            for i in k.index[ok]:
                head = {c: _plain(k.at[i, c]) for c in FLOW_KEY_COLUMNS}
                for f in json.loads(df.at[i, "flows_json"]):
                    flow_rows.append({**head, **_flow_fields(f)})
    metrics = _order_columns(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame())
    flows = (
        pd.DataFrame.from_records(flow_rows)
        if flow_rows
        else pd.DataFrame(columns=list(FLOW_KEY_COLUMNS))
    )
    return metrics, flows, failed


def _flow_fields(f: Mapping[str, Any]) -> Dict[str, Any]:
    """A flow's fields, those named like a key column prefixed with ``flow_`` (the flow's
    TCP ``variant`` becomes ``flow_variant``, beside the scenario's ``variant``)."""
    return {(f"flow_{k}" if k in FLOW_KEY_COLUMNS else k): v for k, v in f.items()}


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value (for JSON)."""
    return v.item() if hasattr(v, "item") else v


def _order_columns(df: "pd.DataFrame") -> "pd.DataFrame":
    """The contract's order: keys, the fixed metrics (NaN columns added where no row has
    one), the other metrics (class columns) sorted, ``wall_time``; stable dtypes."""
    import numpy as np
    import pandas as pd

    for c in KEY_COLUMNS:
        if c not in df.columns:
            df[c] = pd.Series(dtype=bool if c == "ecn" else (np.int64 if c == "seed" else object))
    for c in (*METRIC_COLUMNS, "wall_time"):
        if c not in df.columns:
            df[c] = np.nan
    rest = sorted(
        c
        for c in df.columns
        if c not in KEY_COLUMNS and c not in METRIC_COLUMNS and c != "wall_time"
    )
    df = df[[*KEY_COLUMNS, *METRIC_COLUMNS, *rest, "wall_time"]]
    return df.astype({"ecn": bool, "seed": np.int64})


def _write_tables(out: Path, metrics: "pd.DataFrame", flows: "pd.DataFrame") -> None:
    """metrics.parquet and flows.parquet, each written beside and renamed into place."""
    for name, df in (("metrics.parquet", metrics), ("flows.parquet", flows)):
        with replace_file(out / name) as tmp:
            df.to_parquet(tmp, index=False)


def _write_json(path: Path, obj: Any) -> None:
    with replace_file(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=1, default=_json_default, allow_nan=True) + "\n")


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    return str(v)


def load(out: PathLike, what: str = "metrics") -> "pd.DataFrame":
    """The rows of a finished evaluation: ``what = "metrics"`` (``OUT/metrics.parquet``)
    or ``"flows"`` (``OUT/flows.parquet``)."""
    import pandas as pd

    if what not in ("metrics", "flows"):
        raise ValueError(f"what: must be 'metrics' or 'flows', got {what!r}")
    p = Path(out) / f"{what}.parquet"
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file (run aqmlab evaluate --out {out} first)")
    return pd.read_parquet(p)


def describe(info: Mapping[str, Any]) -> Iterable[str]:
    """Lines summarising a run's record (``evaluate.json``) for the terminal."""
    st = info.get("sweeps", {})
    done = sum(v.get("computed", 0) for k, v in st.items() if not k.startswith("_"))
    there = sum(v.get("already_done", 0) for k, v in st.items() if not k.startswith("_"))
    yield (
        f"{len(info.get('scenarios', []))} scenarios x {len(info.get('aqms', {}))} AQMs: "
        f"{info.get('rows', 0)} runs ({done} computed now, {there} already there; "
        f"{len(info.get('failed', []))} failed) in {info.get('wall_seconds', 0.0):.1f} s"
    )
