"""Helpers for the testbed's tests and the benchmark: whether the testbed can run
here, and dumbbell scenarios as dicts."""

from __future__ import annotations

from typing import Any

from .gateway import gateway_binary
from .netns import privilege_problem


def skip_reason() -> str | None:
    """Why testbed tests must be skipped here (not root, no `ip netns`), or None."""
    p = privilege_problem()
    if p:
        return f"testbed needs root and ip netns: {p}"

    try:
        gateway_binary()
    except RuntimeError as e:
        return f"testbed needs the aqmlab-gateway command: {e}"
    return None


def dumbbell(  # noqa: PLR0913 - each option of the testbed's scenario, by name
    queue: dict[str, Any],
    flows: list[dict[str, Any]],
    *,
    rate: str = "10Mbps",
    delay: str = "20ms",
    duration: float = 8.0,
    warmup: float = 2.0,
    senders: int = 1,
    access_delay: str = "0ms",
    seed: int = 1,
) -> dict[str, Any]:
    """A dumbbell: senders s1..sN - r1 =bottleneck= r2 - k1 (receiver). `flows` give
    type/variant/src/...; a missing src is s1 and a missing dst k1."""
    links: list[dict[str, Any]] = [
        {"a": f"s{i + 1}", "b": "r1", "rate": "1Gbps", "delay": access_delay}
        for i in range(senders)
    ]
    links.append({"a": "r1", "b": "r2", "rate": rate, "delay": delay, "queue": queue})
    links.append({"a": "r2", "b": "k1", "rate": "1Gbps", "delay": "0ms"})
    fl = [{"src": "s1", "dst": "k1", **f} for f in flows]
    return {"duration": duration, "warmup": warmup, "seed": seed, "link": links, "flow": fl}


def tcp_flows(n: int, **kw) -> list[dict[str, Any]]:
    """n Reno flows from s1 of 1500-byte packets and a window (200 packets) that
    does not limit them at 10 Mb/s, 40 ms."""
    return [
        {
            "type": "tcp",
            "variant": "reno",
            "start": 0.05 * i,
            "packet_size": 1500,
            "max_window": 200,
            **kw,
        }
        for i in range(n)
    ]
