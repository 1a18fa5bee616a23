"""`aqmlab run`'s short path: the scenario file's TOML text read once by the simulator
(with the command's keys set over it), and summary.json written by the extension in
exactly the bytes of Python's ``json.dumps(summary, indent=2)``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aqmlab import Scenario, _native, cli, simulate
from aqmlab.sim import simulate_toml, summary_text

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "python" / "aqmlab" / "scenarios"

# floats where Python's repr changes notation (exponents -5/-4 and 15/16), the extremes,
# signed zeros, and the names json gives what is not a number
FLOATS = [
    0.0,
    -0.0,
    1.0,
    -2.5,
    0.1,
    1 / 3,
    0.0001,
    0.00001,
    0.00012345,
    1.2345e-05,
    1e15,
    9999999999999998.0,
    1e16,
    1.2345678901234567e16,
    123456789.123,
    1e22,
    1e100,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    float("nan"),
    float("inf"),
    float("-inf"),
]
STRINGS = ["", "r1->r2", 'a "quoted" \\ path', "\x00\x01\x1f\x7f", "\b\f\n\r\t", "é ü", "€", "😀"]


def test_floats_strings_and_ints_are_written_as_json_writes_them():
    """Each float in Python's repr (fixed between 1e-4 and 1e16, else d.ddde+XX), NaN and
    Infinity as json names them, strings escaped to ASCII, int64's ends."""
    for x in FLOATS + STRINGS + [0, -1, 2**63 - 1, -(2**63), 2**64 - 1, True, False, None]:
        assert _native.json_dumps(x) == json.dumps(x, indent=2), x
    nested = {"a": [], "b": {}, "c": [1, [2.5, {"d": None}]], "e": (1, "x"), 7: "int key"}
    assert _native.json_dumps(nested) == json.dumps(nested, indent=2)


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
)
_TREES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


# no timing checks (a loaded machine is no failure of the code)
@settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(_TREES)
def test_any_json_data_is_written_as_json_writes_it(data):
    """Any tree of None, booleans, 64-bit ints, floats, strings, lists and dicts: the text
    of ``json.dumps(data, indent=2)``, byte for byte."""
    assert _native.json_dumps(data) == json.dumps(data, indent=2)


@settings(
    max_examples=3000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(width=32, allow_nan=False, allow_infinity=False)
)
def test_any_float_is_written_in_its_repr(x):
    """A float's text is ``repr(x)``: the shortest digits that read back as x (the
    extension's formatter finds them), fixed or exponent notation as Python places them."""
    assert _native.json_dumps(x) == repr(x)


def test_what_the_extension_does_not_take_goes_to_json():
    """Ints beyond 64 bits, other types, deep nesting: summary_text hands them to json
    (whose own errors then apply, a container that holds itself among them)."""
    for data in [{"big": 2**70}, {"t": {1.5: "float key"}}, [[[[[[[[1]]]]]]]] * 2]:
        assert summary_text(data) == json.dumps(data, indent=2)
    deep: list = []
    for _ in range(100):
        deep = [deep]
    assert summary_text(deep) == json.dumps(deep, indent=2)
    with pytest.raises(TypeError):
        _native.json_dumps({"big": 2**70})
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        summary_text(cycle)


@pytest.mark.parametrize("name", ["dumbbell_10mbps.toml", "floyd1993_fig3.toml", "zheng2008.toml"])
def test_summary_json_has_the_bytes_of_json_dumps(tmp_path, name):
    """A run's summary.json: ``json.dumps(summary, indent=2)``'s text, byte for byte."""
    res = simulate(Scenario.from_file(SCENARIOS / name).replace(duration="3s", warmup="1s"))
    out = res.to_dir(tmp_path / "out")
    assert (out / "summary.json").read_text() == json.dumps(res.summary, indent=2)


def _without_wall(s):
    """The summary less its wall time, as JSON text (NaN compares equal there)."""
    return json.dumps({k: v for k, v in s.items() if k != "wall_seconds"})


def test_the_text_with_changes_runs_as_the_replaced_scenario():
    """simulate_toml(text, changes) gives the summary of Scenario.replace(**changes) on
    the parsed file; defaults apply only where the file has no such key."""
    path = SCENARIOS / "floyd1993_fig3.toml"
    text = path.read_text()
    changes = {"seed": 7, "duration": "4s", "warmup": "1s"}
    got = simulate_toml(text, path.parent, changes, progress=False).summary
    want = simulate(Scenario.from_file(path).replace(**changes), progress=False).summary
    assert _without_wall(got) == _without_wall(want)
    assert got["seed"] == 7 and got["duration"] == 4.0
    # the file sets a seed: a default seed does not replace it; it has no threads key
    kept = simulate_toml(text, path.parent, {"duration": "2s", "warmup": 0}, {"seed": 99})
    assert kept.summary["seed"] == Scenario.from_file(path).to_dict()["seed"] != 99
    unseeded = "\n".join(line for line in text.splitlines() if not line.startswith("seed"))
    seeded = simulate_toml(unseeded, changes={"duration": "2s", "warmup": 0}, defaults={"seed": 99})
    assert seeded.summary["seed"] == 99


def test_the_text_path_names_bad_input():
    """A syntax error is a TOML syntax error; a change the file cannot take names its key;
    an invalid value names the field, as a dict's would."""
    with pytest.raises(ValueError, match="^TOML syntax: "):
        simulate_toml("duration = \n")
    text = (SCENARIOS / "floyd1993_fig3.toml").read_text()
    with pytest.raises(ValueError, match="^duration: "):
        simulate_toml(text, changes={"duration": None})
    with pytest.raises(ValueError, match="warmup"):
        simulate_toml(text, changes={"duration": "1s", "warmup": "5s"})
    with pytest.raises(ValueError, match="TOML text only"):
        _native.Simulation({"duration": "1s"}, None, {"seed": 2})


def test_aqmlab_run_reads_the_file_once_in_the_simulator(tmp_path, monkeypatch):
    """aqmlab run hands the file's text to the simulator: no TOML parser or scenario copy
    in Python on its path (a file without a Python queue), with the same summary as the
    API's (less the wall time)."""
    import aqmlab.base
    import aqmlab.sim

    def refuse(*_a, **_k):
        raise AssertionError("parsed or validated in Python")

    monkeypatch.setattr(aqmlab.sim, "load_toml", refuse)
    monkeypatch.setattr(aqmlab.base, "load_toml", refuse)
    monkeypatch.setattr(aqmlab.sim.Scenario, "__init__", refuse)
    path = SCENARIOS / "floyd1993_fig3.toml"
    args = ["run", str(path), "--out", str(tmp_path / "o"), "-q", "--duration", "3s"]
    assert cli.main([*args, "--warmup", "1s", "--seed", "3", "--threads", "1"]) == 0
    got = json.loads((tmp_path / "o" / "summary.json").read_text())
    monkeypatch.undo()
    want = simulate(
        Scenario.from_file(path).replace(duration="3s", warmup="1s", seed=3, threads=1),
        progress=False,
    ).summary
    assert _without_wall(got) == _without_wall(want)


def test_aqmlab_run_imports_no_toml_parser(tmp_path):
    """The whole command in a fresh interpreter: no TOML parser imported in Python."""
    out = tmp_path / "out"
    code = (
        "import sys; from aqmlab.cli import main; "
        f"rc = main(['run', {str(SCENARIOS / 'floyd1993_fig3.toml')!r}, '--out', {str(out)!r}, "
        "'-q']); print(rc, sorted(m for m in sys.modules if m.split('.')[0] in "
        "('tomllib', 'tomli')))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "0 []", r.stdout
