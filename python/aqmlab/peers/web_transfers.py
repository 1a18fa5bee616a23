"""The web transfers aqmlab runs, drawn in Python from the scenario's seed, so that a
peer simulator can run the very same ones (ns2/ared2001.tcl's `web` entries).

aqmlab's web traffic (crates/sim/src/sim/web.rs) draws every arrival of a group from
the group's first connection's random stream (`seed` of its normalized flow, a
`Pcg64Mcg` of `rand_pcg` seeded by `rand_core`'s `seed_from_u64`): at the flow's start
the first gap, then at each arrival the transfer's size and the next gap, nothing else
(with `prep_delay = 0`, which the replay requires). The stream depends on the seed
alone, not on the run, so the list below is the one the simulator runs: the gaps are
exponential (`-mean ln(1 - u)`), the sizes Pareto of mean `mean_packets` and shape
`shape` (`scale / (1 - u)^(1/shape)`, scale = mean (shape - 1) / shape) rounded to a
whole number of packets, at least one; times are whole nanoseconds.
tests/python/test_peers_web.py checks the list against the simulator's own count of
transfers and delivered packets.
"""

from __future__ import annotations

import math
from typing import Any

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
#: rand_pcg 0.9's multiplier of Mcg128Xsl64 (Pcg64Mcg).
_MCG_MULTIPLIER = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645
#: rand_core 0.9's PCG32 constants of `SeedableRng::seed_from_u64`.
_PCG32_MUL = 6364136223846793005
_PCG32_INC = 11634580027462260723


def _rotr(x: int, r: int, bits: int) -> int:
    r %= bits
    mask = (1 << bits) - 1
    return ((x >> r) | (x << (bits - r))) & mask


class Pcg64Mcg:
    """rand_pcg's Mcg128Xsl64: 128-bit multiplicative state, XSL RR output."""

    def __init__(self, state: int) -> None:
        """`Mcg128Xsl64::new`: the state with its low bit forced to 1."""
        self.state = (state & _M128) | 1

    @classmethod
    def seed_from_u64(cls, seed: int) -> Pcg64Mcg:
        """rand_core's `seed_from_u64`: four PCG32 outputs, little endian, as the state."""
        state = seed & _M64
        words = []
        for _ in range(4):
            state = (state * _PCG32_MUL + _PCG32_INC) & _M64
            xorshifted = (((state >> 18) ^ state) >> 27) & 0xFFFF_FFFF
            words.append(_rotr(xorshifted, state >> 59, 32))
        return cls(sum(w << (32 * i) for i, w in enumerate(words)))

    def next_u64(self) -> int:
        self.state = (self.state * _MCG_MULTIPLIER) & _M128
        s = self.state
        return _rotr(((s >> 64) ^ s) & _M64, s >> 122, 64)

    def random(self) -> float:
        """rand 0.9's `random::<f64>()`: the top 53 bits over 2^53, in [0, 1)."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))


def _round(x: float) -> int:
    """Rust's `f64::round` (halves away from zero) for x >= 0."""
    f = math.floor(x)
    return int(f) + (1 if x - f >= 0.5 else 0)


def _ns(s: float) -> int:
    """aqm's `Time::from_secs_f64`: whole nanoseconds, rounded."""
    return 0 if not s > 0.0 else _round(s * 1e9)


def transfers(flow: dict[str, Any], duration: float) -> list[tuple[int, int]]:
    """(arrival time in ns, packets) of every transfer of the web group whose first
    connection is `flow` (a normalized flow of type "web"), up to `duration` s."""
    if flow["type"] != "web":
        raise ValueError(f"flow type {flow['type']}: not a web flow")
    if flow["first"] != flow["id"]:
        raise ValueError(
            f"flow {flow['id']}: the group's arrivals are drawn by flow {flow['first']}"
        )
    if flow.get("prep_delay", 0.0):
        raise ValueError("a web flow with prep_delay > 0 draws its sends from the same stream")
    rng = Pcg64Mcg.seed_from_u64(int(flow["seed"]))
    rate, mean, shape = flow["arrival_rate"], flow["mean_packets"], flow["shape"]
    fixed = flow["transfer_sizes"] == "fixed"
    end = _ns(duration)
    stop = None if flow.get("stop") is None else _ns(flow["stop"])
    at = _ns(flow["start"]) + _ns(-(1.0 / rate) * math.log(1.0 - rng.random()))
    out: list[tuple[int, int]] = []
    while at <= end:
        if fixed:
            size = float(mean)
        else:
            scale = mean * (shape - 1.0) / shape
            size = scale / (1.0 - rng.random()) ** (1.0 / shape)
        out.append((at, min(max(_round(size), 1), 0xFFFF_FFFF // 4)))
        nxt = at + _ns(-(1.0 / rate) * math.log(1.0 - rng.random()))
        if stop is not None and nxt >= stop:
            break
        at = nxt
    return out
