"""Fuzzing the entry points: every input runs or is refused with a field path, never hangs or crashes.

Each case runs in a worker process of `aqmlab.fuzz.Pool` with a wall-time limit, so a
hang fails the test (its worker is killed) and so does a crash (its worker dies).
"""

from __future__ import annotations

import copy
import random
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aqmlab
from aqmlab import _native, aqm, fuzz

#: Seconds a case may take (the machine may be shared: far above what any case needs).
TIMEOUT = 60.0

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def pool():
    with fuzz.Pool(jobs=2, timeout=TIMEOUT) as p:
        yield p


def check(pool, kind, data):
    [(status, detail)] = pool.run([("input", (kind, data))])
    assert status in ("ran", "refused"), f"{kind}: {status}: {detail}\ninput: {data!r}"


def mutated(i: int, rnd: random.Random, n: int):
    d = copy.deepcopy(fuzz.seeds()[i % len(fuzz.seeds())][2])
    fuzz.mutate(d, rnd, n)
    fuzz.cut_duration(d)
    return d


SEED = st.integers(0, 100)
N = st.integers(1, 3)


@FUZZ
@given(i=SEED, rnd=st.randoms(use_true_random=False), n=N)
def test_simulate_runs_or_refuses_any_mutated_scenario(pool, i, rnd, n):
    """aqmlab.simulate on a mutated scenario dict runs or raises ValueError naming a field."""
    check(pool, "simulate", mutated(i, rnd, n))


@FUZZ
@given(
    i=SEED,
    rnd=st.randoms(use_true_random=False),
    n=N,
    t=st.one_of(st.floats(), st.sampled_from([0.0, 1e-9, fuzz.RUN_SECONDS])),
)
def test_native_simulation_runs_or_refuses_any_mutated_scenario(pool, i, rnd, n, t):
    """_native.Simulation on a mutated scenario, stepped to any time, runs or raises ValueError naming a field."""
    check(pool, "native", (mutated(i, rnd, n), t))


@FUZZ
@given(i=SEED, rnd=st.randoms(use_true_random=False), n=N)
def test_scenario_text_mutations_run_or_are_refused(pool, i, rnd, n):
    """TOML text with lines and tables deleted, doubled or given extreme numbers runs or is refused."""
    text = fuzz.seeds()[i % len(fuzz.seeds())][1]
    check(pool, "toml", fuzz.mutate_text(text, rnd, n))


@FUZZ
@given(
    i=st.integers(0, 1000),
    rnd=st.randoms(use_true_random=False),
    n=N,
    now=st.one_of(st.floats(), st.sampled_from(fuzz.EXTREMES)),
)
def test_queue_builds_or_refuses_any_mutated_configuration(pool, i, rnd, n, now):
    """aqm.Queue on a mutated configuration, fed packets at any time, works or raises ValueError naming a key."""
    configs = fuzz._queue_configs()
    cfg = copy.deepcopy(configs[i % len(configs)])
    fuzz.mutate(cfg, rnd, n)
    check(pool, "queue", (cfg, now))


def test_a_batch_of_generated_cases_runs_or_is_refused(pool):
    """A thousand cases of the fuzz command, in parallel: none fails or hangs."""
    out = pool.run([("index", i) for i in range(1000)])
    bad = [(i, r) for i, r in enumerate(out) if r[0] not in ("ran", "refused")]
    assert not bad, bad[:5]
    # the mutations reach both outcomes
    kinds = {r[0] for r in out}
    assert kinds == {"ran", "refused"}


def test_the_pool_reports_a_hang():
    """A case over its time limit is reported hung (its worker killed); the next case still runs."""
    with fuzz.Pool(jobs=1, timeout=3.0) as p:
        slow = {
            "duration": "4000s",
            "link": [{"a": "a", "b": "b", "rate": "10Gbps", "delay": 0}],
            "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": "8Gbps"}],
        }
        out = p.run([("input", ("simulate", slow)), ("input", ("queue", ({"type": "red"}, 0.0)))])
    assert out[0][0] == "hung" and out[1][0] in ("ran", "refused"), out


