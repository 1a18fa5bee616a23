"""``python -m aqmlab.testbed.timing``: the testbed's timing, measured in one cell of a
grid: the cell runs with a capture at both hosts' interfaces (every TCP packet, with
the kernel's receive timestamp), and this prints how the packets were spaced where a
link spaces them (docs/testbed.md, "Scheduling"):

- ``data_runs_at_receiver``: the share of data packets that reached the receiver in
  runs of 4 or more, each within 100 us of the previous of its flow (a 20 Mb/s link
  spaces 1500-byte packets 0.6 ms apart; a late gateway sends what fell due at once);
- ``acks_close_at_sender`` / ``acks_close_as_sent``: the share of ACKs within 100 us of
  the previous of their flow where they reached the sender, and where the receiver
  sent them (what the gateway's return direction adds to ACK bunching);
- ``data_runs_at_sender``: the share of the sender's packets that left in runs of 4 or
  more within 100 us (what bunched or stretched ACKs release at once);
- the gateway's lateness (`tx_lag`: from a frame's due time to its hand-over to the
  kernel) toward the receivers (side b) and the senders (side a), median and 99th
  percentile, the scheduling it ran with and the machine's load average at the end.

The window is the grid's, [warmup, duration], counted from the first data packet.
``python -m aqmlab.testbed.timing capture --iface IF --out FILE`` is the capture
itself (run inside a host's namespace until SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import struct
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from . import bbr_grid, linux_grid
from .core import run_testbed

GAP_S = 100e-6  # packets closer than this are "at once" (a 20 Mb/s link: 600 us apart)
RUN = 4  # a run of this many packets or more is a burst
_ETH_P_ALL = 3
_SO_TIMESTAMPNS = 35
_PACKET_OUTGOING = 4


class Packet(NamedTuple):
    t: float  # the kernel's timestamp, s
    out: bool  # sent by this host (else received)
    sport: int
    dport: int
    seq: int
    ack: int
    payload: int  # TCP payload bytes


def _parse(data: bytes) -> tuple[int, int, int, int, int] | None:
    """An IPv4 TCP frame's ports, sequence and ACK numbers and payload length."""
    if len(data) < 54 or data[12:14] != b"\x08\x00" or data[23] != 6:
        return None
    ihl = (data[14] & 15) * 4
    total = struct.unpack("!H", data[16:18])[0]
    t = 14 + ihl
    sport, dport, seq, ack = struct.unpack("!HHII", data[t : t + 12])
    return sport, dport, seq, ack, total - ihl - (data[t + 12] >> 4) * 4


def capture(iface: str, out: Path) -> None:
    """Write one line per TCP packet seen on `iface` (``t_ns o|i sport dport seq ack
    payload``) until SIGTERM or SIGINT."""
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    s.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    s.settimeout(0.2)
    with open(out, "w") as f:
        while not stop:
            try:
                data, anc, _, addr = s.recvmsg(128, 1024)
            except (TimeoutError, InterruptedError):
                continue
            p = _parse(data)
            stamp = [d for lvl, typ, d in anc if (lvl, typ) == (socket.SOL_SOCKET, _SO_TIMESTAMPNS)]
            if p is None or not stamp:
                continue
            sec, ns = struct.unpack("qq", stamp[0][:16])
            way = "o" if addr[2] == _PACKET_OUTGOING else "i"
            f.write(f"{sec * 10**9 + ns} {way} {' '.join(map(str, p))}\n")


def load_capture(path: Path) -> list[Packet]:
    rows = []
    for line in Path(path).read_text().splitlines():
        t, way, *rest = line.split()
        sport, dport, seq, ack, payload = map(int, rest)
        rows.append(Packet(int(t) / 1e9, way == "o", sport, dport, seq, ack, payload))
    return rows


def _by_flow(packets: Iterable[Packet], key: str) -> list[list[float]]:
    flows: dict[int, list[float]] = defaultdict(list)
    for p in packets:
        flows[getattr(p, key)].append(p.t)
    return [sorted(ts) for ts in flows.values()]


