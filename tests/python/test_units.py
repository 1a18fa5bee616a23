"""aqmlab.units: the one unit grammar, checked on the cases the Rust tests read too."""

from pathlib import Path

import pytest

from aqmlab import units
from aqmlab.units import parse_rate, parse_size, parse_time

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

CASES = Path(__file__).resolve().parents[2] / "crates" / "aqm" / "tests" / "units_cases.toml"


def _cases():
    return tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c['dim']}:{c['text']}")
def test_shared_cases(case):
    """Each shared case parses to its value (to rounding) or is refused naming the field."""
    if case.get("error"):
        with pytest.raises(ValueError, match=r"flow\[0\]\.x"):
            units.quantity(case["text"], case["dim"], "flow[0].x")
    else:
        got = units.quantity(case["text"], case["dim"], "x")
        assert got == pytest.approx(case["value"], rel=1e-15, abs=0)


def test_same_number_as_a_scenario_file():
    """A delay written in a scenario file is the nanosecond that aqmlab.units reads."""
    import aqmlab

    for text in ("20ms", "1e-3 s", "2min", "0.3us", "7.77ms", "200us"):
        sc = aqmlab.Scenario(
            {
                "duration": "1s",
                "link": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": text}],
            }
        )
        ns = round(units.quantity(text, "time", "d") * 1e9)
        assert sc.normalized()["links"][0]["delay"] == ns / 1e9


@pytest.mark.parametrize(
    "text, bps",
    [("10Gbps", 10e9), ("10 Gb/s", 10e9), ("10G", 10e9), ("1.25GBps", 10e9), (15e6, 15e6)],
)
def test_rates(text, bps):
    """Rates parse to bits per second; capital B means bytes."""
    assert parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize("text, s", [("50ms", 0.05), ("200µs", 2e-4), ("2", 2.0)])
def test_times(text, s):
    """Times parse to seconds."""
    assert parse_time(text) == pytest.approx(s)


@pytest.mark.parametrize("text, b", [("1.5kB", 1500), ("9KiB", 9216), (576, 576)])
def test_sizes(text, b):
    """Sizes parse to bytes (k decimal, Ki binary)."""
    assert parse_size(text) == pytest.approx(b)


@pytest.mark.parametrize(
    "fn, text",
    [
        (parse_rate, "-1Gbps"),
        (parse_rate, "fast"),
        (parse_time, "0ms"),
        (parse_time, "5 parsecs"),
        (parse_size, "-1500B"),
        (parse_rate, 0),
        (parse_rate, float("inf")),
        (parse_rate, float("nan")),
        (parse_time, True),
        (parse_time, None),
        (parse_time, [1]),
    ],
)
def test_bad_values_name_the_argument(fn, text):
    """Negative, zero, non-finite, non-numeric or unparsable values raise ValueError naming the argument."""
    with pytest.raises(ValueError, match="--thing"):
        fn(text, "--thing")


def test_parse_time_zero_only_when_allowed():
    """A zero time is refused unless allowed (a warm-up); a negative one always."""
    assert parse_time("0s", allow_zero=True) == 0.0 and parse_time(0, allow_zero=True) == 0.0
    assert parse_time("20ms", allow_zero=True) == pytest.approx(0.02)
    for bad in ("0s", 0, "-1ms"):
        with pytest.raises(ValueError, match="warmup"):
            parse_time(bad, "warmup")
    with pytest.raises(ValueError, match="warmup"):
        parse_time("-1ms", "warmup", allow_zero=True)


def test_unknown_dimension_is_refused():
    """Only time, rate and size are dimensions."""
    with pytest.raises(ValueError, match="dimension"):
        units.quantity("1", "mass", "x")
