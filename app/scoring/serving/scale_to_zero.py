"""Scale to zero: the replica-hours billed when a replica stops after an idle timeout and starts on a request.

Requests arrive as a Poisson process at each hour's mean rate λ. One replica is up at a moment exactly when a request
arrived in the last W seconds (W = the idle timeout + one request's time on the replica), so it bills the share
1 − e^(−λW) of the hour. An arrival that finds it down wakes it (Poisson arrivals see the time average: 3600·λ·e^(−λW)
wake-ups an hour), and so does an hour's first request where the hour began with the replica down (after a stretch
without traffic longer than the idle timeout, or at the previous hour's chance of being down); each wake-up bills a
cold start. At low traffic a request bills about W plus a cold start, so the bill falls smoothly to
zero with the traffic. Replicas above the first (an hour that needs n > 1) run the hour, as autoscaled (the time they
take to start is not billed in either policy). Where a busy hour's wake-ups would bill more than staying up, the
replica stays up, as an operator would set it. The idle timeout run on after a busy stretch and the up time missed at
its start (the replica is down when its first request arrives) are about equal and both left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class ScaleToZeroHour:
    replica_hours: float
    starts: float  # wake-ups of the first replica from zero


def scale_to_zero_hour(
    rate_per_s: float, replicas: int, up_window_s: float, cold_start_s: float, down_at_start: float
) -> ScaleToZeroHour:
    """One busy hour: `replicas` needed at `rate_per_s`; `down_at_start`: the chance the first replica is down when
    the hour begins (1 after a stretch without traffic, else the previous hour's share down)."""
    if replicas <= 0 or rate_per_s <= 0:
        return ScaleToZeroHour(0.0, 0.0)
    down = math.exp(-rate_per_s * up_window_s)  # share of the hour the first replica is down
    wakes = SECONDS_PER_HOUR * rate_per_s * down
    # the hour's first request finds it down with the chance it began down; the stationary count gave it `down`
    first = -math.expm1(-SECONDS_PER_HOUR * rate_per_s) * max(0.0, down_at_start - down)
    forced = first if down_at_start >= 1 else 0.0  # down after a long stretch without traffic: it must start
    hours = replicas - down + (wakes + first - forced) * cold_start_s / SECONDS_PER_HOUR
    if hours >= replicas:  # restarts would cost more than staying up, as it was in the hour before
        hours, wakes, first = float(replicas), 0.0, forced
    return ScaleToZeroHour(hours + forced * cold_start_s / SECONDS_PER_HOUR, wakes + first)


def idle_runs(needed: Sequence[int]) -> list[int]:
    """For each hour of the repeating week, the length in hours of the stretch without traffic it is in (0: busy)."""
    runs = [0] * len(needed)
    busy = [i for i, n in enumerate(needed) if n > 0]
    if not busy:
        return [len(needed)] * len(needed)
    start = busy[0]
    order = [(start + k) % len(needed) for k in range(len(needed))]  # the week from a busy hour round to it
    stretch: list[int] = []
    for i in order[1:] + order[:1]:
        if needed[i] == 0:
            stretch.append(i)
            continue
        for j in stretch:
            runs[j] = len(stretch)
        stretch = []
    return runs


def scale_to_zero_week(
    rates: Sequence[float],
    needed: Sequence[int],
    request_s: float,
    idle_timeout_s: float,
    cold_start_s: float,
) -> tuple[float, float]:
    """Replica-hours a week and starts from zero a week. A stretch without traffic no longer than the idle timeout
    keeps the replica up (billed, and no start after it); a longer one lets it stop."""
    if not any(n > 0 for n in needed):
        return 0.0, 0.0
    runs = idle_runs(needed)
    stays_up = [r > 0 and r * SECONDS_PER_HOUR <= idle_timeout_s for r in runs]
    window = idle_timeout_s + request_s
    seen: dict[tuple[float, int, float], ScaleToZeroHour] = {}  # a profile repeats its rates: each costed once
    hours = starts = 0.0
    for h, (rate, n) in enumerate(zip(rates, needed, strict=True)):
        if n == 0:
            hours += 1.0 if stays_up[h] else 0.0
            continue
        key = (rate, n, _down_at_start(h - 1, rates, runs, stays_up, window))  # hour -1: the week's last
        if key not in seen:
            seen[key] = scale_to_zero_hour(rate, n, window, cold_start_s, key[2])
        hours += seen[key].replica_hours
        starts += seen[key].starts
    return hours, starts


def _down_at_start(before: int, rates: Sequence[float], runs: list[int], stays_up: list[bool], window: float) -> float:
    """The chance the first replica is down as an hour begins, from the hour `before` it."""
    if runs[before] > 0:  # a stretch without traffic: down unless the idle timeout outlasts it
        return 0.0 if stays_up[before] else 1.0
    return math.exp(-rates[before] * window)
