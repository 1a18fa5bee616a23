"""``python -m aqmlab.testbed.linux_grid``: Linux's CUBIC and Reno on the testbed beside
the simulator's in the `linux` profile, over issue 32's grid (docs/testbed.md): 1, 2
and 8 flows of one variant; base RTT 20 and 80 ms; 20 Mb/s; Drop Tail of 1 BDP, RED,
CoDel, FQ-CoDel and PIE. Prints one row per cell with the testbed's and the simulator's
figures and whether the cell is inside the bounds.

The bounds, per cell: bottleneck utilization within 2 points, mean queue within 20 %
and drop rate (the bottleneck's drops over its arrivals) within 30 % of the testbed's.
"""

from __future__ import annotations

import sys
from typing import Any

from . import grid
from .grid import PACKET, Bound, Grid, bdp_packets, dumbbell

VARIANTS = ("cubic", "reno")
FLOWS = (1, 2, 8)
RTTS_MS = (20, 80)
QUEUES = ("droptail", "red", "codel", "fq_codel", "pie")
# Linux's `reno` is NewReno's loss recovery (with SACK, RACK and PRR, as every Linux
# TCP): the simulator's `newreno` under the linux profile.
SIM_VARIANT = {"cubic": "cubic", "reno": "newreno"}
LIMIT = 1000  # the AQMs' buffer in packets (Linux's CoDel and PIE default)

BOUNDS = (
    Bound("utilization", 0.02, relative=False),
    Bound("mean_queue", 0.20, relative=True),
    Bound("drop_rate", 0.30, relative=True),
)


def queue_config(queue: str, rtt_ms: int) -> dict[str, Any]:
    """The bottleneck queue of a cell: Drop Tail of 1 BDP (rounded to whole packets);
    RED with Floyd & Jacobson's thresholds of 5 and 15 packets counted in bytes, as
    Linux's sch_red counts (`queue_in_bytes`, the linux profile's), its mean packet
    size (tc red's `avpkt`) the grid's; CoDel, FQ-CoDel and PIE at their defaults; the
    AQMs' buffer `LIMIT` packets."""
    if queue == "droptail":
        return {"type": "droptail", "limit": round(bdp_packets(rtt_ms))}
    if queue == "red":
        return {
            "type": "red",
            "limit": LIMIT,
            "queue_in_bytes": True,
            "min_th": 5 * PACKET,
            "max_th": 15 * PACKET,
            "mean_pkt_size": PACKET,
        }
    return {"type": queue, "limit": LIMIT}


def scenario(
    variant: str, n: int, rtt_ms: int, queue: str, duration: float, warmup: float
) -> dict[str, Any]:
    """A cell's scenario (:func:`.grid.dumbbell`): `n` flows of `variant`."""
    return dumbbell(
        [SIM_VARIANT[variant]] * n, rtt_ms, queue_config(queue, rtt_ms), duration, warmup
    )


def cell_name(variant: str, n: int, rtt_ms: int, queue: str) -> str:
    return f"{variant}{n}-rtt{rtt_ms}-{queue}"


GRID = Grid(
    prog="aqmlab.testbed.linux_grid",
    about=__doc__.split("\n\n")[0].split(": ", 1)[1],
    cells=tuple((v, n, r, q) for v in VARIANTS for n in FLOWS for r in RTTS_MS for q in QUEUES),
    name=cell_name,
    scenario=scenario,
    bounds=BOUNDS,
    extra=("retx_rate", "timeouts"),
)


def main(argv: list[str] | None = None) -> int:
    return grid.main(GRID, argv)


if __name__ == "__main__":
    sys.exit(main())
