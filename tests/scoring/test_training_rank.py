"""Ranking of training offers: order, close calls, serialisation, speed."""

import dataclasses

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.pricing.price_terms import STARTUP_HOURS
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.count_search import candidate_counts
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def snapshot(copies: int = 1) -> CatalogSnapshot:
    offers = tuple(
        Offer(f"p{i}", f"Provider {i}", gid, 8, "on_demand", 0.5 + 0.3 * i + GPUS[gid].memory_gb / 40)
        for gid in GPUS
        for i in range(3 * copies)
    )
    return CatalogSnapshot(gpus=GPUS, models=MODELS, offers=offers)


def test_sorted_by_usd_per_step_and_infeasible_last():
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=4096, global_batch_seqs=64, max_gpus=16)
    ranking = rank_training(w, snapshot(), MODELS["llama-3.1-70b"])
    feasible = [o for o in ranking.options if o.feasible]
    infeasible = [o for o in ranking.options if not o.feasible]
    assert feasible and infeasible
    assert ranking.options[: len(feasible)] == feasible
    costs = [o.usd_per_step for o in feasible]
    assert costs == sorted(costs)
    assert all(o.reason for o in infeasible)
    for o in feasible:
        assert o.usd_per_step == o.step_time_s * o.gpu_count * o.usd_per_gpu_hour / 3600
        assert abs(o.total_hours - STARTUP_HOURS - 2e9 / (o.gpu_count * o.tokens_per_s_per_gpu) / 3600) < 1e-9


def test_close_call_marks_overlapping_bands():
    w = TrainingWorkload(model="llama-3.1-8b", method="lora", seq_len=4096, global_batch_seqs=64)
    options = rank_training(w, snapshot(), MODELS["llama-3.1-8b"]).options
    winner = options[0]
    for o in options[1:]:
        if o.feasible:  # the winner's own configuration at other prices is ordered by price alone, with certainty
            same = (o.gpu_id, o.gpu_count, o.layout) == (winner.gpu_id, winner.gpu_count, winner.layout)
            assert o.close_call == (o.band.overlaps(winner.band) and not same)
    assert winner.close_call == any(o.close_call for o in options[1:])  # a contested win is a close call
    assert any(o.close_call for o in options) and any(o.feasible and not o.close_call for o in options)


def test_serialises_to_plain_dicts():
    w = TrainingWorkload(model="llama-3.1-8b", method="lora", max_gpus=8)
    ranking = rank_training(w, snapshot(), MODELS["llama-3.1-8b"])
    data = ranking.to_dict()
    assert data["options"] == [dataclasses.asdict(dataclasses.replace(o, terms=list(o.terms))) for o in ranking.options]
    assert all(type(term) is dict for option in data["options"] for term in option["terms"])  # written out, as dicts
    assert data["options"][0]["gpu_id"] and "band" in data["options"][0]


def test_candidate_counts():
    assert candidate_counts(3, 64, 8) == [3, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert candidate_counts(1, 8, 1) == [1, 2, 4, 8]


def test_more_offers_add_rows_not_estimates():
    # Speed itself is measured by `make bench` (ratios in one run), never asserted here.
    w = TrainingWorkload(model="llama-3.1-8b", method="lora", seq_len=4096, global_batch_seqs=64)
    small = rank_training(w, snapshot(1), MODELS["llama-3.1-8b"])
    big = rank_training(w, snapshot(100), MODELS["llama-3.1-8b"])
    assert len(big.options) == 100 * len(small.options)
    assert big.configurations_evaluated == small.configurations_evaluated


def test_a_sorted_view_reads_every_column_as_the_built_option_has_it():
    """sort_value reads a field from the estimate, the offer or the run cost without building the option: every
    sortable training column must read what the option shows, on demand and on spot (interruptions)."""
    from app.service.rank.rank_sort import COLUMNS, RANK

    fields = {c.field or "usd_per_step" for c in COLUMNS["training"].values()} - {RANK}
    lora = {"model": "llama-3.1-8b", "method": "lora", "seq_len": 4096, "global_batch_seqs": 64}
    base = snapshot()
    spot_offers = tuple(dataclasses.replace(o, price_type="spot") for o in base.offers[::2])
    mixed = CatalogSnapshot(gpus=GPUS, models=MODELS, offers=base.offers + spot_offers)
    spot = TrainingWorkload(**lora, price_types=["on_demand", "spot"])
    for workload, snap in ((TrainingWorkload(**lora), base), (spot, mixed)):
        ranking = rank_training(workload, snap, MODELS["llama-3.1-8b"])
        assert ranking.sort_value is not None and ranking.feasible_count > 3
        for position in range(ranking.feasible_count):
            option = ranking.options[position]
            for name in fields:
                assert ranking.sort_value(position, name) == getattr(option, name), (position, name)
