"""A training run on time on its estimate but not at its tokens/s band's slow end is 'deadline at risk'; with
limits_at band_high the count search meets the deadline (and budget) at that slow end instead."""

from __future__ import annotations

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.specs import CatalogSnapshot
from app.scoring.training.ranking.rank import rank_training
from app.scoring.training.ranking.results import TrainingOption
from app.scoring.workload import TrainingWorkload
from tests.scoring.test_training_deadline import PRETRAIN_7B, _cluster

GPUS, MODELS = load_gpu_specs(), load_model_specs()
SNAPSHOT = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5),))
# 64 H100s take 17.4 days on the estimate, 27.5 at the band's slow end: a 20-day deadline sits between them
BETWEEN = PRETRAIN_7B.model_copy(update={"max_days": 20})


def _winner(w: TrainingWorkload) -> TrainingOption:
    return rank_training(w, SNAPSHOT, MODELS["llama-2-7b"]).options[0]


def _slow_end_days(option: TrainingOption) -> float:
    assert option.days is not None and option.tokens_per_s_per_gpu is not None and option.band is not None
    return option.days * option.band.high / option.total_usd  # billed as used: the cost band is the hours band


def test_a_deadline_between_the_estimate_and_the_slow_end_is_at_risk_on_the_estimate() -> None:
    plain = _winner(BETWEEN)
    assert plain.feasible and plain.days is not None and plain.days <= 20 < _slow_end_days(plain)
    assert "at its band's slow end, over the 20-day deadline" in plain.deadline_at_risk


def test_band_high_meets_the_deadline_at_the_slow_end_on_more_gpus_at_no_lower_cost_per_step() -> None:
    plain = _winner(BETWEEN)
    safe = _winner(BETWEEN.model_copy(update={"limits_at": "band_high"}))
    assert safe.feasible and safe.deadline_at_risk == ""
    assert _slow_end_days(safe) <= 20
    assert safe.gpu_count > plain.gpu_count
    assert safe.usd_per_step is not None and plain.usd_per_step is not None
    assert safe.usd_per_step >= plain.usd_per_step


def test_a_budget_the_slow_end_overruns_is_at_risk_and_band_high_ranks_it_over_the_budget() -> None:
    plain = _winner(PRETRAIN_7B)
    assert plain.total_usd is not None and plain.band is not None and plain.deadline_at_risk == ""
    budget = (plain.total_usd + plain.band.high) / 2  # within it on the estimate, over it at the slow end
    tight = PRETRAIN_7B.model_copy(update={"budget_usd": budget})
    assert "at its band's slow end, over the" in _winner(tight).deadline_at_risk
    safe = _winner(tight.model_copy(update={"limits_at": "band_high"}))
    assert not safe.feasible and "at its band's slow end, over the" in safe.reason


def test_estimate_is_read_as_unset() -> None:
    assert TrainingWorkload(model="llama-2-7b", limits_at="estimate").limits_at is None


def test_the_max_gpus_that_would_meet_the_deadline_is_sized_at_the_slow_end_too() -> None:
    capped = BETWEEN.model_copy(update={"max_days": 10, "max_gpus": 64})  # 64 GPUs: 17.4 days, late either way
    plain = rank_training(capped, SNAPSHOT, MODELS["llama-2-7b"])
    safe = rank_training(capped.model_copy(update={"limits_at": "band_high"}), SNAPSHOT, MODELS["llama-2-7b"])
    assert plain.feasible_count == safe.feasible_count == 0
    assert plain.deadline_max_gpus is not None and safe.deadline_max_gpus is not None
    assert safe.deadline_max_gpus > plain.deadline_max_gpus


def test_the_cost_time_chart_marks_on_time_where_the_ranking_checks_it() -> None:
    plain = rank_training(BETWEEN, SNAPSHOT, MODELS["llama-2-7b"])
    safe = rank_training(BETWEEN.model_copy(update={"limits_at": "band_high"}), SNAPSHOT, MODELS["llama-2-7b"])
    on_time = [{p.gpu_count for p in r.frontier if p.on_time} for r in (plain, safe)]
    assert 64 in on_time[0] and 64 not in on_time[1] and on_time[1] < on_time[0]
