"""A deadline that costs money says so: the cheapest run that misses it, beside the cheapest that meets it. Found by
qa32: Qwen3-32B LoRA with a 12 h deadline ranked 4×B200 at $303 "the cheapest run that finishes within 0.5 days" and
no face said that 1×B200 at $175 finishes in 1.8 days; with a $200 budget too, the note said only "raise the budget"."""

from __future__ import annotations

from datetime import date

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LORA_8B = TrainingWorkload(model="llama-3.1-8b", method="lora", total_tokens=2e9)


def _offer(provider: str, price: float, fabric: bool, price_type: str = "on_demand", stale: bool = False) -> Offer:
    """An 8-GPU H100 node; `fabric`: InfiniBand between nodes (a cluster), else one node only."""
    net = {"inter_node_fabric": "infiniband", "inter_node_gbps_per_gpu": 400.0} if fabric else {}
    return Offer(
        provider_id=provider,
        provider_name=provider.title(),
        gpu_id="H100-SXM",
        gpu_count=8,
        price_type=price_type,
        stale=stale,
        usd_per_gpu_hour=price,
        as_of=date(2026, 11, 1),
        gpus_per_node=8,
        intra_node_link="nvlink",
        **net,  # type: ignore[arg-type]
    )


SNAPSHOT = CatalogSnapshot(gpus=GPUS, offers=(_offer("node", 1.0, False), _offer("cluster", 3.0, True)))


def _single_node_hours() -> float:
    (node,) = [o for o in rank_training(LORA_8B, SNAPSHOT, MODELS["llama-3.1-8b"]).options if o.provider == "node"]
    assert node.days is not None
    return node.days * 24


def test_a_deadline_the_cheapest_run_misses_names_it_and_what_meets_it() -> None:
    deadline_days = _single_node_hours() / 24 / 2  # the one node takes twice the deadline, the cluster meets it
    ranking = rank_training(LORA_8B.model_copy(update={"max_days": deadline_days}), SNAPSHOT, MODELS["llama-3.1-8b"])
    first = ranking.options[0]
    late = next(o for o in ranking.options if o.provider == "node")
    assert first.feasible and first.provider == "cluster" and not late.feasible
    assert late.total_usd is not None and first.total_usd is not None and late.total_usd < first.total_usd
    (note,) = [n for n in ranking.notes if n.startswith("The deadline costs more than the cheapest run")]
    assert f"{late.gpu_count}×H100-SXM at Node bills $" in note and late.reason.split(";")[0] in note
    assert f"{first.gpu_count:,}×H100-SXM at Cluster, $" in note
    assert note.endswith("the cheapest that finishes in time.")


def test_a_late_run_far_past_the_deadline_or_dearer_is_not_named() -> None:
    far = _single_node_hours() / 24 / 5  # five deadlines late: no alternative a buyer waits for
    ranking = rank_training(LORA_8B.model_copy(update={"max_days": far}), SNAPSHOT, MODELS["llama-3.1-8b"])
    assert ranking.feasible_count and not [n for n in ranking.notes if n.startswith("The deadline costs")]
    roomy = rank_training(LORA_8B, SNAPSHOT, MODELS["llama-3.1-8b"])  # 30 days: nothing late
    assert not [n for n in roomy.notes if n.startswith("The deadline costs")]


def test_nothing_within_the_budget_on_time_names_the_late_run_within_it() -> None:
    hours = _single_node_hours()
    ranking = rank_training(LORA_8B, SNAPSHOT, MODELS["llama-3.1-8b"])
    (node,) = [o for o in ranking.options if o.provider == "node"]
    assert node.total_usd is not None
    tight = LORA_8B.model_copy(update={"max_days": hours / 24 / 2, "budget_usd": node.total_usd * 1.2})
    squeezed = rank_training(tight, SNAPSHOT, MODELS["llama-3.1-8b"])
    assert not squeezed.feasible_count
    (note,) = [n for n in squeezed.notes if n.startswith("No option finishes within the budget")]
    assert " Within the budget, 8×H100-SXM at Node bills $" in note and "after the" in note


def test_the_late_run_named_says_its_terms_where_they_are_not_on_demand() -> None:
    spot = CatalogSnapshot(gpus=GPUS, offers=(_offer("node", 1.0, False, "spot"), _offer("cluster", 3.0, True)))
    workload = LORA_8B.model_copy(update={"price_types": ["on_demand", "spot"], "max_days": _single_node_hours() / 48})
    ranking = rank_training(workload, spot, MODELS["llama-3.1-8b"])
    (note,) = [n for n in ranking.notes if n.startswith("The deadline costs more than the cheapest run")]
    assert "×H100-SXM at Node (spot) bills $" in note and "×H100-SXM at Cluster, $" in note


def test_the_late_run_named_says_a_stale_price_is_stale() -> None:
    old = CatalogSnapshot(gpus=GPUS, offers=(_offer("node", 1.0, False, stale=True), _offer("cluster", 3.0, True)))
    workload = LORA_8B.model_copy(update={"include_stale": True, "max_days": _single_node_hours() / 48})
    ranking = rank_training(workload, old, MODELS["llama-3.1-8b"])
    (note,) = [n for n in ranking.notes if n.startswith("The deadline costs more than the cheapest run")]
    assert "×H100-SXM at Node (stale price) bills $" in note
