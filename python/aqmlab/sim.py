"""The packet-level simulator from Python.

A scenario is the structure of a scenario file (see ``docs/simulator.md``), given as a
dict or read from TOML::

    sc = aqmlab.Scenario.from_file("scenarios/floyd1993_fig3.toml")
    sc = aqmlab.Scenario({"duration": "10s", "link": [...], "flow": [...]})
    res = aqmlab.simulate(sc, progress=True)
    res.summary["links"]["r1->r2"]["utilization"]
    res.flows, res.links              # pandas DataFrames (built when first read)
    res.traces["queue"]               # DataFrames of the traces asked for in [trace]
    res.to_dir("out/")                # summary.json + Parquet, written atomically

Invalid scenarios raise ``ValueError`` naming the field (``link[2].queue_ab.min_th``).
The run happens in Rust without the GIL; a Rust panic becomes ``RuntimeError``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable, Union

from . import _tables
from .base import load_toml, positive_int, staged_dir
from .progress import drive

__all__ = [
    "Scenario",
    "Result",
    "simulate",
    "simulate_toml",
    "simulation",
    "dumbbell",
    "summary_text",
    "TRACE_FILES",
]

#: Trace name -> CSV file written by the simulator.
TRACE_FILES = {
    "queue": "queue.csv",
    "packets": "packets.csv",
    "drops": "drops.csv",
    "cwnd": "cwnd.csv",
}


def python_aqms_beside(tables: Iterable[Any], directory: Path) -> None:
    """Put `directory` (the directory of the file the queue `tables` come from) first
    on ``sys.path`` if one of them is a Python class (``type = "python"``), so that its
    module is found beside the file; and on ``PYTHONPATH``, for the worker processes a
    sweep starts."""
    if not any(isinstance(q, Mapping) and q.get("type") == "python" for q in tables):
        return
    where = str(directory.resolve())
    if where not in sys.path:
        sys.path.insert(0, where)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if where not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([where] + [p for p in paths if p])


def scenario_queues(data: Mapping[str, Any]) -> list[Any]:
    """The queue tables of scenario `data` (``queue``, ``queue_ab``, ``queue_ba`` of each
    link)."""
    return [
        link.get(k)
        for link in data.get("link", [])
        if isinstance(link, Mapping)
        for k in ("queue", "queue_ab", "queue_ba")
    ]


class Scenario:
    """A scenario: the structure of a scenario file, validated on construction."""

    def __init__(self, data: Mapping[str, Any] | Scenario):
        if isinstance(data, Scenario):
            data = data.to_dict()
        if not isinstance(data, Mapping):
            raise ValueError("scenario: expected a dict with the structure of a scenario file")
        from . import _native

        # (validated before the copy: a dict that contains itself, or nests too deeply,
        # is refused with its path rather than copied)
        plain = data if isinstance(data, dict) else dict(data)
        _native.sim_validate(plain)
        self._data: dict[str, Any] = copy.deepcopy(plain)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        """A scenario from a dict with the TOML structure."""
        return cls(d)

    @classmethod
    def from_toml(cls, text: str) -> Scenario:
        """A scenario from TOML text."""
        return cls(load_toml(text))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Scenario:
        """A scenario from a TOML file. A queue written in Python
        (``type = "python"``) finds its module beside the file, or on ``sys.path``."""
        data = load_toml(Path(path).read_text())
        python_aqms_beside(scenario_queues(data), Path(path).parent)
        return cls(data)

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario's structure."""
        return copy.deepcopy(self._data)

    def normalized(self) -> dict[str, Any]:
        """The scenario as the simulator reads it: every quantity a number in SI units
        (seconds, b/s, bytes), defaults filled in, flows expanded (``count``, web
        connections), link directions named ("a->b"), each flow's ``path`` and
        ``ack_path`` routed and its ``bottleneck`` chosen. Read numbers from here rather
        than from the file: the shape is described in ``docs/simulator.md``."""
        from . import _native

        return _native.sim_normalize(self._data)

    def replace(self, **changes: Any) -> Scenario:
        """A copy with top-level keys changed (e.g. ``duration="10s"``, ``seed=2``)."""
        d = self.to_dict()
        d.update(changes)
        return Scenario(d)

    def __repr__(self) -> str:
        name = self._data.get("name") or "unnamed"
        return f"Scenario({name!r}, links={len(self._data.get('link', []))}, flows={len(self._data.get('flow', []))})"


