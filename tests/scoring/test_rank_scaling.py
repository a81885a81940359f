"""Rankings over many sellers: each row's cheap key matches its option, the order is the documented one,
and a price-only difference between sellers never adds an estimate."""

from __future__ import annotations

import math
from dataclasses import asdict

import pytest

from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.offers import offer_slots, snapshot_offers
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.rank.model_spec import model_spec_for
from benchmarks.bench_data import bench_snapshot

ALL_TERMS = ["on_demand", "spot", "reserved", "marketplace", "capacity_block"]


@pytest.fixture(scope="module")
def sellers():  # type: ignore[no-untyped-def]
    return bench_snapshot(4)  # every offer under four provider ids, prices spread ±5 %


@pytest.mark.parametrize(
    "workload",
    [
        TrainingWorkload(model="llama-3.1-8b", total_tokens=5e9, max_days=2),
        TrainingWorkload(model="llama-3.1-70b", method="full_ft", price_types=ALL_TERMS, budget_usd=2e5),
        TrainingWorkload(model="llama-3.1-8b", price_types=ALL_TERMS, include_stale=True, budget_usd=300),
    ],
)
def test_training_rows_come_in_tiers_cheapest_first_with_matching_keys(sellers, workload) -> None:  # type: ignore[no-untyped-def]
    ranking = rank_training(workload, sellers, model_spec_for(workload, sellers))
    options = [asdict(o) for o in ranking.options]
    assert len(options) == len(snapshot_offers(sellers, workload))  # every matching offer, once
    assert [tuple(k) for k in ranking.row_keys] == [(o["gpu_id"], o["gpu_count"], o["reason"]) for o in options]
    fits = [o for o in options if o["total_usd"] is not None]
    on_time, late = fits[: ranking.feasible_count], fits[ranking.feasible_count :]
    assert all(o["feasible"] and not o["reason"] for o in on_time) and not any(o["feasible"] for o in late)
    keys = [(o["total_usd"], o["gpu_id"], o["provider"]) for o in on_time]
    assert keys == sorted(keys)
    # the rest nearest the deadline first (on time but over the budget: 0 past), spot runs too wasteful to plan last
    deadline_h = workload.max_days * 24
    late_keys = [
        (
            math.inf if o["reason"].startswith("spot interruptions") else max(o["total_hours"] - deadline_h, 0.0),
            o["total_usd"],
            o["gpu_id"],
            o["provider"],
        )
        for o in late
    ]
    assert late_keys == sorted(late_keys)
    for o in fits:
        assert o["total_usd"] == o["gpu_count"] * o["usd_per_gpu_hour"] * o["billed_hours"]
        if workload.budget_usd is not None and o["feasible"]:
            assert o["total_usd"] <= workload.budget_usd
    unfit = options[len(fits) :]
    assert [(o["gpu_id"], o["provider"]) for o in unfit] == sorted((o["gpu_id"], o["provider"]) for o in unfit)


@pytest.mark.parametrize(
    "workload",
    [
        InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8"),
        InferenceWorkload(model="llama-3.1-70b", price_types=ALL_TERMS, rank_by="requests"),
    ],
)
def test_inference_row_keys_match_their_options(sellers, workload) -> None:  # type: ignore[no-untyped-def]
    ranking = rank_inference(workload, sellers, model_spec_for(workload, sellers))
    options = [asdict(o) for o in ranking.options]
    assert [tuple(k) for k in ranking.row_keys] == [(o["gpu_id"], o["gpu_count"], o["reason"]) for o in options]
    metric = {"requests": "usd_per_thousand_requests"}.get(workload.rank_by, "usd_per_million_output_tokens")
    costs = [o[metric] for o in options[: ranking.feasible_count]]
    assert costs == sorted(costs) and not any(o["feasible"] for o in options[ranking.feasible_count :])


def test_sellers_that_differ_only_in_price_share_their_machine_slot(sellers) -> None:  # type: ignore[no-untyped-def]
    workload = TrainingWorkload()
    slot_of, slots = offer_slots(sellers, workload)
    assert offer_slots(sellers, workload) is offer_slots(sellers, workload)  # memoised per snapshot
    one = bench_snapshot(1)
    assert len(slots) == len(offer_slots(one, workload).slots)  # copies add offers, not machines
    assert len(slot_of) == len(snapshot_offers(sellers, workload))


@pytest.mark.parametrize(
    "workload",
    [
        TrainingWorkload(model="llama-3.1-70b", method="full_ft", price_types=ALL_TERMS, budget_usd=2e5),
        TrainingWorkload(model="llama-3.1-8b", max_days=1),
        InferenceWorkload(model="llama-3.1-70b", price_types=ALL_TERMS),
        InferenceWorkload(model="llama-3.1-8b", rank_by="all_tokens"),
    ],
)
def test_leaders_are_the_first_row_of_each_configuration_without_walking_the_rows(sellers, workload) -> None:  # type: ignore[no-untyped-def]
    rank = rank_training if isinstance(workload, TrainingWorkload) else rank_inference
    ranking = rank(workload, sellers, model_spec_for(workload, sellers))
    first: dict[tuple[str, int], dict] = {}
    for option in ranking.options[: ranking.feasible_count]:
        first.setdefault((option.gpu_id, option.gpu_count), asdict(option))
    assert first  # the workloads have feasible rows
    assert [asdict(o) for o in ranking.leaders()] == list(first.values())  # same rows, order and close-call flags
