"""Training with a deadline, and price terms that mean what they say (spot, reserved)."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.pricing.price_terms import billed_hours, spot_run
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _cluster(provider: str, price: float, price_type: str = "on_demand", **kw: object) -> Offer:
    return Offer(
        provider_id=provider,
        provider_name=provider.title(),
        gpu_id="H100-SXM",
        gpu_count=8,
        price_type=price_type,
        usd_per_gpu_hour=price,
        as_of=date(2026, 11, 1),
        gpus_per_node=8,
        intra_node_link="nvlink",
        inter_node_fabric="infiniband",
        inter_node_gbps_per_gpu=400.0,
        **kw,  # type: ignore[arg-type]
    )


PRETRAIN_7B = TrainingWorkload(
    model="llama-2-7b", method="pretrain", total_tokens=1e12, max_gpus=512, seq_len=4096, global_batch_seqs=512
)


def test_pretraining_7b_on_1t_tokens_finishes_within_the_deadline() -> None:
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5), _offer_single()))
    ranking = rank_training(PRETRAIN_7B, snapshot, MODELS["llama-2-7b"])
    feasible = [o for o in ranking.options if o.feasible]
    assert feasible and all(o.days is not None and o.days <= 30 for o in feasible)
    assert feasible[0].gpu_count > 8 and feasible[0].nodes > 1, "a single node takes months"
    late = [o for o in ranking.options if not o.feasible and "deadline" in o.reason]
    assert late and late[0].provider == "single", "the one-machine offer is listed after, with the reason"
    # the frontier shows what scaling out buys: more GPUs, fewer days
    points = sorted((p for p in ranking.frontier if p.provider == "c"), key=lambda p: p.gpu_count)
    assert len(points) >= 3 and points[-1].days < points[0].days
    assert any(p.on_time for p in points) and any(not p.on_time for p in points)


def _offer_single() -> Offer:
    return Offer(
        provider_id="single",
        provider_name="Single",
        gpu_id="H100-SXM",
        gpu_count=8,
        price_type="on_demand",
        usd_per_gpu_hour=1.5,
        as_of=date(2026, 11, 1),
        gpus_per_node=8,
        intra_node_link="nvlink",
    )


def test_the_cheapest_total_cost_wins_among_options_on_time() -> None:
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5), _cluster("d", 2.0)))
    ranking = rank_training(PRETRAIN_7B, snapshot, MODELS["llama-2-7b"])
    feasible = [o for o in ranking.options if o.feasible]
    totals = [o.total_usd for o in feasible]
    assert totals == sorted(totals) and feasible[0].provider == "d"


def test_a_budget_moves_options_over_it_after_the_others() -> None:
    workload = PRETRAIN_7B.model_copy(update={"budget_usd": 1000.0})
    ranking = rank_training(workload, CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5),)), MODELS["llama-2-7b"])
    assert not any(o.feasible for o in ranking.options)
    assert any("budget" in o.reason for o in ranking.options)


def test_a_year_of_reservation_does_not_win_a_three_day_job() -> None:
    workload = TrainingWorkload(model="llama-3.1-8b", method="lora", total_tokens=2e9, max_gpus=8)
    reserved = _cluster("r", 1.0, price_type="reserved", min_term_hours=8760.0)
    on_demand = _cluster("o", 3.0)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(reserved, on_demand))
    workload = workload.model_copy(update={"price_types": ["on_demand", "reserved"]})
    options = [o for o in rank_training(workload, snapshot, MODELS["llama-3.1-8b"]).options if o.feasible]
    assert options[0].provider == "o"
    held = next(o for o in options if o.provider == "r")
    assert held.billed_hours == 8760.0 and held.total_usd == held.gpu_count * 1.0 * 8760.0


def test_spot_runs_pay_for_lost_work_and_restarts() -> None:
    run = spot_run(work_hours=100.0, nodes=4, per_node_month=0.2, checkpoint_hours=1.0)
    assert run.wall_hours > 100.0 and run.feasible
    assert spot_run(100.0, 4, 0.2, 4.0).wall_hours > run.wall_hours, "rarer checkpoints lose more work"
    assert billed_hours(10.0, "capacity_block", None) == 24.0 and billed_hours(10.0, "on_demand", None) == 10.0
    workload = TrainingWorkload(model="llama-3.1-8b", method="full_ft", total_tokens=2e10, max_gpus=64)
    workload = workload.model_copy(update={"price_types": ["spot"]})
    spot = _cluster("aws", 2.0, price_type="spot")
    option = next(
        o
        for o in rank_training(workload, CatalogSnapshot(gpus=GPUS, offers=(spot,)), MODELS["llama-3.1-8b"]).options
        if o.feasible
    )
    assert option.interruptible and option.expected_interruptions > 0
    assert option.tokens_per_s_per_gpu and option.total_hours and option.total_usd
    work_hours = workload.total_tokens / (option.gpu_count * option.tokens_per_s_per_gpu) / 3600
    assert option.total_hours > work_hours, "expected wall time includes lost work and restarts"
    assert abs(option.total_usd - option.gpu_count * 2.0 * option.total_hours) < 1e-6 * option.total_usd


def test_a_run_too_slow_at_max_gpus_names_the_max_gpus_that_finishes_it() -> None:
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5),))
    capped = PRETRAIN_7B.model_copy(update={"max_gpus": 16})
    ranking = rank_training(capped, snapshot, MODELS["llama-2-7b"])
    assert not ranking.feasible_count and ranking.options[0].reason.endswith("Max GPUs (16) stops it at 16 GPUs")
    wider = ranking.deadline_max_gpus
    assert wider is not None and wider > 16
    assert rank_training(capped.model_copy(update={"max_gpus": wider}), snapshot, MODELS["llama-2-7b"]).feasible_count
    # the count found is the fewest on the grid: one node fewer misses the deadline
    assert not rank_training(
        capped.model_copy(update={"max_gpus": wider - 8}), snapshot, MODELS["llama-2-7b"]
    ).feasible_count
    assert f"With Max GPUs {wider:,}, {wider:,}×H100-SXM at C finishes in time." in ranking.notes[-1]


def test_no_max_gpus_is_named_where_the_machine_stops_the_run() -> None:
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer_single(),))  # one 8-GPU node
    ranking = rank_training(PRETRAIN_7B, snapshot, MODELS["llama-2-7b"])
    assert not ranking.feasible_count and ranking.deadline_max_gpus is None
    assert "Max GPUs" not in ranking.options[0].reason and "supplies at most 8 GPUs" in ranking.options[0].reason


def test_the_largest_max_gpus_tried_is_the_workloads_bound() -> None:
    import pytest
    from pydantic import ValidationError

    from app.scoring.training.run.deadline import LARGEST_MAX_GPUS

    assert TrainingWorkload(max_gpus=LARGEST_MAX_GPUS).max_gpus == LARGEST_MAX_GPUS
    with pytest.raises(ValidationError):
        TrainingWorkload(max_gpus=LARGEST_MAX_GPUS + 1)


def test_a_spot_runs_slow_end_is_the_spot_run_of_the_slower_work() -> None:
    """At the band's slow end the deadline is checked on the wall hours × the slow-end multiple (offer_terms.run_terms):
    right only while a spot run's expected wall time is proportional to its work (the renewal approximation, a
    constant interruption rate). A model whose losses grow with the run's length must recompute the run instead."""
    slow_end = 1.37
    run = spot_run(work_hours=300.0, nodes=8, per_node_month=0.5, checkpoint_hours=2.0)
    slower = spot_run(work_hours=300.0 * slow_end, nodes=8, per_node_month=0.5, checkpoint_hours=2.0)
    assert run.wall_hours > 300.0 and abs(slower.wall_hours - run.wall_hours * slow_end) < 1e-9 * slower.wall_hours


