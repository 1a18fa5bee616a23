"""``aqmlab demo``: a RED queue fed by a synthetic arrival process.

Poisson arrivals of fixed-size packets at an offered load above the link rate feed
a RED queue served at the link rate; the demo prints what RED did (the average
against the thresholds, early and forced drops, the queue) beside the same
arrivals through Drop Tail.
"""

from __future__ import annotations

import argparse
import math
import random

from . import aqm


def run_queue(
    q: aqm.Queue, rate_bps: float, load: float, pkt_size: int, duration: float, seed: int
) -> dict[str, float]:
    """Feed `q` with Poisson arrivals (rate load x link rate) and serve it at `rate_bps`.

    Returns the time-average queue, the mean of avg sampled at arrivals and the counters.
    The packet in transmission is not in the queue (the server takes it at the start of
    its transmission).
    """
    rng = random.Random(seed)
    service = pkt_size * 8.0 / rate_bps
    lam = load / service
    t = 0.0
    busy_until = 0.0
    next_arrival = rng.expovariate(lam)
    area = 0.0
    last = 0.0
    avg_sum = 0.0
    n_arr = 0
    while True:
        # the next event is either a service start (link free and queue nonempty) or an arrival
        start = max(busy_until, last) if len(q) > 0 else math.inf
        t = min(next_arrival, start)
        if t > duration:
            break
        area += len(q) * (t - last)
        last = t
        if t == start:
            q.dequeue(t)
            busy_until = t + service
        else:
            q.enqueue(t, pkt_size, n_arr % 4)
            avg_sum += q.avg
            n_arr += 1
            next_arrival = t + rng.expovariate(lam)
    area += len(q) * (duration - last)
    out: dict[str, float] = dict(q.stats)  # counters stay ints
    out["mean_queue"] = area / duration
    out["mean_avg_at_arrivals"] = avg_sum / max(n_arr, 1)
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rate", type=float, default=10e6, help="link rate, b/s (default 10e6)")
    p.add_argument("--load", type=float, default=1.2, help="offered load / link rate (default 1.2)")
    p.add_argument("--duration", type=float, default=20.0, help="seconds simulated (default 20)")
    p.add_argument("--packet-size", type=int, default=1000, help="bytes (default 1000)")
    p.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    if args.rate <= 0 or args.load <= 0 or args.duration <= 0 or args.packet_size <= 0:
        raise ValueError("--rate, --load, --duration and --packet-size must be > 0")
    red = aqm.Red(
        min_th=5,
        max_th=15,
        w_q=0.002,
        max_p=0.1,
        limit=50,
        gentle=True,
        link_rate_bps=args.rate,
        mean_pkt_size=args.packet_size,
        seed=args.seed,
    )
    tail = aqm.DropTail(limit=50)
    rows = {}
    for name, q in (("RED", red), ("DropTail", tail)):
        rows[name] = run_queue(q, args.rate, args.load, args.packet_size, args.duration, args.seed)
    print(
        f"Poisson arrivals at {args.load:.2f} x {args.rate / 1e6:g} Mb/s, "
        f"{args.packet_size}-byte packets, {args.duration:g} s, buffer 50 packets"
    )
    print("RED: min_th 5, max_th 15, w_q 0.002, max_p 0.1, gentle")
    keys = [
        "arrivals",
        "departures",
        "early_drops",
        "forced_drops",
        "overflow_drops",
        "mean_queue",
        "mean_avg_at_arrivals",
    ]
    print(f"{'':24s}{'RED':>12s}{'DropTail':>12s}")
    for k in keys:
        a, b = rows["RED"][k], rows["DropTail"][k]
        fmt = "{:12.2f}" if isinstance(a, float) else "{:12d}"
        print(f"{k:24s}" + fmt.format(a) + fmt.format(b))
    r = rows["RED"]
    print(
        f"RED kept the average near [{5}, {30}] (gentle region to 2 max_th): mean avg "
        f"{r['mean_avg_at_arrivals']:.1f} packets, drop rate "
        f"{(r['early_drops'] + r['forced_drops'] + r['overflow_drops']) / r['arrivals']:.3f}"
    )
    return 0
