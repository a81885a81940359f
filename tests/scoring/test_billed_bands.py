"""A billed cost's band is the run at its band's fastest and slowest, each billed as the terms bill it: a run that
stays inside a committed minimum term costs the term whatever its speed, so its band is one figure and its order
against other such rows is certain (no close call)."""

from __future__ import annotations

import random
from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.price_terms import ROUNDED_BAND_FLOOR, bill_hours, billed_band_ratios
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import InferenceWorkload, TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LLAMA_8B = MODELS["llama-3.1-8b"]


def test_a_band_inside_the_minimum_term_is_the_term_alone():
    assert billed_band_ratios(14.4, 0.8, 1.5, None, 730.0) == (1.0, 1.0)


def test_a_band_that_crosses_the_minimum_term_moves_only_above_it():
    low, high = billed_band_ratios(500.0, 0.8, 1.5, None, 730.0)
    assert low == 1.0 and high == pytest.approx(750.0 / 730.0)


def test_each_end_of_a_band_is_rounded_up_to_the_billing_unit():
    """31.1 h on an AWS capacity block books 48 h; its fast end (21.8 h) books one day, its slow end (40.4 h) two."""
    low, high = billed_band_ratios(31.1, 0.7, 1.3, 24.0, 24.0)
    assert (low, high) == (0.5, 1.0)


def test_hours_billed_as_used_keep_the_estimates_ratios_exactly():
    assert billed_band_ratios(12.34, 0.8123, 1.5321, None, 0.0) == (0.8123, 1.5321)


def test_the_rounded_floor_bounds_every_billed_bands_low_end():
    """explain.win_is_contested stops its scan on this bound: a low end under it could hide a close call."""
    rng = random.Random(7)
    for _ in range(20_000):
        unit = rng.choice([1 / 60, 1.0, 24.0])
        use, low = rng.uniform(0.01, 200.0), rng.uniform(0.3, 1.0)
        term = rng.choice([0.0, 24.0, 730.0])
        assert bill_hours(use * low, unit, term) / bill_hours(use, unit, term) >= low * ROUNDED_BAND_FLOOR


def _offer(gpu: str, provider: str, price: float, price_type: str, term: float | None = None) -> Offer:
    return Offer(provider, provider.upper(), gpu, 1, price_type, price, date(2026, 11, 1), min_term_hours=term)


# Two cards' reservations a month long, 5 % apart: a short run pays each month whole
RESERVED = (_offer("H100-SXM", "a", 2.0, "reserved", 730.0), _offer("A100-SXM-80GB", "b", 2.1, "reserved", 730.0))
TRAIN = TrainingWorkload(model="llama-3.1-8b", method="lora", total_tokens=2e8, max_gpus=1, price_types=["reserved"])


def test_training_runs_inside_a_reservation_have_certain_costs_and_no_close_calls():
    """The reviewer's ranking: 14.4 h billed 730 h showed $949 in a band of $762-1,436 and four close calls."""
    options = rank_training(TRAIN, CatalogSnapshot(gpus=GPUS, models=MODELS, offers=RESERVED), LLAMA_8B).options
    assert [o.gpu_id for o in options] == ["H100-SXM", "A100-SXM-80GB"]
    for option in options:
        assert option.billed_hours == 730.0 and option.total_hours < 730.0 / 1.5
        assert option.band is not None and option.band.low == option.band.high == option.total_usd
    assert [o.close_call for o in options] == [False, False]


def test_training_runs_billed_as_used_keep_their_band_and_close_calls():
    """The same two cards on demand, priced so their runs cost 5 % apart: the cost moves with the speed, so the gap
    is within the noise."""
    reserved = rank_training(TRAIN, CatalogSnapshot(gpus=GPUS, models=MODELS, offers=RESERVED), LLAMA_8B).options
    hours = {o.gpu_id: o.total_hours or 0.0 for o in reserved}
    a100_price = 2.0 * hours["H100-SXM"] / hours["A100-SXM-80GB"] * 1.05
    offers = (_offer("H100-SXM", "a", 2.0, "on_demand"), _offer("A100-SXM-80GB", "b", a100_price, "on_demand"))
    workload = TRAIN.model_copy(update={"price_types": ["on_demand"]})
    options = rank_training(workload, CatalogSnapshot(gpus=GPUS, models=MODELS, offers=offers), LLAMA_8B).options
    assert [o.gpu_id for o in options] == ["H100-SXM", "A100-SXM-80GB"]
    for option in options:
        assert option.band is not None and option.band.low < option.total_usd < option.band.high
    assert [o.close_call for o in options] == [True, True]


def test_batch_jobs_inside_a_reservation_have_certain_costs_and_no_close_calls():
    workload = InferenceWorkload(
        model="llama-3.1-8b", scenario="max_throughput", job_requests=20_000, max_gpus=1, price_types=["reserved"]
    )
    options = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=RESERVED), LLAMA_8B).options
    assert {o.gpu_id for o in options} == {"H100-SXM", "A100-SXM-80GB"}
    for option in options:
        assert option.job_billed_hours == 730.0 and option.job_hours is not None and option.job_hours < 730.0 / 2
        cost = option.usd_per_million_output_tokens
        assert option.band is not None and option.band.low == option.band.high == cost
    assert [o.close_call for o in options] == [False, False]
