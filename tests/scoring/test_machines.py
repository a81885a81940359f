"""Offers describe machines: rankings build only what an offer can supply, and single estimates agree."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.gpu_gaps import fill_missing_peaks
from app.scoring.hardware.machines import (
    Machine,
    default_machine,
    job_gpu_limit,
    machine_gpu,
    machine_of,
    nodes_for,
    span_reason,
    supply_limit_reason,
    supply_reason,
)
from app.scoring.inference.estimates.configurations import estimate_on, single_node_layouts
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.configurations import estimate_on as training_estimate_on
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import InferenceWorkload, TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _offer(gpu_id: str, per_node: int, link: str, fabric: str = "", max_nodes: int | None = None, **kw) -> Offer:
    return Offer(
        provider_id=kw.pop("provider", "p"),
        provider_name="P",
        gpu_id=gpu_id,
        gpu_count=per_node,
        price_type=kw.pop("price_type", "on_demand"),
        usd_per_gpu_hour=kw.pop("price", 2.0),
        as_of=date(2026, 11, 1),
        offer_id=kw.pop("offer_id", 1),
        gpus_per_node=per_node,
        intra_node_link=link,
        inter_node_fabric=fabric,
        inter_node_gbps_per_gpu=400.0 if fabric else None,
        max_nodes=max_nodes,
        **kw,
    )


machines = st.builds(
    lambda gpu, per_node, link, fabric, max_nodes: _offer(gpu, per_node, link, fabric, max_nodes),
    gpu=st.sampled_from(["H100-SXM", "L40S", "A100-SXM-80GB", "MI300X", "H200"]),
    per_node=st.sampled_from([1, 2, 4, 8]),
    link=st.sampled_from(["nvlink", "pcie", "xgmi"]),
    fabric=st.sampled_from(["", "infiniband", "ethernet"]),
    max_nodes=st.sampled_from([None, 1, 2, 4]),
)
serving = st.builds(
    lambda model, dtype, tpot, max_gpus: InferenceWorkload(
        model=model, weight_dtype=dtype, tpot_ms=tpot, max_gpus=max_gpus, input_len=1000, output_len=200
    ),
    model=st.sampled_from(["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"]),
    dtype=st.sampled_from(["bf16", "fp8"]),
    tpot=st.sampled_from([30.0, 60.0, 150.0]),
    max_gpus=st.sampled_from([4, 8, 16, 32]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(offer=machines, workload=serving)
def test_ranked_serving_configurations_fit_the_machine_and_the_estimate_agrees(
    offer: Offer, workload: InferenceWorkload
) -> None:
    model = MODELS[workload.model or ""]
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(offer,))
    machine = machine_of(offer, GPUS[offer.gpu_id])
    for option in rank_inference(workload, snapshot, model).options:
        if not option.feasible:
            continue
        assert option.tensor_parallel <= machine.gpus_per_node
        assert option.gpu_count <= machine.gpus_per_node or machine.clusters
        assert machine.max_nodes is None or option.nodes <= machine.max_nodes
        assert supply_reason(machine, option.gpu_count, option.tensor_parallel, option.pipeline_parallel) is None
        single = estimate_on(
            GPUS[offer.gpu_id],
            machine,
            option.gpu_count,
            option.tensor_parallel,
            option.pipeline_parallel,
            model,
            workload,
        )
        assert single.feasible
        assert (single.batch, single.output_tokens_per_s) == (option.batch, option.output_tokens_per_s)


@settings(max_examples=60, deadline=None)
@given(
    offer=machines,
    count=st.sampled_from([1, 2, 4, 8, 16, 32]),
    tp=st.sampled_from([1, 2, 4, 8]),
)
def test_a_single_estimate_refuses_what_the_machine_cannot_supply(offer: Offer, count: int, tp: int) -> None:
    machine = machine_of(offer, GPUS[offer.gpu_id])
    pp = max(count // tp, 1)
    workload = InferenceWorkload(model="llama-3.1-8b", max_gpus=32)
    est = estimate_on(GPUS[offer.gpu_id], machine, count, tp, pp, MODELS["llama-3.1-8b"], workload)
    reason = supply_reason(machine, count, tp, pp)
    if reason is not None:
        assert not est.feasible and est.reason == reason


def test_no_configuration_spans_nodes_without_a_fabric() -> None:
    lone = Machine(gpus_per_node=8, link="pcie")
    assert span_reason(lone, 16) is not None and span_reason(lone, 8) is None
    cluster = Machine(gpus_per_node=8, link="nvlink", fabric="infiniband", max_nodes=2)
    assert span_reason(cluster, 16) is None
    assert "limit of 2" in (span_reason(cluster, 32) or "")
    assert "whole number" in (span_reason(cluster, 12) or "")


def test_70b_fp8_serves_on_one_8x_l40s_machine_over_pcie() -> None:
    offer = _offer("L40S", 8, "pcie")
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", tpot_ms=100, ttft_ms=3000)
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(offer,)), MODELS["llama-3.1-70b"])
    best = ranking.options[0]
    assert best.feasible and best.gpu_count in (4, 8) and best.nodes == 1
    assert any("PCIe" in t.detail for t in best.terms), "the all-reduce runs over PCIe"


def test_deepseek_r1_spans_two_nodes_only_where_a_cluster_is_offered() -> None:
    workload = InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", max_gpus=16, tpot_ms=100)
    model = MODELS["deepseek-r1"]
    single = _offer("H100-SXM", 8, "nvlink")
    cluster = _offer("H100-SXM", 8, "nvlink", fabric="infiniband", provider="q", offer_id=2)
    options = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(single, cluster)), model).options
    feasible = [o for o in options if o.feasible]
    assert feasible and {o.provider for o in feasible} == {"q"}
    assert feasible[0].gpu_count == 16 and feasible[0].nodes == 2 and feasible[0].pipeline_parallel == 2


def test_a_model_no_node_holds_spans_nodes_by_default_and_one_that_fits_never_does() -> None:
    cluster = _offer("H100-SXM", 8, "nvlink", fabric="infiniband")  # 8 x 80 GB: ~600 GB usable, 16: ~1,200
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(cluster,))
    kimi = InferenceWorkload(model="kimi-k2", weight_dtype="fp8", engine="sglang", tpot_ms=100)  # 1T parameters
    best = rank_inference(kimi, snapshot, MODELS["kimi-k2"]).options[0]
    assert best.feasible and (best.gpu_count, best.nodes, best.pipeline_parallel) == (16, 2, 2)
    assert not rank_inference(kimi.model_copy(update={"max_gpus": 8}), snapshot, MODELS["kimi-k2"]).options[0].feasible
    small = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8")
    assert all(o.nodes == 1 for o in rank_inference(small, snapshot, MODELS["llama-3.1-70b"]).options)


def test_an_infeasible_cluster_says_why_at_its_fewest_nodes_that_hold_the_model() -> None:
    # 405B in bf16 fits no 8 x H100 node; two nodes hold it but miss a 20 ms TPOT, and more pipeline stages only
    # add latency: the reason is the two-node layout's, not the eight-node one tried last
    workload = InferenceWorkload(model="llama-3.1-405b", weight_dtype="bf16", tpot_ms=20)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 8, "nvlink", fabric="infiniband"),))
    refused = rank_inference(workload, snapshot, MODELS["llama-3.1-405b"]).options[0]
    assert not refused.feasible and refused.gpu_count == 16
    assert refused.reason.startswith("even one request misses the limits")
    lone = CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 8, "nvlink"),))
    memory = rank_inference(workload, lone, MODELS["llama-3.1-405b"]).options[0]
    assert memory.gpu_count == 8 and memory.reason.startswith("needs 812 GB for bf16 weights")


def test_training_never_assembles_a_cluster_from_single_gpu_rentals() -> None:
    workload = TrainingWorkload(model="llama-3.1-8b", method="full_ft", total_tokens=5e9, max_gpus=64)
    model = MODELS["llama-3.1-8b"]
    single = _offer("H100-SXM", 1, "none", provider="market", price_type="marketplace", price=1.0)
    node = _offer("H100-SXM", 8, "nvlink", offer_id=2)
    cluster = _offer("H100-SXM", 8, "nvlink", fabric="infiniband", provider="q", offer_id=3, price=3.0)
    workload = workload.model_copy(update={"price_types": ["on_demand", "marketplace"]})
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(single, node, cluster))
    for option in rank_training(workload, snapshot, model).options:
        if option.provider == "market":
            assert option.gpu_count == 1
        if option.provider == "p":
            assert option.gpu_count <= 8


def test_training_estimate_and_ranking_agree_on_the_same_machine() -> None:
    workload = TrainingWorkload(model="llama-3.1-8b", method="full_ft", total_tokens=5e9, max_gpus=32)
    model = MODELS["llama-3.1-8b"]
    offer = _offer("H100-SXM", 8, "nvlink", fabric="infiniband")
    option = rank_training(workload, CatalogSnapshot(gpus=GPUS, offers=(offer,)), model).options[0]
    gpu, _ = fill_missing_peaks(GPUS["H100-SXM"], GPUS)
    single = training_estimate_on(gpu, machine_of(offer, gpu), option.gpu_count, model, workload)
    assert single.feasible and single.step_time_s == option.step_time_s


def test_an_nvl72_rack_of_4_gpu_nodes_is_one_nvlink_domain() -> None:
    """CoreWeave rents GB200 as 4-GPU nodes of an NVL72 rack: a layout spans its nodes at NVLink speed (tensor
    parallel across them), bills whole 4-GPU instances, and counts physical nodes; without a fabric, one rack."""
    rack = _offer("GB200", 4, "nvlink", scaleup_domain_gpus=72)
    machine = machine_of(rack, GPUS["GB200"])
    assert machine.gpus_per_node == 72 and machine.node_gpus == 4 and machine.instance_gpus == 4
    assert supply_reason(machine, 8, tensor_parallel=8) is None
    assert span_reason(machine, 72) is None and span_reason(machine, 144) is not None
    assert nodes_for(machine, 8) == 2 and machine.instances(8, 3) == 6 and machine.instances(2, 3) == 2
    assert "72-GPU NVLink domain of 4-GPU nodes" in machine.describe()
    # the same offer without the stated domain is one 4-GPU node
    assert supply_reason(machine_of(_offer("GB200", 4, "nvlink"), GPUS["GB200"]), 8, tensor_parallel=8) is not None


def test_deepseek_r1_serves_on_two_nodes_of_an_nvl72_rack() -> None:
    # 8k-token prompts: one 4-GPU node holds R1's 671 GB of FP8 weights but little KV cache beside them (at 2k-token
    # prompts it serves batch 29 alone), so two nodes of the rack's NVLink domain serve it cheaper per token
    workload = InferenceWorkload(
        model="deepseek-r1", weight_dtype="fp8", tpot_ms=50, ttft_ms=3000, engine="sglang", input_len=8000
    )
    rack = _offer("GB200", 4, "nvlink", scaleup_domain_gpus=72)
    options = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(rack,)), MODELS["deepseek-r1"]).options
    best = next(o for o in options if o.feasible)
    assert best.gpu_count == 8 and best.tensor_parallel == 8 and best.nodes == 2
    assert not any(
        o.feasible
        for o in rank_inference(
            workload.model_copy(update={"model": "kimi-k2"}),
            CatalogSnapshot(gpus=GPUS, offers=(_offer("GB200", 4, "nvlink"),)),
            MODELS["kimi-k2"],
        ).options
    ), "1 TB of FP8 weights do not fit one 4-GPU node"


def test_an_estimate_without_an_offer_names_the_rack_and_the_search_keeps_tp_to_16() -> None:
    """A GB200 estimate with no offer runs in its NVL72 rack: a 72-GPU NVLink domain of 4-GPU nodes, as the ranking
    says; serving layouts in it are TP8/TP16 groups in pipeline stages, never TP32 or TP64 (unpublished)."""
    machine = default_machine(GPUS["GB200"])
    assert machine.describe() == "72-GPU NVLink domain of 4-GPU nodes" and nodes_for(machine, 8) == 2
    assert default_machine(GPUS["B200"]).describe() == "8-GPU node (nvlink)"
    layouts = single_node_layouts(machine, 72, 126)
    assert max(tp for _, tp, _ in layouts) == 16 and (64, 16, 4) in layouts and (64, 64, 1) not in layouts


RACK_LIMIT = (
    "this offer supplies at most 72 GPUs to one job: one NVL72 rack (a 72-GPU NVLink domain of 4-GPU nodes), and no "
    "fabric between racks is stated"
)


def test_another_vendors_chip_to_chip_link_is_not_called_nvlink() -> None:
    """TPU ICI, Gaudi's on-chip RoCE and Trainium's NeuronLink are scale-up links priced as NVLink is, not NVLink."""
    checked = 0
    for gpu in GPUS.values():
        if gpu.vendor.upper() in ("NVIDIA", "AMD") or not (gpu.interconnect_gbs and gpu.scaleup_domain_gpus > 1):
            continue
        checked += 1
        machine = default_machine(gpu)
        assert machine.scaleup and "nvlink" not in machine.describe().lower() and "scale-up" in machine.describe()
        assert machine_gpu(gpu, machine) == gpu  # wired as before: the GPU's own domain and bandwidth
    assert checked >= 3  # TPUs, Gaudi, Trainium
    assert default_machine(GPUS["MI300X"]).describe() == "8-GPU node (xgmi)"


def test_where_a_machine_stops_a_job_is_said_in_words() -> None:
    rack = machine_of(_offer("GB200", 4, "nvlink", scaleup_domain_gpus=72), GPUS["GB200"])
    assert job_gpu_limit(rack) == 72 and supply_limit_reason(rack, 1024) == RACK_LIMIT
    assert supply_limit_reason(rack, 72) == RACK_LIMIT  # the rack stops it too: raising Max GPUs would not help
    assert supply_limit_reason(rack, 64) is None  # Max GPUs stops a job first
    node = machine_of(_offer("H100-SXM", 8, "nvlink"), GPUS["H100-SXM"])
    assert supply_limit_reason(node, 64) == (
        "this offer supplies at most 8 GPUs to one job: one 8-GPU node, and no fabric between nodes is stated"
    )
    limited = machine_of(_offer("H100-SXM", 8, "nvlink", "infiniband", max_nodes=4), GPUS["H100-SXM"])
    assert supply_limit_reason(limited, 64) == (
        "this offer supplies at most 32 GPUs to one job: 4 nodes of 8 GPUs, the offer's stated limit"
    )
    unstated = machine_of(_offer("H100-SXM", 8, "nvlink", "infiniband"), GPUS["H100-SXM"])
    assert job_gpu_limit(unstated) is None and supply_limit_reason(unstated, 65_536) is None


def test_a_machine_says_a_node_count_it_does_not_know_in_words() -> None:
    """'up to unstated nodes' was machine text: a cluster without a stated size says so, one with it says it."""
    unstated = machine_of(_offer("H100-SXM", 8, "nvlink", "infiniband"), GPUS["H100-SXM"])
    assert unstated.describe().endswith("Gb/s per GPU, node count not stated") and "unstated" not in unstated.describe()
    limited = machine_of(_offer("H100-SXM", 8, "nvlink", "infiniband", max_nodes=4), GPUS["H100-SXM"])
    assert limited.describe().endswith("Gb/s per GPU, up to 4 nodes")


def test_a_pretrain_too_slow_on_one_nvl72_rack_says_the_rack_stops_it() -> None:
    """70B on 2T tokens stopped at 72 GB200s ('finishes in 158.5 days') with no word of why it stopped there. A global
    batch of 144 sequences splits evenly over 72 GPUs' replicas (the default 64 gives 64 and 72 GPUs the same busiest
    replica, a tie that floating-point noise decides)."""
    rack = _offer("GB200", 4, "nvlink", scaleup_domain_gpus=72, price=10.5)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(rack,))
    w = TrainingWorkload(
        model="llama-3.1-70b",
        method="pretrain",
        total_tokens=2e12,
        max_gpus=1024,
        max_days=60,
        global_batch_seqs=144,
    )
    ranking = rank_training(w, snapshot, MODELS["llama-3.1-70b"])
    late = ranking.options[0]
    assert late.gpu_count == 72 and not late.feasible
    assert late.reason.startswith("finishes in") and late.reason.endswith(RACK_LIMIT)
    assert any("that offer supplies at most 72 GPUs to one job: one NVL72 rack" in n for n in ranking.notes)
    # on time at 72 GPUs, nothing to explain; under a Max GPUs below the rack, Max GPUs is the reason
    assert (
        rank_training(w.model_copy(update={"max_days": 365}), snapshot, MODELS["llama-3.1-70b"]).options[0].reason == ""
    )
    capped = rank_training(w.model_copy(update={"max_gpus": 64}), snapshot, MODELS["llama-3.1-70b"])
    assert "supplies at most" not in capped.options[0].reason
    # the rack's 72 GPUs miss the deadline too: raising Max GPUs is no advice (the note once gave it)
    notes = " ".join(capped.notes)
    assert "raise Max GPUs" not in notes and "no larger Max GPUs lets the nearest machines finish in time" in notes


def test_a_model_no_nvl72_rack_holds_says_the_rack_stops_it() -> None:
    rack = _offer("GB200", 4, "nvlink", scaleup_domain_gpus=72)
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(rack,))
    train = TrainingWorkload(model="megatron-gpt-1t", method="full_ft", max_gpus=1024)
    unfit = rank_training(train, snapshot, MODELS["megatron-gpt-1t"]).options[0]
    assert not unfit.feasible and unfit.reason.startswith("needs") and unfit.reason.endswith(RACK_LIMIT)
    # 8T parameters in bf16: 16 TB of weights, more than 72 GB200s hold
    huge = replace(
        MODELS["megatron-gpt-1t"], params_b=8000.0, active_params_b=8000.0, num_attention_heads=128, num_kv_heads=128
    )
    serve = InferenceWorkload(model=huge.id, max_gpus=72, input_len=1000, output_len=200)
    refused = rank_inference(serve, snapshot, huge).options[0]
    assert refused.reason.startswith("needs 16,000 GB") and refused.reason.endswith(RACK_LIMIT)
    below = rank_inference(serve.model_copy(update={"max_gpus": 64}), snapshot, huge).options[0]
    assert "supplies at most" not in below.reason  # Max GPUs per replica stops it first
