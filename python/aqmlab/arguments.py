"""Argument checks, importing nothing but :mod:`math` (so that any module, the light
paths' too, may use them): :class:`ArgumentError` (a ``ValueError`` that knows which
argument it is about, so that a command line can name its flag instead),
:func:`positive_int`, :func:`int_at_least`, :func:`integer`, :func:`positive`,
:func:`non_negative`, :func:`in_range`. :mod:`aqmlab.base` gives them too."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ArgumentError",
    "positive_int",
    "int_at_least",
    "integer",
    "positive",
    "non_negative",
    "in_range",
]


class ArgumentError(ValueError):
    """A bad argument of a function: ``argument`` is its parameter name, ``detail`` what
    is wrong with it. The message reads ``"<argument> <detail>"`` (``"jobs must be an
    integer >= 1, got 0"``); a command line that took the value from a flag names the
    flag instead (``"--jobs must be ..."``, see :mod:`aqmlab.cli`)."""

    def __init__(self, argument: str, detail: str) -> None:
        self.argument = argument
        self.detail = detail
        super().__init__(self.naming(argument))

    def naming(self, name: str) -> str:
        """The message with the argument called `name` (a flag, say)."""
        sep = "" if self.detail[:1] in (":", ",") else " "
        return f"{name}{sep}{self.detail}"


def _real(value: Any) -> float | None:
    """`value` as a float, or None if it is not a real number (a bool is not one)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _number(name: str, value: Any) -> float:
    x = _real(value)
    if x is None or math.isnan(x):
        raise ArgumentError(name, f"must be a number, got {value!r}")
    return x


def integer(name: str, value: Any, *, minimum: int) -> int:
    """`value` as an int >= `minimum`; a float with no fractional part is accepted, a
    bool is not. ArgumentError naming `name` otherwise."""
    x = _real(value)
    if x is None or not math.isfinite(x) or x != int(x) or int(x) < minimum:
        raise ArgumentError(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(x)


def int_at_least(name: str, value: Any, minimum: int) -> int:
    """`value`, an int >= `minimum`; ArgumentError naming `name` otherwise. Unlike
    :func:`integer`, a float is refused (``jobs=2.0`` is a mistake), and a bool too."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ArgumentError(name, f"must be an integer >= {minimum}, got {value!r}")
    return value


def positive_int(name: str, value: Any) -> int:
    """`value`, an int >= 1 (a count: jobs, seeds, replications); ArgumentError naming
    `name` otherwise (see :func:`int_at_least`)."""
    return int_at_least(name, value, 1)


def positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """`value` > 0 (finite unless `allow_inf`) as a float; ArgumentError naming `name`."""
    x = _number(name, value)
    if not x > 0:
        raise ArgumentError(name, f"must be > 0, got {value!r}")
    if math.isinf(x) and not allow_inf:
        raise ArgumentError(name, f"must be finite, got {value!r}")
    return x


def non_negative(name: str, value: Any) -> float:
    """`value` >= 0 and finite as a float; ArgumentError naming `name` otherwise."""
    x = _number(name, value)
    if not x >= 0 or math.isinf(x):
        raise ArgumentError(name, f"must be >= 0 and finite, got {value!r}")
    return x


def in_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """`value` in [lo, hi] (an end open when asked) as a float; ArgumentError naming `name`."""
    x = _number(name, value)
    ok_lo = x > lo if lo_open else x >= lo
    ok_hi = x < hi if hi_open else x <= hi
    if not (ok_lo and ok_hi):
        interval = f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        raise ArgumentError(name, f"must be in {interval}, got {value!r}")
    return x
