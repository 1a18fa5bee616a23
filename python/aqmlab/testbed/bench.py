"""``python -m aqmlab.testbed.bench``: the gateway's forwarding capacity on this machine.

For each packet size, `aqmlab-gateway blast` floods UDP frames (64 flows) from side A
as fast as it can, the gateway forwards them with RED on (limit 1000, min_th 5,
max_th 15) over a line fast enough (100 Gb/s, no delay) never to be the limit, and
`aqmlab-gateway count` counts them on side B. The capacity is the packets per second
the gateway sent on (its departures over the flood). Sender, gateway and counter share
the machine's cores, so on a small machine this is a lower bound of what the gateway
alone can do; `bench-pipeline` gives the in-process figure without the kernel.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from .gateway import gateway_binary
from .network import Testbed

RED = '{"type":"red","limit":1000,"min_th":5,"max_th":15}'


def measure(size: int, seconds: float, out: Path, gateway: str, pps: float = 0) -> Dict[str, Any]:
    """Forwarding rate for IP packets of `size` bytes (frames of size + 14)."""
    args = ["--rate", "100Gbps", "--delay", "0", "--queue", RED]
    d = out / f"size{size}-pps{int(pps)}"
    with Testbed(d, args, {"a": 1, "b": 1}, gateway=gateway) as tb:
        cnt = tb.spawn("b", [tb.gateway_bin, "count", "--iface", "eth0"], stdout=d / "count.json")
        time.sleep(0.2)
        blast = tb.spawn(
            "a",
            [
                tb.gateway_bin,
                "blast",
                "--iface",
                "eth0",
                "--size",
                str(size),
                "--flows",
                "64",
                "--seconds",
                str(seconds),
                "--pps",
                str(pps),
            ],
            stdout=d / "blast.json",
        )
        blast.wait(seconds + 30)
        time.sleep(0.3)
        cnt.terminate()
        cnt.wait(5)
        stats = tb.stop_gateway()
    if stats is None:
        raise RuntimeError(f"the gateway wrote no statistics; see {d / 'gateway.log'}")
    b = json.loads((d / "blast.json").read_text())
    c = json.loads((d / "count.json").read_text())
    ab = stats["links"]["ab"]
    side_a = stats["gateway"]["side_a"]
    return {
        "ip_bytes": size,
        "frame_bytes": size + 14,
        "seconds": b["seconds"],
        "offered_pps": b["pps"],
        "gateway_rx": side_a["rx_frames"],
        "kernel_drops_before_gateway": side_a["kernel_drops"],
        "asked_pps": pps,
        "forwarded": ab["departures"],
        "forwarded_pps": ab["departures"] / b["seconds"],
        "forwarded_mbps": ab["departed_bytes"] * 8 / b["seconds"] / 1e6,
        "received_at_b": c["frames"],
        "red_drops": ab["drops"],
    }


def pipeline(gateway: str, size: int) -> Dict[str, Any]:
    r = subprocess.run(
        [gateway, "bench-pipeline", "--size", str(size + 14)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(r.stdout)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aqmlab.testbed.bench", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--sizes", default="1500,64", help="IP packet sizes, bytes (default 1500,64)")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument(
        "--pps",
        default="0",
        help="offered loads to try, packets/s, comma-separated (0 = as fast as the sender can)",
    )
    p.add_argument("--gateway", default=None)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    gw = a.gateway or gateway_binary()
    rows = []
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as tmp:
        for s in (int(x) for x in a.sizes.split(",")):
            inproc = pipeline(gw, s)["pps"]
            for pps in (float(x) for x in a.pps.split(",")):
                r = measure(s, a.seconds, Path(tmp), gw, pps)
                r["in_process_pps"] = inproc
                rows.append(r)
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'IP bytes':>8} {'offered pps':>12} {'forwarded pps':>14} {'Mb/s':>8} {'lost %':>7} {'in-process pps':>15}"
    )
    for r in rows:
        lost = 100 * (1 - r["forwarded"] / max(1, r["offered_pps"] * r["seconds"]))
        print(
            f"{r['ip_bytes']:>8} {r['offered_pps']:>12.0f} {r['forwarded_pps']:>14.0f} {r['forwarded_mbps']:>8.0f} "
            f"{lost:>7.1f} {r['in_process_pps']:>15.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
