"""RFC 7928 Section 8.3 (parameter sensitivity): which parameters of a queue are scaled,
and the queue table of each variant.

Variants are ``default``, ``<param>x0.5`` and ``<param>x2`` (:data:`FACTORS`). A queue
table that sets numeric parameters has those scaled (a user's own settings from
``--aqm-file``); a table that sets none (a type at its defaults) has its type's
:data:`KEY_PARAMETERS` scaled. Values are read from the discipline's own configuration
(``aqm.Queue(table).config``: defaults filled in, quantities in SI units), so a
parameter left at its default is scaled from the library's default.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from .. import aqm
from ..units import DIMENSIONS, quantity

__all__ = ["KEY_PARAMETERS", "PARAMETER_GROUPS", "FACTORS", "parameters", "variants", "apply"]

#: The factors each parameter is scaled by, one at a time (RFC 7928 Section 8.3 asks
#: how the results move when a parameter moves away from its setting; halving and
#: doubling are the steps it suggests looking at).
FACTORS = (0.5, 2.0)

#: Each queue type's key parameters: those that set its operating point (RED family:
#: the drop-probability ramp and the averaging; the delay-based AQMs: their target and
#: their control period or scheduling quantum; Drop Tail: the buffer). A name in
#: :data:`PARAMETER_GROUPS` scales several keys together.
KEY_PARAMETERS: dict[str, tuple[str, ...]] = {
    "droptail": ("limit",),
    "randomdrop": ("limit",),
    "red": ("max_p", "w_q", "thresholds"),
    "ared": ("target_delay", "interval"),
    "feng_ared": ("w_q", "thresholds"),
    "fred": ("max_p", "w_q"),
    "codel": ("target", "interval"),
    "fq_codel": ("target", "quantum"),
    "pie": ("target", "tupdate"),
    "fq_pie": ("target",),
    "blue": ("d1", "freeze_time"),
    "sfb": ("increment", "decrement"),
    "choke": ("max_p", "thresholds"),
    "pi": ("q_ref", "gains"),
    "dualpi2": ("target", "tupdate"),
}
#: Parameters scaled together: RED's thresholds (so that max_th stays above min_th)
#: and PI's two gains (so that the controller's zero stays where it is). A user's table
#: setting one of them scales the group when the group is among its type's key
#: parameters.
PARAMETER_GROUPS: dict[str, tuple[str, ...]] = {
    "thresholds": ("min_th", "max_th"),
    "gains": ("a", "b"),
}
#: Keys of a user's table that are not scaled unless they are the type's key
#: parameters: the buffer and the random stream are not the AQM's control parameters.
NOT_SCALED = ("limit", "limit_bytes", "seed")


def _with_limit(queue: Mapping[str, Any], buffer: int) -> dict[str, Any]:
    q = dict(queue)
    if "limit" not in q and "limit_bytes" not in q:
        q["limit"] = buffer
    return q


def _si(value: Any, name: str) -> Any:
    """A quantity with a unit (``"10ms"``) as a number in SI units; anything else as is."""
    if not isinstance(value, str):
        return value
    for dim in DIMENSIONS:
        try:
            return quantity(value, dim, name)
        except ValueError:
            pass
    return value


def config(queue: Mapping[str, Any], buffer: int) -> dict[str, Any]:
    """The queue's full configuration (defaults filled in, quantities in SI units); a
    table without a buffer size gets `buffer` packets."""
    cfg = dict(aqm.Queue(_with_limit(queue, buffer)).config)
    return {k: _si(v, k) for k, v in cfg.items()}


@functools.cache
def type_keys(kind: str) -> tuple[str, ...]:
    """The configuration keys of queue type `kind`."""
    return tuple(config({"type": kind}, 1))


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _members(param: str) -> tuple[str, ...]:
    return PARAMETER_GROUPS.get(param, (param,))


def parameters(queue: Mapping[str, Any], buffer: int) -> list[str]:
    """The parameters 8.3 scales for `queue`: the numeric parameters its table sets (in
    the table's order; grouped as :data:`PARAMETER_GROUPS` says; not those of
    :data:`NOT_SCALED` unless they are the type's key parameters), or, when it sets
    none, its type's :data:`KEY_PARAMETERS`. A parameter whose value is automatic
    (``None`` in the configuration, e.g. Adaptive RED's thresholds) is left out."""
    keys = KEY_PARAMETERS.get(str(queue.get("type")), ())
    cfg = config(queue, buffer)
    member = {k: g for g, ks in PARAMETER_GROUPS.items() for k in ks}
    chosen: list[str] = []
    for k in queue:
        if k == "type" or (k in NOT_SCALED and k not in keys) or not _numeric(cfg.get(k)):
            continue
        group = member.get(k)
        name = group if group is not None and group in keys else k
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        chosen = list(keys)
    return [p for p in chosen if all(_numeric(cfg.get(k)) for k in _members(p))]


def variants(queue: Mapping[str, Any], buffer: int) -> list[str]:
    """``default``, then ``<param>x0.5`` and ``<param>x2`` for each parameter."""
    out = ["default"]
    for p in parameters(queue, buffer):
        out += [f"{p}x{f:g}" for f in FACTORS]
    return out


def apply(queue: Mapping[str, Any], variant: str, buffer: int) -> dict[str, Any]:
    """`queue` with the 8.3 `variant` applied: the parameter's value (the table's, else
    the type's default) times the factor; integer parameters are rounded (at least 1)."""
    q = dict(queue)
    if variant == "default":
        return q
    allowed = variants(queue, buffer)
    if variant not in allowed:
        raise ValueError(
            f"variant: {variant!r} is not a variant of 8.3 for a {queue.get('type')} queue; "
            f"allowed {', '.join(allowed)}"
        )
    param, _, factor = variant.rpartition("x")
    f = float(factor)
    cfg = config(queue, buffer)
    for k in _members(param):
        v = cfg[k]
        q[k] = max(1, int(round(v * f))) if isinstance(v, int) else v * f
    return q
