"""Quantities with units, read by the one grammar of aqmlab (``aqm::units`` in Rust):
the same text gives the same number here, in a scenario file, in a queue table and on
the gateway's command line.

- times: ``"50ms"``, ``"0.05s"``, ``"200us"``, ``"200µs"``, ``"1e6ns"``, ``"2min"``, or
  a bare number of seconds;
- rates: ``"10Gbps"``, ``"10 Gb/s"``, ``"10G"``, ``"100Mbit/s"``, ``"1.25GBps"``
  (capital B = bytes per second), or a bare number of bits per second;
- sizes: ``"1500B"``, ``"1500"``, ``"1.5kB"`` (1000 bytes), ``"9KiB"`` (1024 bytes), or
  a bare number of bytes.

Prefixes are decimal (k = 10^3, M = 10^6, G = 10^9, T = 10^12) except the binary
``Ki``/``Mi``/``Gi`` of sizes. :func:`quantity` applies the grammar alone;
:func:`parse_time`, :func:`parse_rate` and :func:`parse_size` also require a finite
value > 0 (a time may be 0 with ``allow_zero``), as command-line arguments do. Every
failure is a :class:`ValueError` naming the argument.
"""

from __future__ import annotations

import math
from typing import Union

__all__ = ["quantity", "parse_time", "parse_rate", "parse_size", "DIMENSIONS"]

#: The dimensions of the grammar and their SI units.
DIMENSIONS = {"time": "s", "rate": "b/s", "size": "B"}

Value = Union[str, float, int]


def quantity(value: Value, dimension: str, name: str) -> float:
    """``value`` in the SI unit of ``dimension`` ("time", "rate" or "size"): a number
    passes through, a string is read by the grammar; any sign or size is returned."""
    from . import _native

    return float(_native.parse_quantity(value, dimension, name))


def _positive(value: Value, dimension: str, name: str, allow_zero: bool = False) -> float:
    v = quantity(value, dimension, name)
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        allowed = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} = {value!r} is invalid: allowed a finite {dimension} {allowed}")
    return v


def parse_time(value: Value, name: str = "time", allow_zero: bool = False) -> float:
    """Seconds from ``"50ms"``-style text or a number, > 0 (>= 0 with ``allow_zero``,
    e.g. a warm-up)."""
    return _positive(value, "time", name, allow_zero)


def parse_rate(value: Value, name: str = "rate") -> float:
    """Bits per second from ``"10Gbps"``-style text or a number, > 0."""
    return _positive(value, "rate", name)


def parse_size(value: Value, name: str = "size") -> float:
    """Bytes from ``"1500B"``-style text or a number, > 0."""
    return _positive(value, "size", name)
