"""The break-even: the traffic above which dedicated GPUs, in one scaling mode, cost no more than a per-token API.

Basis: the cheapest dedicated option *autoscaled* (floor of max(1, min_replicas) replicas) or *scaled to zero*
(traffic/scale_to_zero.py: a request that wakes a replica waits its cold start), against the cheapest serverless
price for the model, both per month of HOURS_PER_MONTH. Pure: no web or database imports.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.explain import fixed, significant
from app.scoring.serving.serverless.quotes import serverless_monthly_usd
from app.scoring.serving.traffic.scale_to_zero import IDLE_RATE_PER_S, week_replica_hours, week_shape
from app.scoring.serving.traffic.week import WEEKS_PER_MONTH, Traffic, replicas_needed, serving_cost

if TYPE_CHECKING:
    import numpy as np

BREAK_EVEN_MIN_REQUESTS_PER_DAY = 1.0
BREAK_EVEN_MAX_REQUESTS_PER_DAY = 1e9  # ~11 500 requests/s on average: beyond any single deployment here
BREAK_EVEN_GRID_POINTS = 241  # log grid, 25 per decade: finds the first crossing, bisection refines it
BISECTION_STEPS = 60
REFINE_POINTS, REFINE_ROUNDS = 64, 5  # scaled to zero: finer grids of the step, to 1.08^(1/64^5) = 1 + 7e-11
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True, slots=True)
class Replica:
    """What the cost of one dedicated option depends on."""

    label: str
    gpus_per_replica: int
    usd_per_gpu_hour: float
    output_tokens_per_s: float  # per replica, at the latency targets
    committed: bool = False  # reserved / capacity block: billed always on at the peak fleet
    request_s: float = 0.0  # one request's time on the replica (scale to zero: how long it keeps one up)

    @property
    def usd_per_replica_hour(self) -> float:
        return self.gpus_per_replica * self.usd_per_gpu_hour


@dataclass(frozen=True, slots=True)
class BreakEven:
    requests_per_day: float | None
    utilisation: float | None  # output tokens served / capacity of the paid replica-hours, at break-even
    dedicated: str | None  # the dedicated option that is cheapest at the break-even
    serverless: str | None
    basis: str
    reason: str
    mode: str = "autoscaled"  # autoscaled | scale_to_zero: how the dedicated side scales


def pareto_replicas(replicas: Sequence[Replica], by_request_time: bool = False) -> list[Replica]:
    """Replica types not beaten on both price per hour and throughput (and, `by_request_time` for scale to zero, on
    the time a request keeps one up): only these can be cheapest. Committed and pay-as-you-go replicas are billed
    differently, so each kind keeps its own front."""
    if by_request_time:
        return [r for r in replicas if not any(_beats(other, r) for other in replicas)]
    front: list[Replica] = []
    for committed in (False, True):
        kind: list[Replica] = []
        for r in sorted(replicas, key=lambda r: (r.usd_per_replica_hour, -r.output_tokens_per_s)):
            if r.committed == committed and (not kind or r.output_tokens_per_s > kind[-1].output_tokens_per_s):
                kind.append(r)
        front += kind
    return front


def _beats(a: Replica, b: Replica) -> bool:
    """a is never dearer than b at any traffic in either mode, and differs (ties keep the first listed)."""
    no_worse = (
        a.committed == b.committed
        and a.usd_per_replica_hour <= b.usd_per_replica_hour
        and a.output_tokens_per_s >= b.output_tokens_per_s
        and a.request_s <= b.request_s
    )
    key = (a.usd_per_replica_hour, -a.output_tokens_per_s, a.request_s)
    return no_worse and a is not b and key != (b.usd_per_replica_hour, -b.output_tokens_per_s, b.request_s)


def autoscaled_monthly_usd(
    replica: Replica, requests_per_day: float, multipliers: Counter[float], output_len: int, floor: int
) -> float:
    """Fast autoscaled cost: the hours of the week grouped by their multiplier (order does not matter).
    A committed replica is not autoscaled: every hour pays for the peak fleet."""
    mean_per_s = requests_per_day / 86_400
    needed = {
        m: max(floor, replicas_needed(mean_per_s * m, output_len, replica.output_tokens_per_s)) for m in multipliers
    }
    if replica.committed:
        needed = dict.fromkeys(needed, max(needed.values(), default=floor))
    hours = sum(count * needed[m] for m, count in multipliers.items())
    return hours * WEEKS_PER_MONTH * replica.usd_per_replica_hour


def scaled_months(replica: Replica, requests_per_day: Sequence[float], traffic: Traffic, output_len: int) -> np.ndarray:
    """The month scaled to zero at each requests/day, as serving_cost prices it (never more than autoscaled;
    committed: always on)."""
    import numpy as np

    multipliers = traffic.multipliers()
    means = np.asarray(requests_per_day, dtype=float) / SECONDS_PER_DAY
    by_multiplier = Counter(multipliers)
    rate = np.outer(means, list(by_multiplier))
    tokens_per_s = replica.output_tokens_per_s
    needed = np.where(rate > IDLE_RATE_PER_S, np.maximum(1.0, np.ceil(rate * output_len / tokens_per_s - 1e-9)), 0.0)
    floor = max(1, traffic.min_replicas)
    if replica.committed:
        hours = np.maximum(needed.max(axis=1), floor) * len(multipliers)
    else:
        autoscaled = (np.maximum(floor, needed) * list(by_multiplier.values())).sum(axis=1)
        shape = week_shape(multipliers, traffic.idle_timeout())
        window = traffic.idle_timeout() + replica.request_s
        up, _ = week_replica_hours(shape, means, output_len, tokens_per_s, window, traffic.cold_start_s)
        hours = np.minimum(up, autoscaled)
    return hours * WEEKS_PER_MONTH * replica.usd_per_replica_hour


def scale_to_zero_monthly_usd(replica: Replica, requests_per_day: float, traffic: Traffic, output_len: int) -> float:
    return float(scaled_months(replica, [requests_per_day], traffic, output_len)[0])


MonthlyUsd = Callable[[Replica, float], float]  # a replica type's month at a requests/day
Wins = Callable[[Sequence[float]], list[bool]]  # at each requests/day: dedicated costs no more than serverless


def cheapest_dedicated(front: Sequence[Replica], rpd: float, monthly: MonthlyUsd) -> tuple[float, Replica]:
    return min(((monthly(r, rpd), r) for r in front), key=lambda pair: pair[0])


BASIS = {
    "autoscaled": "cheapest dedicated option autoscaled to the profile vs the cheapest serverless price",
    "scale_to_zero": "cheapest dedicated option scaled to zero (replicas stop after the idle timeout; a request that "
    "finds none up waits the cold start) vs the cheapest serverless price",
}
MODE_WORDS = {"autoscaled": "autoscaled", "scale_to_zero": "scaled to zero"}


def mode_cost(mode: str, traffic: Traffic, output_len: int) -> MonthlyUsd:
    """A replica type's monthly $ at a requests/day in a scaling mode: autoscaled or scale_to_zero."""
    if mode == "scale_to_zero":
        return lambda r, rpd: scale_to_zero_monthly_usd(r, rpd, traffic, output_len)
    mult, floor = Counter(traffic.multipliers()), max(1, traffic.min_replicas)
    return lambda r, rpd: autoscaled_monthly_usd(r, rpd, mult, output_len, floor)