def test_a_token_budget_too_small_for_a_float_step_count_ranks_without_dividing_by_zero() -> None:
    """The fuzz's 5e-324 tokens (the smallest float over 0, which the field allows): its step count rounds to 0.0,
    which the scale-out frontier divided by to find the deadline's multiple (ZeroDivisionError, a 500). The workload
    now refuses a budget under one step; the ranking still guards a workload built without validation."""
    with pytest.raises(ValidationError, match="less than one optimizer step"):
        TrainingWorkload(model="llama-3.1-8b", total_tokens=5e-324)
    valid = TrainingWorkload(model="llama-3.1-8b", method="lora", max_days=1.0, budget_usd=1.0)
    workload = valid.model_copy(update={"total_tokens": 5e-324})  # model_copy does not validate
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("aws", 2.0),))
    ranking = rank_training(workload, snapshot, MODELS["llama-3.1-8b"])
    assert ranking.options and all(o.total_usd is None or o.total_usd >= 0 for o in ranking.options)


def test_a_model_too_big_for_max_gpus_on_a_cluster_names_the_count_it_fits_on() -> None:
    # before: "...8×H100-SXM with TP8 ... needs 815 GB per GPU but gives 72 GB" and nothing on Max GPUs, the limit
    workload = TrainingWorkload(model="llama-3.1-405b", method="full_ft", total_tokens=1e9, max_gpus=8)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5),))
    (option,) = rank_training(workload, snapshot, MODELS["llama-3.1-405b"]).options
    assert not option.feasible and "Max GPUs (8) stops it at 8 GPUs: it fits on " in option.reason
    fitting = int(option.reason.rsplit("raise Max GPUs to ", 1)[1].replace(",", ""))
    at = rank_training(workload.model_copy(update={"max_gpus": fitting}), snapshot, MODELS["llama-3.1-405b"])
    assert at.options[0].step_time_s is not None and at.options[0].gpu_count == fitting
    below = rank_training(workload.model_copy(update={"max_gpus": fitting - 8}), snapshot, MODELS["llama-3.1-405b"])
    assert below.options[0].step_time_s is None, "the count named is the fewest that fits"
    # a single node cannot grow: its own limit is the reason, with no Max GPUs advice
    lone = CatalogSnapshot(gpus=GPUS, offers=(_offer_single(),))
    (single,) = rank_training(workload, lone, MODELS["llama-3.1-405b"]).options
    assert not single.feasible and "raise Max GPUs" not in single.reason


