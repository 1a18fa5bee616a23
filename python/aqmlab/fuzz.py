"""A fuzzer for the simulator's entry points: ``python -m aqmlab.fuzz --cases 100000``.

Each case takes a valid scenario (the ones shipped in ``aqmlab/scenarios``, cut to a
short run) or queue configuration and mutates it: wrong types, extreme numbers (0,
negative, NaN, infinities, 2^63, 1e308, the smallest doubles), strings with units
that overflow or round to nothing, unknown and missing keys, duplicated tables and
lines of the TOML text. The input then goes to one entry point: ``aqmlab.simulate``
(a dict or TOML text), ``aqmlab._native.Simulation`` (stepped with ``run_until``,
including bad times) or ``aqmlab.aqm.Queue`` (fed a few packets, including at bad
times). Every case must either run or be refused with a ``ValueError`` whose message
starts with the path of a field (``flow[0].rate = ...``, ``link[1].queue.limit: ...``)
or says which guard stopped the run. Anything else is a failure: another exception,
a message without a path, a crash of the worker process. A case that takes longer
than ``--timeout`` seconds has hung: its worker is killed and replaced.

Cases run in worker processes (``--jobs``, default one per core); case ``i`` of seed
``s`` is the same input on every machine, and ``--case i`` runs one case in this
process and prints its input. The counts (ran, refused, failed, hung) and the time
are printed at the end; the exit status is 1 if any case failed or hung.
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing as mp
import os
import random
import re
import sys
import time
import warnings
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import aqmlab

from . import aqm
from .aqm import QUEUE_TYPES
from .base import load_toml, positive, positive_int
from .cli import run_command

__all__ = ["make_case", "run_input", "classify", "Pool", "main"]

#: The simulated time a case runs at most (its scenario's duration is cut to this).
RUN_SECONDS = 0.05

#: Numbers at the edges: zero, negative, not a number, infinities, 2^63 and its
#: neighbours, the largest and smallest doubles, spans below the clock's resolution.
EXTREMES: tuple[Any, ...] = (
    0,
    -1,
    0.0,
    -0.0,
    float("nan"),
    float("inf"),
    float("-inf"),
    2**63,
    2**63 - 1,
    -(2**63),
    2**64,
    2**31,
    1e308,
    -1e308,
    5e-324,
    1e-12,
    4.6e9,
    1e19,
)

#: Values of the wrong type, and strings with units that overflow, round to zero or
#: do not parse.
WRONG: tuple[Any, ...] = (
    "x",
    "",
    "1e9Gbps",
    "1e308bps",
    "0.1ns",
    "1e308s",
    "-5ms",
    "nan s",
    "inf",
    "10 parsecs",
    "1e-300B",
    "9223372036854775808B",
    True,
    False,
    [],
    {},
    [1, 2],
    {"x": 1},
    None,
)

UNKNOWN_KEYS = ("foo", "limitt", "Type", "", "rate ", "queue_ac")

#: TOML literals put in place of a number in the text.
TOML_NUMBERS = ("1e308", "inf", "-inf", "nan", "9223372036854775807", "-0", "0", "1e-12")

#: A refusal names where: a field path (`flow[0].rate = ...`, `link[1].queue: ...`),
#: a syntax error, or the guard that stopped the run.
_SEGMENT = r'([\w-]+|"(?:[^"\\]|\\.)*")(\[\d+\])*'
_REFUSAL = re.compile(rf"^(TOML syntax|run stopped: |{_SEGMENT}(\.{_SEGMENT})*( = |: ))")


def _scenario_dir() -> Path:
    return Path(__file__).resolve().parent / "scenarios"


_SEEDS: list[tuple[str, str, dict[str, Any]]] | None = None


def seeds() -> list[tuple[str, str, dict[str, Any]]]:
    """The valid scenarios mutations start from: (name, TOML text, dict), each cut to
    a run of RUN_SECONDS with no warm-up."""
    global _SEEDS
    if _SEEDS is None:
        out = []
        for p in sorted(_scenario_dir().glob("*.toml")):
            text = _short_text(p.read_text())
            out.append((p.stem, text, load_toml(text)))
        _SEEDS = out
    return _SEEDS


def _short_text(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if re.match(r"^\s*(duration|warmup)\s*=", line):
            continue
        lines.append(line)
    head = [f'duration = "{RUN_SECONDS}s"', "warmup = 0"]
    return "\n".join(head + lines) + "\n"


def _slots(d: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of a tree of dicts and lists, the top level excepted."""
    out: list[tuple[Any, Any]] = []
    stack = [d]
    while stack:
        c = stack.pop()
        items = list(c.items()) if isinstance(c, dict) else list(enumerate(c))
        for k, v in items:
            out.append((c, k))
            if isinstance(v, (dict, list)):
                stack.append(v)
    return out


