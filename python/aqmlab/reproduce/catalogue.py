"""The catalogue: every experiment, by group, and the registry built from them.

The list is explicit: the papers appear in the order it first names them (Floyd &
Jacobson, then Bonald, May & Bolot), and within a paper the registry orders the ids
(figures before tables, by number). A group's ids share computed data and stored
sweeps and run one after another in one process.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..base import positive_int
from . import (
    bonald2000,
    bonald2000_drops,
    bonald2000_queue,
    bonald2000_tcp_flows,
    bonald2000_tcp_traces,
    floyd1993,
    floyd1993_fig5,
    floyd1993_fig12,
    floyd1993_misbehaving,
    floyd1993_twoway,
    floyd2001,
    floyd2001_congestion,
    floyd2001_oscillations,
    floyd2001_routing,
    floyd2001_tradeoff,
    floyd2001_wq,
    lin1997,
    lin1997_cbr,
    lin1997_many,
    lin1997_symmetric,
    zheng2008,
    zheng2008_figs,
)
from .execute import Result, run_group, run_groups
from .registry import Group, Registry
from .report import write_index as _write_index

FLOYD = floyd1993.PAPER
BONALD = bonald2000.PAPER
ZHENG = zheng2008.PAPER
LIN = lin1997.PAPER
FLOYD2001 = floyd2001.PAPER

GROUPS: tuple[Group, ...] = (
    Group("floyd1993-fig3", FLOYD, (floyd1993.FIG3,)),
    Group("floyd1993-fig7", FLOYD, (floyd1993.FIG7,)),
    Group("floyd1993-fig8", FLOYD, (floyd1993.FIG8,)),
    Group("floyd1993-fig16", FLOYD, (floyd1993_misbehaving.FIG16,)),
    Group(
        "floyd1993-multirun",
        FLOYD,
        (
            floyd1993_fig5.FIG5,
            floyd1993_fig12.FIG12,
            floyd1993_fig12.FIG13,
            floyd1993_fig12.FIG14,
            floyd1993_fig12.FIG15,
        ),
    ),
    Group("floyd1993-fig9", FLOYD, (floyd1993_twoway.FIG9,)),
    Group("bonald2000-fig3", BONALD, (bonald2000.FIG3,)),
    Group("bonald2000-fig5", BONALD, (bonald2000.FIG5,)),
    Group("bonald2000-table3", BONALD, (bonald2000_queue.TABLE3, bonald2000_queue.FIG10)),
    Group("bonald2000-fig6", BONALD, (bonald2000.FIG6,)),
    Group("bonald2000-fig7", BONALD, (bonald2000.FIG7,)),
    Group("bonald2000-table1", BONALD, (bonald2000_drops.TABLE1, bonald2000_drops.FIG8)),
    Group("bonald2000-table2", BONALD, (bonald2000_drops.TABLE2, bonald2000_drops.FIG9)),
    Group("bonald2000-table4", BONALD, (bonald2000_queue.TABLE4, bonald2000_queue.FIG11)),
    Group(
        "bonald2000-tcp",
        BONALD,
        (
            bonald2000_tcp_flows.TABLE5,
            bonald2000_tcp_traces.FIG13,
            bonald2000_tcp_flows.FIG14,
            bonald2000_tcp_traces.FIG15,
        ),
    ),
    # Floyd, Gummadi & Shenker 2001 (Adaptive RED)
    Group(
        "floyd2001-tradeoff",
        FLOYD2001,
        (
            floyd2001_tradeoff.FIG1,
            floyd2001_tradeoff.FIG2,
            floyd2001_tradeoff.FIG3,
            floyd2001_tradeoff.FIG4,
            floyd2001_tradeoff.FIG5,
        ),
    ),
    Group("floyd2001-fig10", FLOYD2001, (floyd2001.FIG10,)),
    Group("floyd2001-section4", FLOYD2001, (floyd2001.SECTION4,)),
    Group(
        "floyd2001-congestion",
        FLOYD2001,
        (
            floyd2001_congestion.FIG6,
            floyd2001_congestion.FIG7,
            floyd2001_congestion.FIG8,
            floyd2001_congestion.FIG9,
        ),
    ),
    Group(
        "floyd2001-oscillations",
        FLOYD2001,
        (
            floyd2001_oscillations.FIG11,
            floyd2001_oscillations.FIG12,
            floyd2001_oscillations.FIG13,
            floyd2001_oscillations.FIG14,
        ),
    ),
    Group("floyd2001-fig18", FLOYD2001, (floyd2001_routing.FIG18,)),
    Group("floyd2001-wq", FLOYD2001, (floyd2001_wq.FIG15, floyd2001_wq.FIG16, floyd2001_wq.FIG17)),
)
# Lin & Morris 1997
GROUPS += (
    Group("lin1997-fragile", LIN, lin1997.TABLES),
    Group("lin1997-fig3", LIN, (lin1997_symmetric.FIG3, lin1997_symmetric.FIG4)),
    Group("lin1997-fig6", LIN, (lin1997_cbr.FIG6,)),
    Group("lin1997-fig7", LIN, (lin1997_cbr.FIG7,)),
    Group(
        "lin1997-many",
        LIN,
        (lin1997_many.TABLE5, lin1997_many.FIG9, lin1997_many.FIG10, lin1997_many.FIG11),
    ),
)
# Zheng & Atiquzzaman 2008
GROUPS += (
    Group("zheng2008-bounds", ZHENG, (zheng2008.BOUNDS,)),
    Group("zheng2008-figs", ZHENG, zheng2008_figs.FIGS),
)

REGISTRY = Registry(GROUPS)


def run_named(name: str, ids: list[str], out: str, quick: bool, jobs: int) -> list[Result]:
    """``run_group`` of the catalogue's group called ``name`` (in a worker process: it
    looks the group up by name, since experiments may hold closures, which do not
    pickle)."""
    (group,) = [g for g in REGISTRY.groups if g.name == name]
    return run_group(group, ids, out, quick, jobs)


def catalogue_order() -> list[str]:
    """Every id in catalogue order (see :meth:`.registry.Registry.order`)."""
    return REGISTRY.order()


def select(ids: Sequence[str]) -> list[str]:
    """Expand ``all`` and paper prefixes (``floyd1993``) into ids, in catalogue order."""
    return REGISTRY.select(ids)


def write_index(out: str | Path) -> Path:
    """Write ``out/index.html`` from every ``out/<id>/`` present, in catalogue order."""
    return _write_index(out, REGISTRY.order())


def run(
    ids: Sequence[str],
    out: str | Path,
    quick: bool = False,
    jobs: int | None = None,
    progress: bool = True,
) -> dict[str, str]:
    """Run experiments and write ``out/index.html``. Returns ``{id: status}``. `jobs`:
    processes (default: every core)."""
    if jobs is not None:
        positive_int("jobs", jobs)
    chosen = REGISTRY.select(ids)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    statuses = run_groups(
        REGISTRY.batches(chosen), out, quick, jobs or os.cpu_count() or 1, progress, run_named
    )
    write_index(out)
    return statuses