class Result:
    """What a run produced. ``flows`` and ``links`` are pandas DataFrames built on first
    use (a run that only writes its files, as ``aqmlab run`` does, never imports pandas)."""

    def __init__(
        self, summary: dict[str, Any], traces: dict[str, Any], trace_dir: Path | None = None
    ):
        #: dict in the shape of ``summary.json``
        self.summary = summary
        #: name -> DataFrame ("queue", "packets", "drops", "cwnd")
        self.traces = traces
        #: pcap files, if asked for (copied by ``to_dir``); a run given no `trace_dir`
        #: leaves them in a temporary directory ``aqmlab-pcap-*`` for the caller to remove
        self.pcap_files = sorted(trace_dir.glob("*.pcap")) if trace_dir else []
        self._flows: Any = None
        self._links: Any = None

    @property
    def flows(self) -> Any:
        """One row per flow (a pandas DataFrame)."""
        if self._flows is None:
            import pandas as pd

            self._flows = pd.DataFrame(self.summary["flows"])
        return self._flows

    @flows.setter
    def flows(self, df: Any) -> None:
        self._flows = df

    @property
    def links(self) -> Any:
        """One row per link direction (a pandas DataFrame), ``link`` first, without
        ``drop_run_hist``."""
        if self._links is None:
            import pandas as pd

            df = pd.DataFrame(_tables.link_records(self.summary))
            if "drop_run_hist" in df:
                df = df.drop(columns=["drop_run_hist"])
            if len(df):
                df = df[["link"] + [c for c in df.columns if c != "link"]]
            self._links = df
        return self._links

    @links.setter
    def links(self, df: Any) -> None:
        self._links = df

    def to_dir(self, out: str | os.PathLike) -> Path:
        """Write summary.json, flows.parquet, links.parquet, one Parquet file per trace
        and any pcap files into `out`, atomically: everything goes to a temporary
        directory beside it that is renamed at the end, so `out` is complete or as it
        was. The flows and links tables are written by the compiled extension from the
        summary (the columns and values of ``flows`` and ``links``), without pandas,
        pyarrow or numpy."""
        out = Path(out)
        with staged_dir(out) as tmp:
            self._write_into(tmp)
        return out

    def _write_into(self, tmp: str | os.PathLike) -> None:
        """The files of :meth:`to_dir`, written into the directory `tmp`."""
        tmp = Path(tmp)
        (tmp / "summary.json").write_text(summary_text(self.summary))
        _tables.write_records(self.summary["flows"], tmp / "flows.parquet", frame=self._flows)
        _tables.write_records(
            _tables.link_records(self.summary),
            tmp / "links.parquet",
            drop=("drop_run_hist",),
            first="link",
            frame=self._links,
        )
        for name, df in self.traces.items():
            df.to_parquet(tmp / f"trace_{name}.parquet", index=False)
        for p in self.pcap_files:
            if p.exists():
                shutil.copy(p, tmp / p.name)

    def __repr__(self) -> str:
        n_links = len(self.summary.get("links", {}))
        return f"Result(flows={len(self.summary.get('flows', []))}, links={n_links}, traces={sorted(self.traces)})"


def summary_text(summary: Any) -> str:
    """`summary` as ``json.dumps(summary, indent=2)`` writes it, by the compiled
    extension (Python's encoder runs in pure Python when it indents); what the
    extension does not take (types of a user's own, deep nesting) goes to ``json``."""
    from . import _native

    try:
        return _native.json_dumps(summary)
    except (TypeError, ValueError):
        return json.dumps(summary, indent=2)


ProgressArg = Union[None, bool, Callable[[float, float], None]]


def simulate(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike,
    progress: ProgressArg = None,
    trace_dir: str | os.PathLike | None = None,
) -> Result:
    """Run a scenario (a Scenario, a dict, or the path of a TOML file).

    `progress`: None shows a tqdm bar only for runs longer than a few seconds of wall
    time, True always, False never; a callable gets ``(simulated_seconds, duration)``.
    `trace_dir`: keep the raw trace files there (default: a temporary directory).
    """
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        return simulate_toml(path.read_text(), path.parent, progress=progress, trace_dir=trace_dir)
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario)
    from . import _native

    data = scenario.to_dict()
    return _simulated(
        lambda tdir: _native.Simulation(data, tdir), progress, trace_dir, bool(data.get("trace"))
    )


def simulate_toml(  # noqa: PLR0913 - simulate()'s options and the file's own
    text: str,
    directory: str | os.PathLike = ".",
    changes: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    progress: ProgressArg = None,
    trace_dir: str | os.PathLike | None = None,
) -> Result:
    """Run a scenario file's TOML `text` (read and checked once, by the simulator), with
    the top-level keys of `changes` set over the file's (as :meth:`Scenario.replace`)
    and those of `defaults` where the file has none. A queue written in Python finds its
    module in `directory` (the file's), or on ``sys.path``. `progress`, `trace_dir`: as
    in :func:`simulate`."""
    from . import _native

    if "python" in text:  # (a queue ``type = "python"``, perhaps: its module's directory)
        python_aqms_beside(scenario_queues(load_toml(text)), Path(directory))
    ch, de = dict(changes or {}), dict(defaults or {})
    # (the temporary directory is there whether or not the file asks for traces)
    return _simulated(
        lambda tdir: _native.Simulation(text, tdir, ch, de), progress, trace_dir, True
    )


