"""Ranking order, close calls, offer rule, speed, and the purity of app.scoring."""

import math
from datetime import date

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import Machine
from app.scoring.inference.estimates.configurations import single_node_layouts
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _offer(gpu_id, price, provider="p", count=8):
    return Offer(provider, provider.upper(), gpu_id, count, "on_demand", price, date(2025, 1, 1))


def test_ranking_is_cheapest_per_output_token_first_and_infeasible_last():
    offers = (
        _offer("H100-SXM", 2.0),
        _offer("A100-SXM-80GB", 1.2, provider="q"),
        _offer("RTX-4080", 0.3, count=1),
        _offer("H200", 20.0, provider="r"),
    )
    ranking = rank_inference(
        InferenceWorkload(model="llama-3.1-70b", max_gpus=8),
        CatalogSnapshot(gpus=GPUS, offers=offers),
        MODELS["llama-3.1-70b"],
    )
    feasible = [o for o in ranking.options if o.feasible]
    costs = [o.usd_per_million_output_tokens for o in feasible]
    assert costs == sorted(costs)
    assert ranking.options[-1].gpu_id == "RTX-4080" and not ranking.options[-1].feasible
    assert "GB" in ranking.options[-1].reason
    winner = feasible[0]
    for option in feasible[1:]:
        assert option.close_call == (option.band.overlaps(winner.band) and option.gpu_id != winner.gpu_id)
    assert winner.close_call == any(o.close_call for o in feasible[1:])  # the win itself is a close call
    assert feasible[-1].gpu_id == "H200" and not feasible[-1].close_call
    top = feasible[0]
    expected = top.usd_per_gpu_hour * top.gpu_count / (3600 * top.output_tokens_per_s) * 1e6
    assert abs(top.usd_per_million_output_tokens - expected) < 1e-9
    assert isinstance(top.to_dict(), dict)


def test_the_same_configuration_at_another_price_is_never_a_close_call():
    """Two providers' H100s run one estimate: its error is theirs together, so 20 % apart in price is 20 % apart for
    certain, though their bands overlap. Another GPU as close is a close call, and makes the win contested."""
    h100s = (_offer("H100-SXM", 2.0), _offer("H100-SXM", 2.4, provider="q"))
    workload, model = InferenceWorkload(model="llama-3.1-8b", max_gpus=1), MODELS["llama-3.1-8b"]
    options = rank_inference(
        workload, CatalogSnapshot(gpus=GPUS, offers=(*h100s, _offer("H200", 9.9, "r"))), model
    ).options
    first, second, h200 = options[:3]
    assert (first.gpu_id, second.gpu_id, h200.gpu_id) == ("H100-SXM", "H100-SXM", "H200")
    assert second.band.overlaps(first.band) and not second.close_call and not first.close_call
    assert not h200.band.overlaps(first.band) and not h200.close_call
    # an H200 priced 5 % above the winner's cost: a different estimate, inside the band
    price = 9.9 * 1.05 * first.usd_per_million_output_tokens / h200.usd_per_million_output_tokens
    options = rank_inference(
        workload, CatalogSnapshot(gpus=GPUS, offers=(*h100s, _offer("H200", price, "r"))), model
    ).options
    rival = next(o for o in options if o.gpu_id == "H200")
    assert rival.close_call and options[0].close_call  # the rival's band overlaps: the win is contested
    assert not next(o for o in options[1:] if o.gpu_id == "H100-SXM").close_call


def test_counts_stay_within_one_node_and_the_workload_limit():
    counts = {c for c, _, _ in single_node_layouts(Machine(gpus_per_node=8, link="nvlink"), 8, 80)}
    assert counts == {1, 2, 4, 8}
    assert {c for c, _, _ in single_node_layouts(Machine(gpus_per_node=1, link="none"), 8, 80)} == {1}
    assert {c for c, _, _ in single_node_layouts(Machine(gpus_per_node=8, link="nvlink"), 2, 80)} == {1, 2}


def test_small_instance_cannot_host_a_bigger_configuration():
    offers = (_offer("H100-SXM", 2.0, count=2),)
    ranking = rank_inference(
        InferenceWorkload(model="llama-3.1-70b"), CatalogSnapshot(gpus=GPUS, offers=offers), MODELS["llama-3.1-70b"]
    )
    option = ranking.options[0]
    assert option.gpu_count <= 2 and option.tensor_parallel * option.pipeline_parallel <= 2


def test_replicas_follow_peak_traffic():
    offers = (_offer("H100-SXM", 2.0),)
    w = InferenceWorkload(model="llama-3.1-8b", peak_requests_per_s=50)
    option = rank_inference(w, CatalogSnapshot(gpus=GPUS, offers=offers), MODELS["llama-3.1-8b"]).options[0]
    assert option.replicas >= 50 * 400 / option.output_tokens_per_s


