"""Queue disciplines of the RED family and the AQMs compared with it today, backed by the
Rust library ``crates/aqm``: one class per built-in AQM (``aqm.Red``, ``aqm.CoDel``, ...),
made at import from the library's registry of AQMs, so that a type added there is a
class here. ``QUEUE_TYPES`` lists their configuration names; ``aqm.pyi`` declares the
classes for type checkers.

Each constructor takes the papers' (and RFCs') parameter names as keyword arguments, the
keys of a scenario's ``queue = { type = ..., ... }`` table; parameters left out (or
``None``) take the library's defaults (the papers' and RFCs' values, see
``docs/algorithms.md``), which each class's signature and docstring show. Every
discipline holds its own packets (an ``aqm::AnyQdisc``: the RED family over a FIFO
buffer, CoDel deciding at dequeue, FQ-CoDel one queue per flow bucket) and has the same
interface::

    q = aqm.Red(min_th=5, max_th=15, w_q=0.002, max_p=0.02, limit=50)
    q.enqueue(now, size, flow, ecn_capable=False)  # "enqueue" | "mark" | "drop_early" | "drop_forced"
    q.enqueue(now, size, flow, ect1=True)          # an L4S (ECT(1)) packet; ce=True: arrives CE
    q.dequeue(now)                                 # (size, flow) or None
    q.dequeue_marked(now)                          # (size, flow, marked) or None
    q.last_dropped, q.last_dequeue_dropped         # [(size, flow, reason)] of the last call
    q.signal, q.signal_kind, q.state, q.len_packets, q.len_bytes, q.stats
    q.avg, q.count, q.max_p                        # the RED family's (0 for the others)

Times are seconds (float, >= 0) and never go back: a call whose ``now`` is earlier
than the previous call's raises ``ValueError``. Invalid parameters raise
``ValueError`` naming the parameter and the allowed range; flags (``gentle``,
``ecn``, ``ecn_capable``, ``ect1``, ``ce`` ...) take only ``True`` or ``False``; an
``ect1`` or ``ce`` packet is ECN-capable (``ecn_capable`` may then not be ``False``),
and DualPI2 classifies it into its L queue. The queue size a
discipline sees counts the packets waiting in the buffer (the caller dequeues a
packet when it starts to transmit it). A discipline that decides at dequeue may
discard packets there (``last_dequeue_dropped``, ``stats["dequeue_drops"]``) and mark
the packet it hands out (``dequeue_marked``); ``signal`` is its main congestion
signal (RED's average, PIE's drop probability, CoDel's drop count) and ``signal_kind``
says which; ``state`` is a dict of the discipline's state under its paper's names
(RED's ``avg``, ``count``, ``max_p``; BLUE's ``p_m``; PIE's ``drop_prob``, ...).
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

from . import _native

QUEUE_TYPES: tuple[str, ...] = tuple(_native.queue_types())

#: The built-in AQMs as the library's registry describes them: ``type``, ``class``,
#: ``name``, ``holds_packets``, ``doc`` (lines) and ``params`` (``name``, ``type``: the
#: Python annotation, ``doc``, ``default``), in the registry's order.
REGISTRY: tuple[dict[str, Any], ...] = tuple(_native.queue_schema())


class Queue(_native.Queue):
    """A discipline with its buffer, built from a configuration dict with a ``type`` key.

    ``Queue({"type": "red", "min_th": 5, "max_th": 15, "limit": 50})`` is the same as
    ``Red(min_th=5, max_th=15, limit=50)``. The dict has the shape of a scenario file's
    ``queue = {...}`` table.
    """

    # Keyword arguments that are ``None`` are left out, so the library's default applies.
    _TYPE = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> Queue:
        if cls._TYPE:
            config = {"type": cls._TYPE}
            config.update({k: v for k, v in kwargs.items() if v is not None})
            if args:
                raise TypeError(f"{cls.__name__}() takes keyword arguments only")
        else:
            if len(args) != 1 or kwargs or not isinstance(args[0], dict):
                raise TypeError("Queue(config: dict) takes one configuration dict")
            config = dict(args[0])
        return super().__new__(cls, config)

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # parameters consumed by __new__
        pass


def from_config(config: dict) -> Queue:
    """Build a discipline from a configuration dict (``{"type": "red", ...}``)."""
    return Queue(config)


def _paragraph(lines: list[str]) -> str:
    """Doc comment lines as one paragraph, wrapped."""
    return textwrap.fill(" ".join(line.strip() for line in lines), width=88)


def docstring(spec: dict[str, Any]) -> str:
    """The class docstring of a registry entry: what it is, then each keyword argument
    with its type, default and meaning."""
    out = [_paragraph(spec["doc"]), ""]
    table = f'``queue = {{ type = "{spec["type"]}", ... }}``'
    out.append(f"Keyword arguments (the keys of a scenario's {table}):")
    out.append("")
    for p in spec["params"]:
        head = f"{p['name']} ({p['type']}, default {p['default']!r}): "
        out.append(textwrap.fill(head + p["doc"], width=88, subsequent_indent="    "))
    return "\n".join(out)


def signature(spec: dict[str, Any]) -> inspect.Signature:
    """The keyword-only signature of a registry entry's class (without ``self``): its
    keys, their Python annotations (strings) and their defaults."""
    kw = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [
            inspect.Parameter(p["name"], kw, default=p["default"], annotation=p["type"])
            for p in spec["params"]
        ]
    )


def _make_class(spec: dict[str, Any]) -> type[Queue]:
    """The class of a registry entry: a :class:`Queue` with its ``type`` fixed, its keys
    as keyword arguments."""
    sig = signature(spec)

    def __init__(self: Queue, **params: Any) -> None:  # the parameters are __new__'s
        pass

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    __init__.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[self_param, *sig.parameters.values()]
    )
    name = spec["class"]
    __init__.__qualname__ = f"{name}.__init__"
    ns = {
        "_TYPE": spec["type"],
        "__doc__": docstring(spec),
        "__init__": __init__,
        "__module__": __name__,
    }
    cls = type(name, (Queue,), ns)
    cls.__signature__ = sig  # type: ignore[attr-defined]
    return cls


_CLASSES: dict[str, type[Queue]] = {spec["class"]: _make_class(spec) for spec in REGISTRY}
globals().update(_CLASSES)

__all__ = ["Queue", "from_config", "QUEUE_TYPES", "REGISTRY", *_CLASSES]
