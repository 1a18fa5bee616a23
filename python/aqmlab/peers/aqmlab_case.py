#!/usr/bin/env python3
"""Run one peer-benchmark case in aqmlab and print the same JSON line as the peers.

    python aqmlab_case.py CASE.toml      # a file written by scenarios.Case.aqmlab_toml()
    python aqmlab_case.py --check        # exit 0 if aqmlab's simulator is importable
    python aqmlab_case.py --summary DIR/summary.json   # the line of a finished `aqmlab run`

Uses the compiled ``aqmlab._native.Simulation``: the scenario file's TOML text is
handed to it as it is (parsed in Rust), then run_until(duration) -> summary(); the
process imports nothing else of aqmlab.
The summary's bottleneck link ("r1->r2") gives utilization, mean_queue (packets
waiting, not the one on the wire), mean_avg (RED's average), arrivals and drops
over [warmup, duration]; the flows give goodput_bps; bottleneck_packets counts
the bottleneck departures of the whole run.
"""

from __future__ import annotations

import json
import sys


def _runner():
    try:
        from aqmlab import _native
    except Exception as e:  # noqa: BLE001
        raise RuntimeError(f"cannot import aqmlab._native: {e}") from e
    if not hasattr(_native, "Simulation"):
        raise RuntimeError("aqmlab._native has no Simulation (rebuild the extension)")

    def run(scenario: str) -> dict:
        sim = _native.Simulation(scenario)
        sim.run_until(sim.duration)
        return sim.summary()

    return run


def main(argv) -> int:
    if len(argv) == 2 and argv[1] == "--check":
        try:
            _runner()
        except RuntimeError as e:
            print(e)
            return 1
        return 0
    if len(argv) == 3 and argv[1] == "--summary":
        with open(argv[2], encoding="utf-8") as f:
            print(json.dumps(record(json.load(f))))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    run = _runner()
    print(json.dumps(record(run(text))))
    return 0


def record(s: dict) -> dict:
    """The peers' JSON record from a run's summary (the shape of summary.json)."""
    # (the summary's own `bottleneck` is the busiest direction: with one flow, a tie
    # that its access link can win)
    links = s["links"]
    link = links["r1->r2"] if "r1->r2" in links else links[s.get("bottleneck") or "r1->r2"]
    arr = link["arrivals"]
    flows = [fl["goodput_bps"] / 1e6 for fl in s["flows"]]
    cwnds = [fl.get("mean_cwnd", 0.0) for fl in s["flows"]]
    n = len(flows)
    sq = sum(x * x for x in flows)
    jain = sum(flows) ** 2 / (n * sq) if sq > 0 else 0.0
    is_red = link.get("queue_type", "") not in ("droptail", "drop_tail", "DropTail")
    out = {
        "sim": "aqmlab",
        "case": s.get("name", ""),
        "utilization": link["utilization"],
        "mean_queue": link["mean_queue"],
        "mean_red_avg": link.get("mean_avg") if is_red else None,
        "drop_rate": link["drops"] / arr if arr else 0.0,
        "jain": jain,
        "mean_cwnd": sum(cwnds) / len(cwnds) if cwnds else None,
        "goodput_mbps": sum(flows),
        "arrivals": arr,
        "departures": link["departures"],
        "drops": link["drops"],
        "departures_total": s.get("bottleneck_packets"),
        "final_max_p": link.get("max_p"),
        "mean_delay": link.get("mean_delay"),
        "delay_p95": link.get("delay_p95"),
        "window": [s["warmup"], s["duration"]],
        "flow_goodput_mbps": [round(x, 6) for x in flows],
    }
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
