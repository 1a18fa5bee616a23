"""A tiny parser for the quantities ``aqmlab tune`` takes on its command line.

- rates: ``"10Gbps"``, ``"10 Gb/s"``, ``"10G"``, ``"100Mbit/s"``, ``"1.25GBps"``
  (capital B = bytes per second), or a bare number of bits per second;
- times: ``"50ms"``, ``"0.05s"``, ``"200us"``, ``"200µs"``, ``"1e6ns"``, or a bare
  number of seconds;
- sizes: ``"1500B"``, ``"1500"``, ``"1.5kB"`` (1000 bytes), ``"9KiB"`` (1024 bytes).

Prefixes are decimal (k = 10^3, M = 10^6, G = 10^9, T = 10^12) except the binary
``Ki``/``Mi``/``Gi`` of sizes. A value that does not parse, or that is not > 0,
raises :class:`ValueError` naming the argument.
"""

from __future__ import annotations

import math
import re
from typing import Union

__all__ = ["parse_rate", "parse_time", "parse_size"]

_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
_DEC = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BIN = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3}

_RATE = re.compile(r"^\s*([-+]?)" + _NUM + r"\s*([kKMGT]?)(bps|b/s|bit/s|bits/s|bit|Bps|B/s|)\s*$")
_TIME = re.compile(r"^\s*([-+]?)" + _NUM + r"\s*(s|ms|us|µs|ns|)\s*$")
_SIZE = re.compile(r"^\s*([-+]?)" + _NUM + r"\s*(k|K|M|G|Ki|Mi|Gi|)(B|bytes?|)\s*$")

_TIME_UNIT = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _finish(name: str, text: object, sign: str, value: float) -> float:
    """`value` if > 0 and finite and not negated, else ValueError naming `name`."""
    if sign == "-" or not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be > 0, got {text!r}")
    return value


def _number(name: str, text: object) -> Union[float, None]:
    """A plain number passed through (validated), None for text to parse."""
    if isinstance(text, bool):
        raise ValueError(f"{name} must be a number with a unit, got {text!r}")
    if isinstance(text, (int, float)):
        if not text > 0 or not math.isfinite(float(text)):
            raise ValueError(f"{name} must be > 0, got {text!r}")
        return float(text)
    if not isinstance(text, str):
        raise ValueError(f"{name} must be a number with a unit, got {text!r}")
    return None


def parse_rate(text: Union[str, float], name: str = "rate") -> float:
    """A link rate in bits per second from ``"10Gbps"``-style text (or a number of b/s)."""
    x = _number(name, text)
    if x is not None:
        return x
    m = _RATE.match(str(text))
    if not m:
        raise ValueError(f"{name} must be a rate such as 10Gbps, 100Mb/s or 1e9, got {text!r}")
    sign, num, prefix, unit = m.groups()
    value = float(num) * _DEC[prefix] * (8.0 if unit in ("Bps", "B/s") else 1.0)
    return _finish(name, text, sign, value)


def parse_time(text: Union[str, float], name: str = "time", allow_zero: bool = False) -> float:
    """A duration in seconds from ``"50ms"``-style text (or a number of seconds); zero
    only with `allow_zero` (e.g. a warm-up)."""
    if allow_zero and not isinstance(text, bool):
        if isinstance(text, (int, float)) and text == 0:
            return 0.0
        m0 = _TIME.match(str(text))
        if m0 and m0.group(1) != "-" and float(m0.group(2)) == 0:
            return 0.0
    x = _number(name, text)
    if x is not None:
        return x
    m = _TIME.match(str(text))
    if not m:
        raise ValueError(f"{name} must be a time such as 50ms, 0.1s or 200us, got {text!r}")
    sign, num, unit = m.groups()
    return _finish(name, text, sign, float(num) * _TIME_UNIT[unit])


def parse_size(text: Union[str, float], name: str = "size") -> float:
    """A size in bytes from ``"1500B"``-style text (or a number of bytes)."""
    x = _number(name, text)
    if x is not None:
        return x
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"{name} must be a size such as 1500B or 9KiB, got {text!r}")
    sign, num, prefix, _unit = m.groups()
    factor = _BIN[prefix] if prefix in _BIN else _DEC[prefix]
    return _finish(name, text, sign, float(num) * factor)
