"""The simulator's cost per bottleneck packet for each TCP variant: the peers' S1 case
(100 flows, 15 Mb/s, RED; `benchmarks/peers/scenarios.py toml S1-n100-red`) for
`--duration` seconds (warm-up half of it) with every flow of one variant, run by a
release `aqmlab-sim` under callgrind. Prints instructions, bottleneck packets and
instructions per bottleneck packet per variant:

    python benchmarks/tcp/variant_cost.py target/release/aqmlab-sim [--duration 300]

The variants: NewReno as S1 has it (no SACK), NewReno and CUBIC with SACK, and BBR
(which needs SACK, and paces). Instructions, unlike seconds, do not move with the load
of a shared machine (docs/simulator.md, Performance). Needs valgrind and aqmlab.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from aqmlab.peers.scenarios import select

VARIANTS = {
    "newreno": {},
    "newreno, sack": {"sack": True},
    "cubic, sack": {"variant": "cubic", "sack": True},
    "bbr": {"variant": "bbr", "sack": True},
}


def scenario(keys: dict, duration: float) -> dict:
    """S1 with every flow given `keys`, run for `duration` s, measured over its second half."""
    sc = select("S1-n100-red")[0].aqmlab_scenario()
    sc["duration"], sc["warmup"] = f"{duration:g}s", f"{duration / 2:g}s"
    sc["flow"] = [dict(f, **keys) for f in sc["flow"]]
    return sc


def count(sim: str, toml: Path) -> tuple[int, int]:
    """Instructions callgrind counts for `sim` on `toml`, and the bottleneck packets
    the run prints."""
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sim, str(toml)],
        capture_output=True,
        text=True,
        check=True,
    )
    out = r.stdout + r.stderr
    ins = re.search(r"Collected : (\d+)", out)
    pk = re.search(r"bottleneck \S+ (\d+) packets", out)
    if not ins or not pk:
        raise SystemExit(f"could not read callgrind's count or the packets from:\n{out[-2000:]}")
    return int(ins.group(1)), int(pk.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sim", help="a release aqmlab-sim")
    ap.add_argument("--duration", type=float, default=300.0, help="s (default 300)")
    a = ap.parse_args()
    from aqmlab.peers.scenarios import to_toml

    print(f"{'variant':16} {'instructions':>15} {'packets':>9} {'per packet':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, keys in VARIANTS.items():
            path = Path(tmp) / "s1.toml"
            path.write_text(to_toml(scenario(keys, a.duration)))
            ins, pk = count(a.sim, path)
            print(f"{name:16} {ins:15,} {pk:9,} {ins / pk:10.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
