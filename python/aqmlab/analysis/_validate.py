"""Argument checks shared by the analytic models, and the shape of their results.

Every model validates its inputs before computing and raises :class:`ValueError`
with a message that names the argument, the rule and the value received, for
example ``"rho must be > 0, got -1"``. A vectorised model returns a float for scalar
arguments and a numpy array otherwise (:func:`scalar_or_array`).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Union

import numpy as np

#: A number or a numpy array of numbers (the models broadcast their arguments).
ArrayLike = Union[float, np.ndarray]


def scalar_or_array(out: Any) -> ArrayLike:
    """A float for a 0-d result (scalar arguments), the array otherwise."""
    return float(out) if np.ndim(out) == 0 else out


def _real(value: Any) -> Optional[float]:
    """`value` as a float, or None if it is not a real number (a bool is not one)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _num(name: str, value: Any) -> float:
    """`value` as a float; ValueError naming `name` if it is not a real number."""
    x = _real(value)
    if x is None:
        raise ValueError(f"{name} must be a number, got {value!r}")
    if math.isnan(x):
        raise ValueError(f"{name} must be a number, got nan")
    return x


def positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """`value` > 0 (finite unless `allow_inf`), else ValueError naming `name`."""
    x = _num(name, value)
    if not x > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def non_negative(name: str, value: Any) -> float:
    """`value` >= 0 and finite, else ValueError naming `name`."""
    x = _num(name, value)
    if not x >= 0 or math.isinf(x):
        raise ValueError(f"{name} must be >= 0 and finite, got {value!r}")
    return x


def in_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """`value` in the interval [lo, hi] (ends open when asked), else ValueError naming `name`."""
    x = _num(name, value)
    ok_lo = x > lo if lo_open else x >= lo
    ok_hi = x < hi if hi_open else x <= hi
    if not (ok_lo and ok_hi):
        interval = f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return x


def integer(name: str, value: Any, *, minimum: int) -> int:
    """`value` an integer >= `minimum` (floats with no fractional part accepted)."""
    x = _real(value)
    if x is None or not math.isfinite(x) or x != int(x) or int(x) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(x)
