"""Scale to zero: the replica-hours billed when a replica stops after an idle timeout and starts on a request.

Requests arrive as a Poisson process at each hour's mean rate λ. One replica is up at a moment exactly when a request
arrived in the last W seconds (W = the idle timeout + one request's time on the replica), so it bills the share
1 − e^(−λW) of the hour. An arrival that finds it down wakes it (Poisson arrivals see the time average: 3600·λ·e^(−λW)
wake-ups an hour), and so does an hour's first request where the hour began with the replica down (after a stretch
without traffic longer than the idle timeout, or at the previous hour's chance of being down); each wake-up bills a
cold start. At low traffic a request bills about W plus a cold start, so the bill falls smoothly to zero with the
traffic. Replicas above the first (an hour that needs n > 1) run the hour, as autoscaled (the time they take to start
is not billed in either policy). Where a busy hour's wake-ups would bill more than staying up, the replica stays up, as
an operator would set it. The idle timeout run on after a busy stretch and the up time missed at its start (the
replica is down when its first request arrives) are about equal and both left out.

The week is priced by groups of hours that cost alike (WeekShape), for many traffics at once where a break-even search
asks (numpy, loaded on first use: most processes never price one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SECONDS_PER_HOUR = 3600.0
IDLE_RATE_PER_S = 1e-9  # hourly rates below this need no replica (traffic.replicas_needed)
KEPT_UP, STOPPED = 0.0, 1.0  # the replica's chance of being down after a stretch without traffic: outlasted or not


@dataclass(frozen=True, slots=True)
class WeekShape:
    """The week's hours with traffic grouped by what their cost depends on: the hour's rate multiplier and how the
    hour before it left the replica (a stretch without traffic it outlasted or not, or the previous multiplier)."""

    multiplier: tuple[float, ...]
    previous: tuple[float, ...]  # the previous hour's multiplier (0 where a stretch without traffic came before)
    down_before: tuple[float | None, ...]  # KEPT_UP or STOPPED after a stretch without traffic; None: from previous
    count: tuple[int, ...]  # hours a week in each group
    kept_up_hours: int  # hours without traffic billed: their stretch is no longer than the idle timeout


def idle_runs(busy: Sequence[bool]) -> list[int]:
    """For each hour of the repeating week, the length in hours of the stretch without traffic it is in (0: busy)."""
    runs = [0] * len(busy)
    first = next((i for i, b in enumerate(busy) if b), None)
    if first is None:
        return [len(busy)] * len(busy)
    stretch: list[int] = []
    for k in range(1, len(busy) + 1):  # the week from a busy hour round to it
        i = (first + k) % len(busy)
        if not busy[i]:
            stretch.append(i)
            continue
        for j in stretch:
            runs[j] = len(stretch)
        stretch = []
    return runs


@lru_cache(maxsize=256)
def week_shape(multipliers: tuple[float, ...], idle_timeout_s: float) -> WeekShape:
    """Group the week's hours (multipliers of any mean rate; 0 = no traffic at all)."""
    busy = [m > 0 for m in multipliers]
    runs = idle_runs(busy)
    outlasted = [r > 0 and r * SECONDS_PER_HOUR <= idle_timeout_s for r in runs]
    groups: Counter[tuple[float, float, float | None]] = Counter()
    for h, m in enumerate(multipliers):
        if not busy[h]:
            continue
        before = h - 1  # the week repeats: hour -1 is the last
        if busy[before]:
            groups[(m, multipliers[before], None)] += 1
        else:
            groups[(m, 0.0, KEPT_UP if outlasted[before] else STOPPED)] += 1
    keys = sorted(groups, key=lambda k: (k[0], k[1], -1.0 if k[2] is None else k[2]))
    return WeekShape(
        multiplier=tuple(k[0] for k in keys),
        previous=tuple(k[1] for k in keys),
        down_before=tuple(k[2] for k in keys),
        count=tuple(groups[k] for k in keys),
        kept_up_hours=sum(1 for h, b in enumerate(busy) if not b and outlasted[h]),
    )


def week_replica_hours(
    shape: WeekShape,
    mean_rates_per_s: np.ndarray,
    output_len: int,
    replica_output_tokens_per_s: float,
    up_window_s: float,
    cold_start_s: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Replica-hours and starts from zero a week, scaled to zero, at each of the mean rates (hour rate = mean ×
    multiplier). `up_window_s`: the idle timeout + one request's time on the replica."""
    import numpy as np

    if not shape.count:
        zeros = np.zeros(len(mean_rates_per_s))
        return zeros + shape.kept_up_hours, zeros
    rate = np.outer(mean_rates_per_s, shape.multiplier)
    needed = np.where(
        rate > IDLE_RATE_PER_S, np.maximum(1.0, np.ceil(rate * output_len / replica_output_tokens_per_s - 1e-9)), 0.0
    )
    down = np.exp(-rate * up_window_s)  # share of the hour the first replica is down
    wakes = SECONDS_PER_HOUR * rate * down
    from_previous = np.exp(-np.outer(mean_rates_per_s, shape.previous) * up_window_s)
    stated = np.array([-1.0 if d is None else d for d in shape.down_before])
    down_at_start = np.where(stated < 0, from_previous, stated)
    # the hour's first request finds it down with the chance it began down; the stationary count gave it `down`
    first = -np.expm1(-SECONDS_PER_HOUR * rate) * np.maximum(0.0, down_at_start - down)
    forced = np.where(down_at_start >= 1, first, 0.0)  # down after a long stretch without traffic: it must start
    cold = cold_start_s / SECONDS_PER_HOUR
    hours = needed - down + (wakes + first - forced) * cold
    stays_up = hours >= needed  # restarts would cost more than staying up, as it was in the hour before
    starts = np.where(stays_up, forced, wakes + first)
    hours = np.where(stays_up, needed, hours) + forced * cold
    busy = needed > 0
    count = np.array(shape.count, dtype=float)
    week_hours = (np.where(busy, hours, 0.0) * count).sum(axis=1) + shape.kept_up_hours
    return week_hours, (np.where(busy, starts, 0.0) * count).sum(axis=1)


def scale_to_zero_week(
    rates: Sequence[float],
    output_len: int,
    replica_output_tokens_per_s: float,
    request_s: float,
    idle_timeout_s: float,
    cold_start_s: float,
) -> tuple[float, float]:
    """Replica-hours a week and starts from zero a week at these hourly rates."""
    import numpy as np

    shape = week_shape(tuple(rates), idle_timeout_s)
    window = idle_timeout_s + request_s
    hours, starts = week_replica_hours(shape, np.ones(1), output_len, replica_output_tokens_per_s, window, cold_start_s)
    return float(hours[0]), float(starts[0])