def test_replicas_follow_peak_clients():
    """Closed loop: each client holds one running sequence, so 1000 clients need 1000 / batch replicas."""
    offers = (_offer("H100-SXM", 2.0),)
    w = InferenceWorkload(model="llama-3.1-8b", peak_concurrency=1000)
    option = rank_inference(w, CatalogSnapshot(gpus=GPUS, offers=offers), MODELS["llama-3.1-8b"]).options[0]
    assert option.replicas == math.ceil(1000 / option.batch) and option.replicas > 1


def test_more_offers_add_rows_not_estimates():
    # Speed itself is measured by `make bench` (ratios in one run), never asserted here.
    gpu_ids = list(GPUS)
    offers = tuple(
        _offer(gpu_ids[i % len(gpu_ids)], 1 + i % 5, count=(1, 8)[i % 2], provider=f"p{i % 7}") for i in range(150)
    )
    w, model = InferenceWorkload(model="llama-3.1-70b"), MODELS["llama-3.1-70b"]
    small = rank_inference(w, CatalogSnapshot(gpus=GPUS, offers=offers), model)
    large = rank_inference(w, CatalogSnapshot(gpus=GPUS, offers=offers * 100), model)
    assert large.configurations_evaluated == small.configurations_evaluated
    assert [o.usd_per_million_output_tokens for o in large.options] == [
        o.usd_per_million_output_tokens for o in small.options
    ]


def test_fine_grained_moe_at_a_handful_of_sequences_is_labelled_a_weak_spot():
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("H200", 3.0),))

    def weak_spots(model: str, **kw) -> tuple[int, list[str]]:
        best = rank_inference(InferenceWorkload(model=model, **kw), snapshot, MODELS[model]).options[0]
        assert best.feasible
        return best.batch, [a for a in best.assumptions if a.startswith("weak spot:")]

    batch, notes = weak_spots("deepseek-r1", weight_dtype="fp8", engine="sglang", tpot_ms=12)
    assert batch <= 4 and len(notes) == 1 and "256 fine-grained experts" in notes[0]
    batch, notes = weak_spots("deepseek-r1", weight_dtype="fp8", engine="sglang", tpot_ms=100)
    assert batch > 4 and notes == []  # the public rows' regime
    batch, notes = weak_spots("mixtral-8x7b", tpot_ms=8)
    assert batch <= 4 and notes == []  # eight wide experts stream at the dense rate


def test_a_pytorch_engine_on_rocm_is_labelled_a_weak_spot():
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("MI300X", 3.0), _offer("H100-SXM", 3.0, provider="q")))
    for engine, labelled in (("vllm", True), ("sglang", True), ("trtllm", False)):
        workload = InferenceWorkload(model="llama-3.1-70b", engine=engine)
        feasible = [o for o in rank_inference(workload, snapshot, MODELS["llama-3.1-70b"]).options if o.feasible]
        served = {"H100-SXM"} if engine == "trtllm" else {"MI300X", "H100-SXM"}  # TensorRT-LLM: NVIDIA only
        assert {o.gpu_id for o in feasible} == served, engine
        for option in feasible:
            notes = [a for a in option.assumptions if a.startswith("weak spot: vLLM/SGLang on ROCm")]
            assert len(notes) == (1 if labelled and option.gpu_id == "MI300X" else 0), (engine, option.gpu_id)


def test_a_sorted_view_reads_every_column_as_the_built_option_has_it():
    """sort_value reads a field from the estimate, the offer or the cost without building the option: every
    sortable column (and its metric) must read what the option would show, on plain, peak-sized, job and
    live-traffic rankings."""
    from app.scoring.inference.ranking.options import RANK_METRIC_FIELDS
    from app.service.rank.rank_sort import COLUMNS, METRIC, RANK

    offers = (
        _offer("H100-SXM", 2.0),
        _offer("H100-SXM", 2.4, provider="q"),
        _offer("A100-SXM-80GB", 1.2, provider="r"),
        _offer("RTX-4090", 0.3, provider="s", count=1),
        _offer("H200", 3.1, provider="t"),
    )
    workloads = [
        InferenceWorkload(model="llama-3.1-8b", rank_by="all_tokens"),
        InferenceWorkload(model="llama-3.1-8b", peak_requests_per_s=40, rank_by="requests"),
        InferenceWorkload(model="llama-3.1-8b", peak_concurrency=300),  # auto: the fleet the peak rents
        InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=50_000, job_deadline_hours=2),
        InferenceWorkload(model="llama-3.1-8b", scenario="concurrency", concurrency=64, tpot_ms=25),
    ]
    for workload in workloads:
        ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), MODELS["llama-3.1-8b"])
        assert ranking.sort_value is not None and ranking.feasible_count >= 3
        fields = {c.field or RANK_METRIC_FIELDS[workload.ranked_by] for c in COLUMNS["inference"].values()} - {RANK}
        fields |= set(RANK_METRIC_FIELDS.values()) - {METRIC}
        for position in range(ranking.feasible_count):
            option = ranking.options[position]
            for name in fields:
                assert ranking.sort_value(position, name) == getattr(option, name), (workload, position, name)
