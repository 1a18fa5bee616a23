"""A compiled simulation run to its end in steps, with a progress bar where the run
takes long: what :func:`aqmlab.simulate` and ``aqmlab run`` share. Imports
:mod:`time` alone (tqdm when a bar is shown)."""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Union

    ProgressArg = Union[None, bool, Callable[[float, float], None]]

__all__ = ["drive"]


def drive(sim: Any, progress: ProgressArg) -> None:
    """Run `sim` (an ``aqmlab._native.Simulation``) to its duration in 200 steps.
    `progress`: None shows a tqdm bar only where the run will take more than about 3 s
    of wall time, True always, False never; a callable gets ``(simulated_seconds,
    duration)`` after each step."""
    duration = sim.duration
    steps = 200
    bar = None
    t0 = time.monotonic()
    for k in range(1, steps + 1):
        # Only the clock is read between steps: early hand-overs may run ahead.
        sim.run_until(duration * k / steps, exact=False)
        if callable(progress):
            progress(sim.now, duration)
        elif progress is not False and bar is None:
            elapsed = time.monotonic() - t0
            # Show a bar when asked, or when the run will take more than ~3 s.
            if progress is True or (elapsed > 0.5 and elapsed * steps / k > 3.0):
                from tqdm import tqdm

                bar = tqdm(
                    total=round(duration, 6),
                    unit="sim-s",
                    leave=False,
                    bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim-s [{elapsed}<{remaining}]",
                )
        if bar is not None:
            bar.update(round(sim.now - bar.n, 6))
    if bar is not None:
        bar.close()
