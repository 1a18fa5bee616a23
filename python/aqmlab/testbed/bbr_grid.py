"""``python -m aqmlab.testbed.bbr_grid``: Linux's BBR on the testbed beside the
simulator's (`variant = "bbr"`, profile `linux`), over issue 33's grid
(docs/testbed.md): 1 and 2 BBR flows, and 1 BBR beside 1 CUBIC; base RTT 20 and 80 ms;
20 Mb/s; Drop Tail of 1 and 4 BDP, CoDel and FQ-CoDel. Prints one row per cell with the
testbed's and the simulator's figures and whether the cell is inside the bounds.

The bounds, per cell: bottleneck utilization within 2 points, mean queue within 25 %
and retransmission rate within 30 % of the testbed's, and BBR's share of the goodput
beside CUBIC within 0.1.
"""

from __future__ import annotations

import sys
from typing import Any

from . import grid
from .grid import Bound, Grid, Side, bdp_packets, dumbbell

RTTS_MS = (20, 80)
QUEUES = ("droptail1", "droptail4", "codel", "fq_codel")
MIXES = ("bbr1", "bbr2", "bbr+cubic")

BOUNDS = (
    Bound("utilization", 0.02, relative=False),
    Bound("mean_queue", 0.25, relative=True),
    Bound("retx_rate", 0.30, relative=True),
    Bound("share", 0.1, relative=False),
)


def queue_config(queue: str, rtt_ms: int) -> dict[str, Any]:
    """The bottleneck queue of a cell: Drop Tail of 1 or 4 BDP (rounded to whole
    packets), CoDel and FQ-CoDel at their defaults with a 1000-packet limit (Linux's
    CoDel default)."""
    if queue.startswith("droptail"):
        return {"type": "droptail", "limit": round(int(queue[-1]) * bdp_packets(rtt_ms))}
    return {"type": queue, "limit": 1000}


def scenario(mix: str, rtt_ms: int, queue: str, duration: float, warmup: float) -> dict:
    """A cell's scenario (:func:`.grid.dumbbell`; the `linux` profile carries
    `tcp_bbr.c`'s gains)."""
    variants = {"bbr1": ["bbr"], "bbr2": ["bbr", "bbr"], "bbr+cubic": ["bbr", "cubic"]}[mix]
    return dumbbell(variants, rtt_ms, queue_config(queue, rtt_ms), duration, warmup)


def cell_name(mix: str, rtt_ms: int, queue: str) -> str:
    return f"{mix}-rtt{rtt_ms}-{queue}"


GRID = Grid(
    prog="aqmlab.testbed.bbr_grid",
    about=__doc__.split("\n\n")[0].split(": ", 1)[1],
    cells=tuple((m, r, q) for m in MIXES for r in RTTS_MS for q in QUEUES),
    name=cell_name,
    scenario=scenario,
    bounds=BOUNDS,
    extra=("bw_ratio",),
    share_of="bbr",
)


def cells() -> list[tuple[str, int, str]]:
    return list(GRID.cells)


def verdicts(t: Side, p: Side) -> dict[str, bool]:
    """Each bound of the cell: True when the simulator is inside it."""
    return GRID.verdicts(t, p)


def main(argv: list[str] | None = None) -> int:
    return grid.main(GRID, argv)


if __name__ == "__main__":
    sys.exit(main())
