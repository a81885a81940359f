"""The cheapest mix of replica types for a request-length distribution: Mélange's integer program.

Griggs et al. 2024 (arXiv 2404.14527): for replica type i and length bucket b, capacity_ib is the most
requests/s one replica sustains for that bucket at the latency limits. Integer replicas n_i and shares
x_ib >= 0 of bucket b's load placed on type i:

    minimise   sum_i price_i n_i
    subject to sum_i x_ib = 1                                for every bucket b
               sum_b x_ib demand_b / capacity_ib <= n_i      for every type i

Solved with SciPy's milp (HiGHS). Shares are continuous (a bucket may be split between types); Mélange
assigns whole slices of a bucket instead, which this relaxes exactly in the limit of fine slices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# numpy and scipy.optimize load inside solve_mix, on the first program to solve: importing them is about
# a third of the app's import time, paid by every process that imports the app (most never solve one).

# HiGHS' default relative gap (1e-4) may stop at a mix a cent dearer than the optimum; demand exactness.
MIP_REL_GAP = 0.0
TIME_LIMIT_S = 5.0  # a guard: instances here have tens of variables and solve in milliseconds
LOAD_TOLERANCE = 1e-7  # replica loads within this of a whole number count as that number (float noise)


@dataclass(frozen=True, slots=True)
class MixCandidate:
    """One replica type: what a replica costs and the requests/s it sustains per bucket (0 = cannot serve)."""

    key: str
    usd_per_replica_month: float
    capacity_rps: tuple[float, ...]  # one per bucket, same order as the demands


@dataclass(frozen=True, slots=True)
class MixAssignment:
    candidate: str
    replicas: int
    load_replicas: float  # sum_b share x demand / capacity: the fractional replicas the load needs
    shares: tuple[float, ...]  # of each bucket's requests, per bucket
    usd_per_month: float


@dataclass(frozen=True, slots=True)
class MixSolution:
    usd_per_month: float
    assignments: tuple[MixAssignment, ...]  # candidates with at least one replica, in candidate order


def replica_bound(candidate: MixCandidate, demand_rps: Sequence[float]) -> int:
    """Most replicas an optimal mix can give this type: enough to serve every bucket it can serve alone."""
    load = sum(d / c for d, c in zip(demand_rps, candidate.capacity_rps, strict=True) if c > 0)
    return max(math.ceil(load - LOAD_TOLERANCE), 0)


def solve_mix(candidates: Sequence[MixCandidate], demand_rps: Sequence[float]) -> MixSolution | None:
    """The cheapest integer mix serving every bucket's demand, or None when some bucket has no candidate."""
    if not candidates:  # nothing fits the limits (the program would have no variables)
        return None
    buckets = len(demand_rps)
    served = [(i, b) for i, c in enumerate(candidates) for b in range(buckets) if c.capacity_rps[b] > 0]
    if any(all(pb != b for _, pb in served) for b in range(buckets) if demand_rps[b] > 0):
        return None
    if len(candidates) == 1:  # one type: no choice to make, so no program to run
        return _alone(candidates[0], demand_rps)
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    count = len(candidates)
    width = count + len(served)  # n_0..n_{I-1}, then one x per servable (i, b)
    cost = np.zeros(width)
    cost[:count] = [c.usd_per_replica_month for c in candidates]
    cover = np.zeros((buckets, width))
    load = np.zeros((count, width))
    for column, (i, b) in enumerate(served, start=count):
        cover[b, column] = 1.0
        load[i, column] = demand_rps[b] / candidates[i].capacity_rps[b]
    for i in range(count):
        load[i, i] = -1.0
    # x_ib <= n_i: a share needs a replica. Valid for every integer mix (a share's load is positive, so n_i >= 1),
    # and it stops a load under HiGHS' integrality tolerance (1 request a day) from riding on n_i = 0.000001
    link = np.zeros((len(served), width))
    for row, (i, _) in enumerate(served):
        link[row, count + row], link[row, i] = 1.0, -1.0
    needed = np.array([1.0 if d > 0 else 0.0 for d in demand_rps])  # a bucket without demand needs no home
    upper = [replica_bound(c, demand_rps) for c in candidates] + [1.0] * len(served)
    result = milp(
        cost,
        constraints=[
            LinearConstraint(cover, needed, 1.0),
            LinearConstraint(load, -np.inf, LOAD_TOLERANCE),
            LinearConstraint(link, -np.inf, 0.0),
        ],
        integrality=np.array([1] * count + [0] * len(served)),
        bounds=Bounds(np.zeros(width), np.array(upper, dtype=float)),
        options={"mip_rel_gap": MIP_REL_GAP, "time_limit": TIME_LIMIT_S},
    )
    if result.x is None:
        return None
    return _solution(candidates, demand_rps, served, result.x)


def _solution(
    candidates: Sequence[MixCandidate], demand_rps: Sequence[float], served: list[tuple[int, int]], x: np.ndarray
) -> MixSolution:
    count, buckets = len(candidates), len(demand_rps)
    shares = [[0.0] * buckets for _ in candidates]
    for column, (i, b) in enumerate(served, start=count):
        shares[i][b] = max(float(x[column]), 0.0)
    # each bucket's shares add up to 1 within the solver's tolerance, some of it on types given no replica (0.999999
    # for a whole bucket): the rented types' shares, divided by their total, say exactly 1
    for i in range(count):
        if round(float(x[i])) <= 0:
            shares[i] = [0.0] * buckets
    for b in range(buckets):
        total = sum(row[b] for row in shares)
        for row in shares:
            row[b] = row[b] / total if total > 0 else row[b]
    rows = []
    for i, candidate in enumerate(candidates):
        replicas = round(float(x[i]))
        if replicas <= 0:
            continue
        load = sum(s * d / c for s, d, c in zip(shares[i], demand_rps, candidate.capacity_rps, strict=True) if c > 0)
        rows.append(
            MixAssignment(
                candidate=candidate.key,
                replicas=replicas,
                load_replicas=load,
                shares=tuple(round(s, 9) for s in shares[i]),
                usd_per_month=replicas * candidate.usd_per_replica_month,
            )
        )
    return MixSolution(usd_per_month=sum(r.usd_per_month for r in rows), assignments=tuple(rows))


def _alone(candidate: MixCandidate, demand_rps: Sequence[float]) -> MixSolution:
    """One candidate serving every bucket with demand: ceil(Σ demand ÷ capacity) replicas."""
    load = sum(d / c for d, c in zip(demand_rps, candidate.capacity_rps, strict=True) if d > 0)
    replicas = max(math.ceil(load - LOAD_TOLERANCE), 0)
    shares = tuple(1.0 if d > 0 else 0.0 for d in demand_rps)
    row = MixAssignment(candidate.key, replicas, load, shares, replicas * candidate.usd_per_replica_month)
    return MixSolution(usd_per_month=row.usd_per_month, assignments=(row,) if replicas > 0 else ())