def _wins(mode: str, front: Sequence[Replica], usd_per_request: float, traffic: Traffic, output_len: int) -> Wins:
    """Autoscaled: one traffic at a time (a step function, found by bisection); scaled to zero: many at once."""
    if mode == "scale_to_zero":

        def scaled(rpds: Sequence[float]) -> list[bool]:
            import numpy as np

            cheapest = np.min([scaled_months(r, rpds, traffic, output_len) for r in front], axis=0)
            return list(cheapest <= [serverless_monthly_usd(rpd, usd_per_request) for rpd in rpds])

        return scaled
    monthly = mode_cost(mode, traffic, output_len)
    return lambda rpds: [
        cheapest_dedicated(front, rpd, monthly)[0] <= serverless_monthly_usd(rpd, usd_per_request) for rpd in rpds
    ]


def _crossing(wins: Wins, vectorised: bool) -> float | str:
    """The lowest requests/day where dedicated wins: `below` (at every traffic searched), `above` (at none), or the
    first grid step where it does, narrowed by bisection (or, `vectorised`, by finer grids of the step)."""
    lo, hi = BREAK_EVEN_MIN_REQUESTS_PER_DAY, BREAK_EVEN_MAX_REQUESTS_PER_DAY
    if wins([lo])[0]:
        return "below"
    ratio = (hi / lo) ** (1 / (BREAK_EVEN_GRID_POINTS - 1))
    grid = [lo * ratio**i for i in range(BREAK_EVEN_GRID_POINTS)]
    flags = wins(grid) if vectorised else None
    first = next((i for i, rpd in enumerate(grid) if (flags[i] if flags else wins([rpd])[0])), None)
    if first is None:
        return "above"
    lo, hi = grid[first - 1], grid[first]
    if vectorised:
        for _ in range(REFINE_ROUNDS):
            step = [lo * (hi / lo) ** (k / REFINE_POINTS) for k in range(1, REFINE_POINTS + 1)]
            k = next(k for k, won in enumerate(wins(step)) if won or k == REFINE_POINTS - 1)
            lo, hi = (step[k - 1] if k else lo), step[k]
        return hi
    for _ in range(BISECTION_STEPS):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if wins([mid])[0] else (mid, hi)
    return hi


