"""The mix integer program against brute force: every integer replica vector, each checked for a feasible split.

The brute force enumerates the integer part exhaustively (the hard part) and asks a plain LP only whether
some split of each bucket's load fits those replicas, so it shares no search with the MILP.
"""

from __future__ import annotations

import itertools
import random

import pytest
from scipy.optimize import linprog

from app.scoring.serving.mix.solver import MixCandidate, replica_bound, solve_mix


def _fits(candidates: list[MixCandidate], demand: list[float], replicas: tuple[int, ...]) -> bool:
    """Is there x_ib >= 0 with sum_i x_ib = 1 and sum_b x_ib d_b / c_ib <= n_i? (a feasibility LP)"""
    pairs = [(i, b) for i, c in enumerate(candidates) for b in range(len(demand)) if c.capacity_rps[b] > 0]
    cover = [[1.0 if pb == b else 0.0 for _, pb in pairs] for b in range(len(demand))]
    load = [
        [demand[b] / candidates[pi].capacity_rps[b] if pi == i else 0.0 for pi, b in pairs]
        for i in range(len(candidates))
    ]
    result = linprog(
        [0.0] * len(pairs),
        A_ub=load,
        b_ub=[n + 1e-9 for n in replicas],
        A_eq=cover,
        b_eq=[1.0] * len(demand),
        bounds=[(0, 1)] * len(pairs),
    )
    return bool(result.status == 0)


def brute_force(candidates: list[MixCandidate], demand: list[float]) -> float | None:
    boxes = [range(replica_bound(c, demand) + 1) for c in candidates]
    best = None
    for replicas in itertools.product(*boxes):
        cost = sum(n * c.usd_per_replica_month for n, c in zip(replicas, candidates, strict=True))
        if (best is None or cost < best - 1e-9) and _fits(candidates, demand, replicas):
            best = cost
    return best


def random_instance(rng: random.Random) -> tuple[list[MixCandidate], list[float]]:
    buckets = rng.randint(2, 3)
    candidates = []
    for i in range(rng.randint(2, 4)):
        capacity = tuple(0.0 if rng.random() < 0.25 else round(rng.uniform(0.5, 6.0), 3) for _ in range(buckets))
        candidates.append(MixCandidate(f"gpu{i}", round(rng.uniform(500, 8000), 2), capacity))
    demand = [round(rng.uniform(0.2, 9.0), 3) for _ in range(buckets)]
    return candidates, demand


@pytest.mark.parametrize("seed", range(12))
def test_milp_optimum_equals_brute_force_on_random_small_catalogs(seed: int) -> None:
    candidates, demand = random_instance(random.Random(seed))
    expected = brute_force(candidates, demand)
    solution = solve_mix(candidates, demand)
    if expected is None:
        assert solution is None
        return
    assert solution is not None
    assert solution.usd_per_month == pytest.approx(expected, rel=1e-9)
    for row in solution.assignments:  # the answer itself is a feasible mix
        assert row.load_replicas <= row.replicas + 1e-6
    for b in range(len(demand)):
        assert sum(r.shares[b] for r in solution.assignments) == pytest.approx(1.0, abs=1e-6)


def test_a_mix_beats_either_type_alone_when_each_is_better_at_one_bucket() -> None:
    # a small card cheap for short requests, a big one for long: Mélange's motivating case
    small = MixCandidate("small", 1_000, (4.0, 0.5))
    big = MixCandidate("big", 3_000, (6.0, 5.0))
    solution = solve_mix([small, big], [8.0, 5.0])
    assert solution is not None
    rows = {r.candidate: r for r in solution.assignments}
    assert rows["small"].replicas == 2 and rows["small"].shares[0] == pytest.approx(1.0)
    assert rows["big"].replicas == 1 and rows["big"].shares[1] == pytest.approx(1.0)
    assert solution.usd_per_month == 5_000  # small alone: 2 + 10 = 12 replicas; big alone: ceil(1.33 + 1) = 3
    assert solve_mix([small], [8.0, 5.0]).usd_per_month == 12_000  # type: ignore[union-attr]
    assert solve_mix([big], [8.0, 5.0]).usd_per_month == 9_000  # type: ignore[union-attr]


def test_a_bucket_no_candidate_can_serve_has_no_mix() -> None:
    assert solve_mix([MixCandidate("a", 1.0, (1.0, 0.0))], [1.0, 1.0]) is None
    zero_demand = solve_mix([MixCandidate("a", 1.0, (1.0, 0.0))], [1.0, 0.0])
    assert zero_demand is not None and zero_demand.usd_per_month == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_one_candidate_needs_the_ceiling_of_its_load_as_brute_force_finds(seed: int) -> None:
    candidates, demand = random_instance(random.Random(100 + seed))
    alone = [MixCandidate("a", 700.0, tuple(c or 1.5 for c in candidates[0].capacity_rps))]
    solution = solve_mix(alone, demand)
    assert solution is not None and solution.usd_per_month == pytest.approx(brute_force(alone, demand))
    assert solution.assignments[0].shares == (1.0,) * len(demand)


def test_no_candidate_is_no_mix_even_without_demand() -> None:
    """With nothing inside the limits and a demand that rounds to zero, the program had no variables (a 500)."""
    assert solve_mix([], [0.0, 0.0]) is None
    assert solve_mix([], [1.0]) is None


def test_a_load_under_the_solvers_integrality_tolerance_still_rents_a_replica() -> None:
    # before: 1 request a day (3.5e-5 req/s) against ~30 req/s a replica solved to n = 0.000001, rounded to no
    # replica: "Cheapest mix: $0/month" with no offer at all
    candidates = [
        MixCandidate("a", 2920.0, (30.0, 10.0)),
        MixCandidate("b", 5000.0, (60.0, 40.0)),
    ]
    solution = solve_mix(candidates, [3.5e-5, 1e-6])
    assert solution is not None
    assert [(a.candidate, a.replicas) for a in solution.assignments] == [("a", 1)]
    assert solution.usd_per_month == 2920.0
    assert brute_force(candidates, [3.5e-5, 1e-6]) == 2920.0