def test_every_run_on_time_but_over_the_budget_names_the_cheapest_and_what_it_bills() -> None:
    # before: a deadline nothing meets had its note; a budget nothing meets had none, only each row's reason
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5), _cluster("d", 2.0)))
    cheap = PRETRAIN_7B.model_copy(update={"budget_usd": 1_000.0})
    ranking = rank_training(cheap, snapshot, MODELS["llama-2-7b"])
    assert not ranking.feasible_count
    first = ranking.options[0]
    assert first.provider_name == "D" and first.total_usd is not None and first.total_usd > 1_000
    (note,) = [n for n in ranking.notes if n.startswith("No option finishes within the budget")]
    assert f"the cheapest on time, {first.gpu_count:,}×H100-SXM at D, {first.reason}." in note
    assert "over the $1,000 budget" in note
    roomy = rank_training(PRETRAIN_7B.model_copy(update={"budget_usd": 1e9}), snapshot, MODELS["llama-2-7b"])
    assert roomy.feasible_count and not [n for n in roomy.notes if "within the budget" in n]


def test_a_deadline_no_count_meets_gives_no_advice_to_raise_max_gpus() -> None:
    # before: "About 3,459 ... would finish in time if the run scaled linearly: Max GPUs is the limit; raise Max GPUs
    # (now 64)", though no count up to 65,536 finishes (1e15 tokens on a 1B model at 1,024 sequences a step)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_cluster("c", 2.5),))
    huge = TrainingWorkload(model="llama-3.2-1b", method="pretrain", total_tokens=1e15, global_batch_seqs=1024)
    capped = rank_training(huge, snapshot, MODELS["llama-3.2-1b"])
    (note,) = [n for n in capped.notes if n.startswith("No option finishes within")]
    assert "no larger Max GPUs lets the nearest machines finish in time" in note and "raise Max" not in note
    assert capped.deadline_max_gpus is None
    wide = rank_training(huge.model_copy(update={"max_gpus": 65_536}), snapshot, MODELS["llama-3.2-1b"])
    (note,) = [n for n in wide.notes if n.startswith("No option finishes within")]
    fastest = wide.options[0].gpu_count
    assert f"but it does not scale so far: {fastest:,} is the nearest machine's fastest count" in note
    # where a count above Max GPUs does finish, the advice stands
    finishing = rank_training(huge.model_copy(update={"total_tokens": 2e13}), snapshot, MODELS["llama-3.2-1b"])
    (note,) = [n for n in finishing.notes if n.startswith("No option finishes within")]
    assert "raise Max GPUs (now 64)" in note and finishing.deadline_max_gpus