def break_even(
    replicas: Sequence[Replica],
    cheapest_usd_per_request: float | None,
    serverless_label: str | None,
    traffic: Traffic,
    output_len: int,
    mode: str = "autoscaled",
) -> BreakEven:
    """The lowest requests/day at which the cheapest dedicated option in `mode` (autoscaled or scale_to_zero) costs
    no more than the cheapest serverless price. A log grid finds the first grid point where dedicated wins, and the
    step between it and the point before is narrowed (dedicated autoscaled is a step function: by bisection)."""
    basis, words = BASIS[mode], MODE_WORDS[mode]
    front = pareto_replicas(replicas, by_request_time=mode == "scale_to_zero")
    if not front or cheapest_usd_per_request is None:
        why = "no feasible dedicated option" if not front else "no serverless price to compare with"
        return BreakEven(None, None, None, serverless_label, basis, why, mode)
    found = _crossing(_wins(mode, front, cheapest_usd_per_request, traffic, output_len), mode == "scale_to_zero")
    if found == "below":
        lo = BREAK_EVEN_MIN_REQUESTS_PER_DAY
        why = f"dedicated {words} is cheaper at every traffic down to {fixed(lo, 0)} request/day"
        return BreakEven(None, None, None, serverless_label, basis, why, mode)
    if isinstance(found, str):
        hi = BREAK_EVEN_MAX_REQUESTS_PER_DAY
        why = f"serverless is cheaper than dedicated {words} at every traffic up to {fixed(hi, 0)} requests/day"
        return BreakEven(None, None, None, serverless_label, basis, why, mode)
    cost, winner = cheapest_dedicated(front, found, mode_cost(mode, traffic, output_len))
    waits = f"; a request that finds no replica up waits the {significant(traffic.cold_start_s)} s cold start"
    return BreakEven(
        found,
        _utilisation(winner, found, traffic, output_len, mode),
        winner.label,
        serverless_label,
        basis,
        f"above about {fixed(found, 0)} requests/day {winner.label} {words} (${fixed(cost, 0)}/month) "
        f"costs no more than {serverless_label}" + (waits if mode == "scale_to_zero" else ""),
        mode,
    )


def _utilisation(replica: Replica, requests_per_day: float, traffic: Traffic, output_len: int, mode: str) -> float:
    """Output tokens served ÷ what the replica-hours `mode` pays for could serve."""
    cost = serving_cost(
        traffic.hourly_requests_per_s(requests_per_day),
        output_len,
        replica.output_tokens_per_s,
        replica.gpus_per_replica,
        replica.usd_per_gpu_hour,
        traffic.min_replicas,
        traffic.cold_start_s,
        committed=replica.committed,
        request_s=replica.request_s,
        idle_timeout_s=traffic.idle_timeout(),
    )
    if mode == "autoscaled" or cost.gpu_hours_scale_to_zero <= 0:
        return cost.utilisation_autoscaled
    return cost.utilisation_autoscaled * cost.gpu_hours_autoscaled / cost.gpu_hours_scale_to_zero