def _add_unknown(d: dict[str, Any], slots: list, rng: random.Random) -> None:
    """An unknown key at the top, or (mostly) in a table of `d` or beside a value in one."""
    target: Any = d
    if slots and rng.random() < 0.7:
        c, k = rng.choice(slots)
        target = c[k] if isinstance(c[k], dict) else c
    if isinstance(target, dict):
        target[rng.choice(UNKNOWN_KEYS)] = rng.choice(EXTREMES + WRONG)


def _change_slot(c: Any, k: Any, op: str, rng: random.Random) -> None:
    """Mutation `op` of the value at ``c[k]``."""
    v = c[k]
    if op == "extreme":
        c[k] = rng.choice(EXTREMES)
    elif op == "wrong":
        c[k] = copy.deepcopy(rng.choice(WRONG))
    elif op == "delete":
        del c[k]
    elif op == "dup":
        if isinstance(v, list) and v:
            v.append(copy.deepcopy(rng.choice(v)))
        elif isinstance(c, list):
            c.append(copy.deepcopy(v))
        else:
            c[k] = [copy.deepcopy(v), copy.deepcopy(v)]
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        if op == "scale":
            c[k] = v * 10.0 ** rng.randint(-12, 12)
        else:
            c[k] = type(v)(v * rng.choice((0.5, 2, 10, 0.1, 3)))
    else:
        c[k] = rng.choice(EXTREMES)


def mutate(d: dict[str, Any], rng: random.Random, n: int) -> None:
    """Apply `n` random mutations to the tree `d` in place."""
    for _ in range(n):
        slots = _slots(d)
        op = rng.choice(
            ("extreme", "extreme", "wrong", "delete", "unknown", "dup", "scale", "nudge", "nudge")
        )
        if op == "unknown" or not slots:
            _add_unknown(d, slots, rng)
            continue
        c, k = rng.choice(slots)
        _change_slot(c, k, op, rng)