def in_runs(times: list[list[float]], gap: float = GAP_S, run: int = RUN) -> float | None:
    """The share of packets in runs of `run` or more, each packet of a run within `gap`
    of the previous (`times`: each flow's timestamps, sorted)."""
    total = bursty = 0
    for ts in times:
        n = 1
        for x, y in zip(ts, ts[1:] + [float("inf")]):
            if y - x < gap:
                n += 1
                continue
            total += n
            bursty += n if n >= run else 0
            n = 1
    return bursty / total if total else None


def close(times: list[list[float]], gap: float = GAP_S) -> float | None:
    """The share of packets within `gap` of the previous of their flow."""
    gaps = [y - x for ts in times for x, y in zip(ts, ts[1:])]
    return sum(g < gap for g in gaps) / len(gaps) if gaps else None


def figures(
    sender: list[Packet], receiver: list[Packet], warmup: float, duration: float
) -> dict[str, float | None]:
    """The spacing figures (module doc) from the sender's and the receiver's captures
    over [warmup, duration] after the sender's first data packet."""
    data = [p for p in sender if p.out and p.payload > 0]
    if not data:
        return {}
    t0 = data[0].t

    def window(ps: Iterable[Packet]) -> list[Packet]:
        return [p for p in ps if warmup <= p.t - t0 <= duration]

    a, b = window(sender), window(receiver)
    return {
        "data_runs_at_receiver": in_runs(
            _by_flow((p for p in b if not p.out and p.payload), "sport")
        ),
        "acks_close_at_sender": close(
            _by_flow((p for p in a if not p.out and not p.payload), "dport")
        ),
        "acks_close_as_sent": close(_by_flow((p for p in b if p.out and not p.payload), "dport")),
        "data_runs_at_sender": in_runs(_by_flow((p for p in a if p.out and p.payload), "sport")),
    }


def lateness(gateway: dict[str, Any]) -> dict[str, float | None]:
    """The gateway's tx_lag toward each side, ms (side_b: to the receivers)."""
    out = {}
    for side in ("b", "a"):
        c = gateway.get(f"side_{side}", {})
        for q in ("p50", "p99"):
            v = c.get(f"tx_lag_{q}_s")
            out[f"tx_lag_{side}_{q}_ms"] = None if v is None else round(v * 1e3, 3)
    return out


def measure(grid_name: str, cell: str, out: Path, duration: float, warmup: float) -> dict:
    """Run `cell` of the grid `grid_name` ("linux" or "bbr") with captures into `out`
    and return its timing figures."""
    grid = {"linux": linux_grid.GRID, "bbr": bbr_grid.GRID}[grid_name]
    chosen = [c for c in grid.cells if grid.name(*c) == cell]
    if not chosen:
        raise ValueError(f"--cell: no cell {cell!r} in the {grid_name} grid")
    s = run_testbed(grid.scenario(*chosen[0], duration, warmup), out, capture=True)
    load = os.getloadavg()[0]
    tb = s["testbed"]
    sender, receiver = (load_capture(out / f"capture_{side}.txt") for side in ("a", "b"))
    spacing = figures(sender, receiver, warmup, duration)
    return {
        "cell": cell,
        "scheduling": tb.get("scheduling"),
        "load": round(load, 1),
        **lateness(tb["gateway"]),
        **{k: None if v is None else round(v, 4) for k, v in spacing.items()},
        "mean_queue": s["links"]["r1->r2"]["mean_queue"],
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["capture"]:
        c = argparse.ArgumentParser(prog="python -m aqmlab.testbed.timing capture")
        c.add_argument("--iface", required=True)
        c.add_argument("--out", required=True)
        ca = c.parse_args(argv[1:])
        capture(ca.iface, Path(ca.out))
        return 0
    p = argparse.ArgumentParser(prog="python -m aqmlab.testbed.timing", description=__doc__)
    p.add_argument("--grid", choices=("linux", "bbr"), default="linux")
    p.add_argument("--cell", required=True, help="a cell's name, e.g. reno2-rtt80-codel")
    p.add_argument("--out", required=True, help="the run's directory (written whole)")
    p.add_argument("--duration", type=float, default=40.0)
    p.add_argument("--warmup", type=float, default=10.0)
    a = p.parse_args(argv)
    print(json.dumps(measure(a.grid, a.cell, Path(a.out), a.duration, a.warmup)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