def test_classify_wants_a_field_path():
    """A ValueError whose message starts with a field path is a refusal; other errors are failures."""
    assert fuzz.classify(ValueError("flow[0].rate = 1e308 is invalid: ..."))[0] == "refused"
    assert fuzz.classify(ValueError("link[1].queue.limit: the queues ..."))[0] == "refused"
    assert fuzz.classify(ValueError("run stopped: no progress ..."))[0] == "refused"
    assert fuzz.classify(ValueError("something went wrong"))[0] == "failed"
    assert fuzz.classify(RuntimeError("flow[0]: x"))[0] == "failed"
    assert fuzz.classify(None)[0] == "ran"


# ---------------------------------------------------------------- the reported inputs

LINK = {"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms"}


def cbr(rate, **link):
    return {
        "duration": "1s",
        "link": [dict(LINK, **link)],
        "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": rate}],
    }


@pytest.mark.parametrize("rate", ["1e9Gbps", 1e308, 2**63 - 1, "1e308bps"])
def test_a_source_faster_than_the_clock_is_refused(rate):
    """A CBR rate whose packet interval rounds below 1 ns is refused at flow[0].rate, not run forever."""
    for entry in (aqmlab.simulate, aqmlab.Scenario, _native.Simulation):
        with pytest.raises(ValueError, match=r"^flow\[0\]\.rate = .*allowed a rate <= .*per ns"):
            entry(cbr(rate))


def test_a_huge_drop_tail_queue_is_refused_before_it_fills_memory():
    """Drop Tail with limit 1e9 fed far above the link rate is refused at once, naming the queue."""
    sc = cbr("1Gbps", queue={"type": "droptail", "limit": 1_000_000_000})
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"^link\[0\]\.queue\.limit: .*max_memory"):
        aqmlab.simulate(sc)
    assert time.monotonic() - t0 < 5


def test_a_run_that_outgrows_max_memory_stops():
    """With a budget below what the queue fills to, the run stops with an error naming max_memory."""
    sc = cbr("1Gbps", queue={"type": "droptail", "limit": 200_000})
    sc["max_memory"] = "1MB"
    with pytest.raises(ValueError, match=r"^link\[0\]\.queue\.limit: .*1\.0 MB"):
        aqmlab.Scenario(sc)
    sc["max_memory"] = "100MB"
    assert aqmlab.Scenario(sc).normalized()["max_memory"] == 100_000_000


def cyclic():
    d = cbr("1Mbps")
    d["flow"][0]["extra"] = d
    return d


@pytest.mark.parametrize(
    "entry",
    [aqmlab.simulate, aqmlab.Scenario, _native.Simulation, _native.sim_validate],
)
def test_a_dict_that_contains_itself_is_a_value_error(entry):
    """A scenario dict with a cycle raises ValueError naming where, not a crash."""
    with pytest.raises(ValueError, match=r"^flow\[0\]\.extra: the value contains itself"):
        entry(cyclic())


def test_a_queue_dict_that_contains_itself_is_a_value_error():
    """aqm.Queue on a configuration with a cycle raises ValueError naming the key."""
    cfg = {"type": "red", "limit": 10}
    cfg["limit_bytes"] = [cfg]
    with pytest.raises(
        ValueError, match=r"^limit_bytes\[0\](\.limit_bytes)?: the value contains itself"
    ):
        aqm.Queue(cfg)


def test_nesting_deeper_than_the_limit_is_a_value_error():
    """Lists nested 100,000 deep raise ValueError at the depth limit, not a stack overflow."""
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    sc = cbr("1Mbps")
    sc["flow"][0]["start"] = deep
    with pytest.raises(ValueError, match=r"^flow\[0\]\.start(\[0\])+: nested deeper than 32"):
        aqmlab.simulate(sc)
    with pytest.raises(ValueError, match="TOML syntax"):
        aqmlab.Scenario.from_toml("x = " + "[" * 100_000 + "]" * 100_000)


def test_integers_beyond_64_bits_name_their_field():
    """An integer beyond 64 bits is refused naming its field."""
    sc = cbr("1Mbps")
    sc["seed"] = 2**200
    with pytest.raises(ValueError, match=r"^seed = \d+ is invalid"):
        aqmlab.Scenario(sc)


def test_the_fuzz_command_prints_its_counts():
    """`python -m aqmlab.fuzz --cases 40` runs the cases and prints ran/refused/failed/hung."""
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab.fuzz", "--cases", "40", "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    line = r.stdout.splitlines()[0]
    assert line.startswith("40 cases in ") and "failed 0, hung 0" in line, line