def mutate_text(text: str, rng: random.Random, n: int) -> str:
    """Apply `n` random mutations to the lines of a TOML text: a line deleted or
    doubled, a table doubled (its header and keys), a number replaced."""
    lines = text.splitlines()
    for _ in range(n):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.choice(("delete", "double", "table", "number", "number"))
        if op == "delete":
            del lines[i]
        elif op == "double":
            lines.insert(i, lines[i])
        elif op == "table":
            heads = [j for j, s in enumerate(lines) if s.startswith("[")]
            if heads:
                j = rng.choice(heads)
                k = next((m for m in heads if m > j), len(lines))
                lines[k:k] = lines[j:k]
        else:
            nums = list(re.finditer(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?(?![\w.])", lines[i]))
            if nums:
                m = rng.choice(nums)
                s = lines[i]
                lines[i] = s[: m.start()] + rng.choice(TOML_NUMBERS) + s[m.end() :]
    return "\n".join(lines) + "\n"


def _queue_configs() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": t, "limit": 100} for t in QUEUE_TYPES]
    for _, _, d in seeds():
        for link in d.get("link", []):
            for key in ("queue", "queue_ab", "queue_ba"):
                if isinstance(link.get(key), dict):
                    out.append(link[key])
    return out


def cut_duration(d: dict[str, Any]) -> None:
    """Cut a valid duration that a mutation made long back to RUN_SECONDS (a long run
    is no hang; an invalid duration stays, to be refused)."""
    from ._native import parse_quantity

    v = d.get("duration")
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        return
    try:
        secs = parse_quantity(v, "time", "duration")
    except (ValueError, OverflowError):
        return
    if RUN_SECONDS < secs <= 4.6e9:
        d["duration"] = RUN_SECONDS


def make_case(seed: int, index: int) -> tuple[str, Any]:
    """Case `index` of the fuzzing run `seed`: (entry point, input)."""
    rng = random.Random(seed * 1_000_003 + index)
    n = rng.choice((1, 1, 2, 3))
    r = rng.random()
    if r < 0.15:
        cfg = copy.deepcopy(rng.choice(_queue_configs()))
        mutate(cfg, rng, n)
        return "queue", (cfg, rng.choice(EXTREMES))
    name, text, d = rng.choice(seeds())
    if r < 0.3:
        return "toml", mutate_text(text, rng, n)
    d = copy.deepcopy(d)
    mutate(d, rng, n)
    cut_duration(d)
    if r < 0.45:
        return "native", (d, rng.choice((0.0, RUN_SECONDS / 2, -1.0, float("nan"), 1e308)))
    return "simulate", d


def run_input(kind: str, data: Any) -> None:
    """Give `data` to the entry point `kind`; returns if it ran, raises if not."""
    from . import _native

    if kind == "simulate":
        aqmlab.simulate(data, progress=False)
    elif kind == "toml":
        aqmlab.simulate(aqmlab.Scenario.from_toml(data), progress=False)
    elif kind == "native":
        sc, t = data
        sim = _native.Simulation(sc)
        sim.run_until(t)
        sim.run_until(sim.duration)
        sim.summary()
    elif kind == "queue":
        cfg, bad_now = data
        q = aqm.Queue(cfg)
        for i in range(50):
            q.enqueue(i * 1e-3, 1000, i % 3, False)
            if i % 4 == 3:
                q.dequeue(i * 1e-3)
        q.enqueue(bad_now, 1000, 0, False)
    else:
        raise ValueError(f"kind = {kind!r} is invalid")


def classify(exc: BaseException | None) -> tuple[str, str]:
    """("ran" | "refused" | "failed", detail) for what a case raised (None: nothing)."""
    if exc is None:
        return "ran", ""
    msg = str(exc)
    if type(exc) is ValueError and _REFUSAL.match(msg):
        return "refused", msg[:200]
    return "failed", f"{type(exc).__name__}: {msg[:500]}"


def _outcome(kind: str, data: Any) -> tuple[str, str]:
    try:
        run_input(kind, data)
    except Exception as e:  # every exception is classified, none escapes
        return classify(e)
    return classify(None)


def _worker(conn: Connection, seed: int) -> None:
    warnings.simplefilter("ignore")
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        tag, payload = msg
        kind, data = make_case(seed, payload) if tag == "index" else payload
        conn.send(_outcome(kind, data))


class Pool:
    """Worker processes that run cases, each with a wall-time limit: a worker whose
    case takes longer is killed (the case has hung) and a new one takes its place; a
    worker that dies (a crash) fails its case."""

    def __init__(self, jobs: int, timeout: float, seed: int = 0):
        positive_int("jobs", jobs)
        positive("timeout", timeout)
        methods = mp.get_all_start_methods()
        self._ctx: Any = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.jobs, self.timeout, self.seed = jobs, timeout, seed
        self._workers: list[tuple[Any, Connection] | None] = [None] * jobs

    def _start(self, i: int) -> tuple[Any, Connection]:
        a, b = self._ctx.Pipe()
        p = self._ctx.Process(target=_worker, args=(b, self.seed), daemon=True)
        p.start()
        b.close()
        self._workers[i] = (p, a)
        return p, a

    def _live(self, i: int) -> tuple[Any, Connection]:
        w = self._workers[i]
        assert w is not None, "a busy worker is alive"
        return w

    def _kill(self, i: int) -> None:
        w = self._workers[i]
        if w is not None:
            w[0].kill()
            w[0].join()
            w[1].close()
        self._workers[i] = None

    def run(self, jobs: list[tuple[str, Any]], report: Any = None) -> list[tuple[str, str]]:
        """Run `jobs` (each ("index", i) or ("input", (kind, data))); the outcome of
        each in order: ("ran" | "refused" | "failed" | "hung", detail)."""
        results: list[tuple[str, str] | None] = [None] * len(jobs)
        busy: dict[int, tuple[int, float]] = {}  # worker -> (job, deadline)
        nxt = 0
        while nxt < len(jobs) or busy:
            for i in range(self.jobs):
                if i not in busy and nxt < len(jobs):
                    p, conn = self._workers[i] or self._start(i)
                    conn.send(jobs[nxt])
                    busy[i] = (nxt, time.monotonic() + self.timeout)
                    nxt += 1
            conns: dict[Connection, int] = {self._live(i)[1]: i for i in busy}
            soonest = min(d for _, d in busy.values())
            ready = wait(list(conns), timeout=max(0.0, soonest - time.monotonic()))
            for c in ready:
                i = conns[c]  # type: ignore[index]
                j, _ = busy.pop(i)
                proc, conn = self._live(i)
                try:
                    results[j] = conn.recv()
                except (EOFError, OSError):
                    proc.join(timeout=5)
                    code = proc.exitcode
                    results[j] = ("failed", f"the worker process died (exit code {code})")
                    self._kill(i)
                if report is not None:
                    report(j, results[j])
            now = time.monotonic()
            for i, (j, deadline) in list(busy.items()):
                if now > deadline:
                    results[j] = ("hung", f"no answer within {self.timeout} s")
                    busy.pop(i)
                    self._kill(i)
                    if report is not None:
                        report(j, results[j])
        return [r if r is not None else ("failed", "lost") for r in results]

    def close(self) -> None:
        for i, w in enumerate(self._workers):
            if w is not None:
                try:
                    w[1].send(None)
                except OSError:
                    pass
                w[0].join(timeout=5)
                self._kill(i)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _show_case(seed: int, index: int) -> int:
    kind, data = make_case(seed, index)
    print(f"case {index} (seed {seed}): {kind}")
    print(data if kind == "toml" else repr(data))
    status, detail = _outcome(kind, data)
    print(f"-> {status}: {detail}")
    return 0 if status in ("ran", "refused") else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m aqmlab.fuzz",
        description="Fuzz aqmlab.simulate, aqmlab._native.Simulation and aqmlab.aqm.Queue "
        "with mutated scenarios and queue configurations; print the counts of cases that "
        "ran, were refused with a field path, failed, or hung.",
    )
    ap.add_argument("--cases", type=int, default=1000, help="number of cases (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="fuzzing seed (default 0)")
    ap.add_argument("--start", type=int, default=0, help="index of the first case")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a case may take")
    ap.add_argument("--case", type=int, help="run this one case here and print its input")
    ap.add_argument("--show", type=int, default=20, help="failures to print (default 20)")
    a = ap.parse_args(argv)
    return run_command(_fuzz, a, ap, "python -m aqmlab.fuzz")


def _fuzz(a: argparse.Namespace) -> int:
    """The command's work: one case shown, or `a.cases` cases run and counted."""
    if a.case is not None:
        return _show_case(a.seed, a.case)
    positive_int("cases", a.cases)
    counts = {"ran": 0, "refused": 0, "failed": 0, "hung": 0}
    bad: list[str] = []
    t0 = time.monotonic()

    def report(j: int, r: tuple[str, str]) -> None:
        counts[r[0]] += 1
        if r[0] in ("failed", "hung"):
            print(f"case {a.start + j}: {r[0]}: {r[1]}", file=sys.stderr)
            if len(bad) < a.show:
                bad.append(f"  case {a.start + j}: {r[0]}: {r[1]}")
        done = sum(counts.values())
        if done % 1000 == 0:
            print(f"{done} cases, {time.monotonic() - t0:.0f} s: {counts}", file=sys.stderr)

    jobs = [("index", a.start + i) for i in range(a.cases)]
    with Pool(a.jobs, a.timeout, a.seed) as pool:
        pool.run(jobs, report)
    wall = time.monotonic() - t0
    print(
        f"{a.cases} cases in {wall:.1f} s ({a.jobs} workers, seed {a.seed}): "
        f"ran {counts['ran']}, refused {counts['refused']}, failed {counts['failed']}, "
        f"hung {counts['hung']}"
    )
    for line in bad:
        print(line)
    if bad:
        print(f"(re-run one case: python -m aqmlab.fuzz --seed {a.seed} --case N)")
    return 1 if counts["failed"] or counts["hung"] else 0


if __name__ == "__main__":
    sys.exit(main())
