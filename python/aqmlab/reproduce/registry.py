"""The shape of the catalogue: experiments, the groups they run in, and the registry
that orders and selects them.

An :class:`Experiment` is one id (``<first author><year>-<fig|table><n>``) in three
steps: ``compute(ctx)`` runs the models or simulations, records its assumptions and
writes its data files, and returns the data; ``plot(data)`` draws the figures from the
data (name -> figure); ``compare(ctx, data)`` states the paper's numbers and claims
against the data, with notes where they differ. A :class:`Group` holds the ids that
share computed data: they run one after another in one process and share a store
(:meth:`.context.Context.once`). The :class:`Registry` is built from an explicit list
of groups (``catalogue.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Generic,
    TypeVar,
)

from .context import Context

if TYPE_CHECKING:
    from matplotlib.figure import Figure

D = TypeVar("D")


@dataclass(frozen=True)
class Experiment(Generic[D]):
    """One id of the catalogue: what it computes, draws and checks."""

    id: str
    title: str
    compute: Callable[[Context], D]
    compare: Callable[[Context, D], None]
    plot: Callable[[D], Mapping[str, Figure]] | None = None

    def run(self, ctx: Context) -> None:
        """Compute, save each figure under its name, compare."""
        data = self.compute(ctx)
        if self.plot is not None:
            for name, fig in self.plot(data).items():
                ctx.save_fig(fig, name)
        self.compare(ctx, data)


@dataclass(frozen=True)
class Group:
    """Ids that share computed data (and stored sweeps, under ``OUT/.<name>-sweeps``)."""

    name: str
    paper: str
    experiments: tuple[Experiment[Any], ...]


@dataclass(frozen=True)
class Entry:
    """A registered id: its experiment, title and paper, and the group it runs in."""

    id: str
    title: str
    paper: str
    experiment: Experiment[Any]
    group: Group


class Registry(Mapping[str, Entry]):
    """Every id of the catalogue, from a list of groups; papers in the order the list
    names them first."""

    def __init__(self, groups: Sequence[Group]) -> None:
        self.groups = tuple(groups)
        self._entries: dict[str, Entry] = {}
        for g in self.groups:
            for e in g.experiments:
                if e.id in self._entries:
                    raise ValueError(f"experiment id {e.id!r} registered twice")
                self._entries[e.id] = Entry(e.id, e.title, g.paper, e, g)

    def __getitem__(self, id_: str) -> Entry:
        return self._entries[id_]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def order(self) -> list[str]:
        """Every id in catalogue order: papers as the list first names them, then within
        a paper the figures before the tables, by number (fig5 before fig12)."""
        papers: dict[str, int] = {}
        for k in self._entries:
            papers.setdefault(k.split("-")[0], len(papers))

        def key(k: str) -> tuple[int, bool, str, int, str]:
            paper, _, rest = k.partition("-")
            m = re.fullmatch(r"([a-z]+)(\d+)(.*)", rest)
            kind, num, tail = (m.group(1), int(m.group(2)), m.group(3)) if m else (rest, 0, "")
            return (papers[paper], kind != "fig", kind, num, tail)

        return sorted(self._entries, key=key)

    def select(self, ids: Iterable[str]) -> list[str]:
        """Expand ``all`` and paper prefixes (``floyd1993``) into registered ids, in
        catalogue order."""
        out: list[str] = []
        for i in ids:
            if i == "all":
                matched = self.order()
            elif i in self._entries:
                matched = [i]
            else:
                matched = [k for k in self.order() if k.startswith(i + "-")]
                if not matched:
                    known = ", ".join(sorted({k.split("-")[0] for k in self._entries}))
                    raise ValueError(
                        f"unknown experiment id {i!r}: see 'aqmlab reproduce --list' "
                        f"(papers: {known}, or 'all')"
                    )
            out.extend(m for m in matched if m not in out)
        return out

    def batches(self, ids: Sequence[str]) -> list[tuple[Group, list[str]]]:
        """The chosen ids by group (each group once, in the order of its first id)."""
        by: dict[str, tuple[Group, list[str]]] = {}
        for i in ids:
            g = self._entries[i].group
            by.setdefault(g.name, (g, []))[1].append(i)
        return list(by.values())