def _simulated(
    build: Callable[[str | None], Any],
    progress: ProgressArg,
    trace_dir: str | os.PathLike | None,
    traced: bool,
) -> Result:
    """Build the simulation (`build(trace_dir)`), run it and collect its result; the
    traces go to a temporary directory when none is given and `traced`."""
    own_tmp = None
    if trace_dir is None and traced:
        own_tmp = Path(tempfile.mkdtemp(prefix="aqmlab-trace-"))
        tdir: Path | None = own_tmp
    else:
        tdir = Path(trace_dir) if trace_dir is not None else None
    try:
        sim = build(str(tdir) if tdir is not None else None)
        drive(sim, progress)
        summary = sim.summary()
        traces = _read_traces(tdir) if tdir is not None else {}
        res = Result(summary, traces, tdir)
        if own_tmp is not None and res.pcap_files:
            # Keep pcap files readable after the temporary directory goes.
            keep = Path(tempfile.mkdtemp(prefix="aqmlab-pcap-"))
            res.pcap_files = [Path(shutil.copy(p, keep / p.name)) for p in res.pcap_files]
        return res
    finally:
        if own_tmp is not None:
            shutil.rmtree(own_tmp, ignore_errors=True)


def simulation(
    scenario: Scenario | Mapping[str, Any],
    trace_dir: str | os.PathLike | None = None,
) -> Any:
    """A run of `scenario` to step by hand (the compiled simulation): ``run_until(t,
    exact)`` advances it to `t` seconds (exactly there when `exact`), ``now`` and
    ``duration`` are its clock and end, ``summary()`` the summary so far (the shape of
    :attr:`Result.summary`). `trace_dir`: where the traces asked for are written."""
    from . import _native

    data = scenario.to_dict() if isinstance(scenario, Scenario) else dict(scenario)
    return _native.Simulation(data, None if trace_dir is None else str(trace_dir))


def _read_traces(tdir: str | os.PathLike) -> dict[str, Any]:
    """The traces of :data:`TRACE_FILES` found in `tdir`, as DataFrames."""
    out = {}
    for name, fname in TRACE_FILES.items():
        p = Path(tdir) / fname
        if p.exists():
            import pandas as pd

            out[name] = pd.read_csv(p)
    return out


#: The bottleneck's discipline in :func:`dumbbell` when none is given.
DUMBBELL_RED: dict[str, Any] = {
    "type": "red",
    "limit": 200,
    "min_th": 15,
    "max_th": 45,
    "w_q": 0.002,
    "max_p": 0.1,
    "gentle": True,
}


def dumbbell(  # noqa: PLR0913 - a public builder: each option of the scenario, by name
    n_flows: int,
    rate: str = "15Mbps",
    access_rate: str = "100Mbps",
    rtt_min: float = 0.100,
    rtt_max: float = 0.160,
    bottleneck_delay: float = 0.020,
    queue: Mapping[str, Any] | None = None,
    access_limit: int = 1000,
    duration: str = "100s",
    warmup: str = "0s",
    seed: int = 1,
    flow: Mapping[str, Any] | None = None,
    name: str = "dumbbell",
) -> dict[str, Any]:
    """A dumbbell as a scenario dict: sources s0..s{n-1} -> r1 -> r2 -> sinks k0..k{n-1}.

    Flow i's access links both have delay d_i, spread evenly so that the round-trip
    propagation time 2 (2 d_i + bottleneck_delay) runs from `rtt_min` to `rtt_max`.
    `queue` is the bottleneck's discipline (both directions); access links are Drop
    Tail with `access_limit` packets. `flow` gives extra keys of every flow (default:
    NewReno, 1000-byte packets, maximum window 1000, start uniform on [0, 1] s).
    """
    positive_int("n_flows", n_flows)
    links = [
        {
            "a": "r1",
            "b": "r2",
            "rate": rate,
            "delay": bottleneck_delay,
            "queue": dict(queue or DUMBBELL_RED),
        }
    ]
    flows = []
    for i in range(n_flows):
        rtt = rtt_min + (rtt_max - rtt_min) * (i / (n_flows - 1) if n_flows > 1 else 0.0)
        d = (rtt / 2 - bottleneck_delay) / 2
        if d < 0:
            raise ValueError(f"rtt_min = {rtt_min} is invalid: allowed >= 2 * bottleneck_delay")
        dq = {"type": "droptail", "limit": access_limit}
        links.append({"a": f"s{i}", "b": "r1", "rate": access_rate, "delay": d, "queue": dq})
        links.append({"a": "r2", "b": f"k{i}", "rate": access_rate, "delay": d, "queue": dict(dq)})
        f = {
            "type": "tcp",
            "variant": "newreno",
            "src": f"s{i}",
            "dst": f"k{i}",
            "start": {"uniform": [0, 1]},
            "packet_size": 1000,
            "max_window": 1000,
        }
        f.update(flow or {})
        flows.append(f)
    return {
        "name": name,
        "duration": duration,
        "warmup": warmup,
        "seed": seed,
        "bottleneck": "r1->r2",
        "link": links,
        "flow": flows,
    }
