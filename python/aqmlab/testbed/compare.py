"""``python -m aqmlab.testbed.compare``: the testbed beside the simulator for the
scenarios shipped in ``aqmlab/testbed/scenarios`` (1, 4 and 16 Reno flows through RED
at 10 Mb/s), as the table of docs/testbed.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .core import run_testbed

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
DEFAULT = ["red_1flow.toml", "red_4flows.toml", "red_16flows.toml"]


def _rate(l) -> float | None:
    return l["drops"] / l["arrivals"] if l and l.get("arrivals") else None


def _f(v, fmt):
    return format(v, fmt) if v is not None else format("-", ">" + fmt.split(".")[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aqmlab.testbed.compare", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "scenarios",
        nargs="*",
        help=f"scenario files (default: {', '.join(DEFAULT)} in {SCENARIOS})",
    )
    p.add_argument(
        "--out", default="testbed-compare", help="output directory (one subdirectory per scenario)"
    )
    a = p.parse_args(argv)
    files = [Path(s) for s in a.scenarios] or [SCENARIOS / s for s in DEFAULT]
    rows = []
    for f in files:
        s = run_testbed(f, Path(a.out) / f.stem)
        link = next(iter(s["links"]))
        t = s["links"][link]
        pr = (s.get("prediction") or {}).get("links", {}).get(link)
        rows.append((f.stem, len(s["flows"]), t, pr, s.get("prediction_note")))
    print(
        f"{'scenario':<14} {'flows':>5}   {'utilization':>17}   {'mean queue':>15}   {'mean avg':>15}   {'drop rate %':>15}"
    )
    print(
        f"{'':<14} {'':>5}   {'testbed':>8} {'sim':>8}   {'testbed':>7} {'sim':>7}   {'testbed':>7} {'sim':>7}   {'testbed':>7} {'sim':>7}"
    )
    for name, n, t, pr, note in rows:
        g = lambda d, k: d.get(k) if d else None  # noqa: E731
        rt, rp = _rate(t), _rate(pr)
        print(
            f"{name:<14} {n:>5}   {_f(t['utilization'], '8.3f')} {_f(g(pr, 'utilization'), '8.3f')}   "
            f"{_f(t['mean_queue'], '7.2f')} {_f(g(pr, 'mean_queue'), '7.2f')}   "
            f"{_f(t['mean_avg'], '7.2f')} {_f(g(pr, 'mean_avg'), '7.2f')}   "
            f"{_f(rt and rt * 100, '7.2f')} {_f(rp and rp * 100, '7.2f')}"
        )
        if note:
            print(f"  ({note})")
    (Path(a.out) / "comparison.json").write_text(
        json.dumps(
            [{"scenario": r[0], "flows": r[1], "testbed": r[2], "simulator": r[3]} for r in rows],
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
