"""The unit parser used by aqmlab tune (aqmlab.analysis._units)."""

import pytest

from aqmlab.analysis._units import parse_rate, parse_size, parse_time


@pytest.mark.parametrize(
    "text, bps",
    [
        ("10Gbps", 10e9),
        ("10 Gb/s", 10e9),
        ("10G", 10e9),
        ("100Mbit/s", 100e6),
        ("1.25GBps", 10e9),
        ("1e9", 1e9),
        (15e6, 15e6),
        ("500kbps", 5e5),
        ("1Tbps", 1e12),
    ],
)
def test_rates(text, bps):
    """Rates parse to bits per second; capital B means bytes."""
    assert parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    "text, s",
    [("50ms", 0.05), ("0.1s", 0.1), ("200us", 2e-4), ("200µs", 2e-4), ("1e6ns", 1e-3), ("2", 2.0)],
)
def test_times(text, s):
    """Times parse to seconds."""
    assert parse_time(text) == pytest.approx(s)


@pytest.mark.parametrize(
    "text, b", [("1500B", 1500), ("1500", 1500), ("1.5kB", 1500), ("9KiB", 9216), (576, 576)]
)
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
        (parse_time, True),
    ],
)
def test_bad_values_name_the_argument(fn, text):
    """Negative, zero or unparsable values raise ValueError naming the argument."""
    with pytest.raises(ValueError, match="--thing"):
        fn(text, "--thing")


def test_parse_time_zero_only_when_allowed():
    from aqmlab.analysis._units import parse_time

    assert parse_time("0s", allow_zero=True) == 0.0 and parse_time(0, allow_zero=True) == 0.0
    assert parse_time("20ms", allow_zero=True) == pytest.approx(0.02)
    for bad in ("0s", 0, "-1ms"):
        with pytest.raises(ValueError, match="warmup"):
            parse_time(bad, "warmup")
    with pytest.raises(ValueError, match="warmup"):
        parse_time("-1ms", "warmup", allow_zero=True)
