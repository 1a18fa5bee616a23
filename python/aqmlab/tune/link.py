"""What every rule of ``aqmlab tune`` reads: the link (:class:`Link`), the sources'
names, and how values are given (:func:`param`) and shown (:func:`seconds`,
:func:`rate_text`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..base import positive

FJ93 = "Floyd & Jacobson 1993"
FGS01 = "Floyd, Gummadi & Shenker 2001 (Adaptive RED)"
LM97 = "Lin & Morris 1997 (FRED)"
ZA08 = "Zheng & Atiquzzaman 2008"

#: max_p of non-adaptive RED and the initial max_p of Adaptive RED: ns-2's default,
#: the largest value Floyd & Jacobson Sec. VII consider reasonable.
RED_MAX_P = 0.1


def param(value: Any, unit: str, rule: str, source: str, why: str = "") -> dict[str, Any]:
    """One recommended value with its unit, the rule it comes from, the source and why."""
    out = {"value": value, "unit": unit, "rule": rule, "source": source}
    if why:
        out["why"] = why
    return out


def number(x: Any, name: str, parser: Any) -> float:
    """A number, or a unit string parsed by `parser`; ValueError naming `name`."""
    if isinstance(x, str):
        return parser(x, name)
    return positive(name, x)


def seconds(x: float) -> str:
    """Seconds in a readable unit."""
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if x >= 0.9995 * f:
            return f"{x / f:.3g} {unit}"
    return f"{x * 1e9:.3g} ns"


def rate_text(x: float) -> str:
    """A rate in bits/s in a readable unit."""
    for unit, f in (("Tb/s", 1e12), ("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if x >= f:
            return f"{x / f:g} {unit}"
    return f"{x:g} b/s"


@dataclass
class Link:
    """What every rule reads: the inputs in SI units, Adaptive RED's automatic
    parameters (which set the thresholds of all three disciplines) and the buffer; and
    what the rules say where they conflict (`warnings`) or need a remark (`notes`)."""

    rate: float  #: link rate, bits/s
    rtt: float  #: typical round-trip time, s
    size: float  #: mean packet size, bytes
    target: float  #: average queueing delay wanted, s
    burst: int  #: burst to absorb without marking, packets
    auto: dict[str, Any]  #: :func:`ared_auto_parameters` of the link
    warnings: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def C(self) -> float:
        """Capacity, packets/s."""
        return float(self.auto["C"])

    @property
    def bdp(self) -> float:
        """Delay-bandwidth product, packets."""
        return self.C * self.rtt

    @property
    def min_th(self) -> float:
        """Adaptive RED's min_th, shared by RED (packets)."""
        return float(self.auto["min_th"])

    @property
    def max_th(self) -> float:
        """Adaptive RED's max_th, shared by RED (packets)."""
        return float(self.auto["max_th"])

    @property
    def w_auto(self) -> float:
        """Adaptive RED's automatic w_q."""
        return float(self.auto["w_q"])

    @property
    def limit(self) -> float:
        """The buffer (packets): limit >= max(2 max_th, max_th + burst), aqmlab's rule."""
        return float(math.ceil(max(2.0 * self.max_th, self.max_th + self.burst)))

    def warn(self, code: str, message: str) -> None:
        """Record a conflict between rules."""
        self.warnings.append({"code": code, "message": message})
