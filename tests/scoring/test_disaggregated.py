"""The disaggregated-serving engine on hand-made catalogs: pool physics, KV paths and the P:D ratio."""

from dataclasses import replace
from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.hardware.machines import FABRIC_ALPHA_MS, Machine
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.memory import kv_bytes_per_token
from app.scoring.inference.step.steps import decode_parts
from app.scoring.pricing.snapshot_memo import SnapshotMemo
from app.scoring.serving.disaggregated.lines import plan_lines, unit_words
from app.scoring.serving.disaggregated.plan import compare
from app.scoring.serving.disaggregated.pools import (
    PrefillInstance,
    PrefillPass,
    decode_instance,
    kv_transfer_ms,
    max_utilisation,
    md1_wait_ms,
    prefill_instance,
    prefill_load,
)
from app.scoring.serving.disaggregated.reasons import verdict
from app.scoring.serving.disaggregated.terms import plan_terms
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LLAMA = MODELS["llama-3.1-70b"]
LONG = InferenceWorkload(  # an FP8 cache, as the tests' figures were worked out (vLLM's default would be BF16)
    model="llama-3.1-70b",
    weight_dtype="fp8",
    kv_dtype="fp8",
    input_len=32000,
    output_len=1000,
    tpot_ms=40,
    ttft_ms=5000,
)


def _offer(gpu_id: str, price: float, provider: str = "p", fabric: str = "", offer_id: int = 1) -> Offer:
    return Offer(
        provider, provider.upper(), gpu_id, 8, "on_demand", price, date(2026, 1, 1), offer_id=offer_id,
        gpus_per_node=8, intra_node_link="nvlink", inter_node_fabric=fabric,
        inter_node_gbps_per_gpu=400.0 if fabric else None,
    )  # fmt: skip


def test_the_utilisation_limit_puts_pass_plus_queue_exactly_at_the_budget():
    rho = max_utilisation(400.0, 1000.0)
    assert 0 < rho < 0.95
    assert 400.0 + md1_wait_ms(400.0, rho) == pytest.approx(1000.0)
    assert max_utilisation(1200.0, 1000.0) == 0.0  # the pass alone breaks the limit


def test_prefill_load_picks_the_prompt_batch_that_serves_the_most_requests():
    instance = PrefillInstance("H100-SXM", 1, 1, 1, (PrefillPass(1, 100.0), PrefillPass(4, 250.0)), 0.0, False)
    load = prefill_load(instance, 500.0)
    assert load is not None and load.prompts == 4  # 4 prompts in 250 ms beat one in 100 ms
    assert load.capacity_rps == pytest.approx(load.utilisation * 4 / 0.25)
    assert prefill_load(instance, 90.0) is None


def test_a_pipelined_prefill_pass_reaches_its_last_first_token_only_through_every_stage():
    gpu, machine = GPUS["B200"], Machine(gpus_per_node=8, link="nvlink")
    piped = prefill_instance(gpu, machine, LLAMA, LONG, 2, 4)
    flat = prefill_instance(gpu, machine, LLAMA, LONG, 2, 1)
    assert piped is not None and flat is not None and flat.passes[0].latency_ms is None
    one = piped.passes[0]  # a lone prompt: four stages in turn, as slow as TP2 alone, while the instance is free
    assert one.prompts == 1 and one.first_token_ms == pytest.approx(flat.passes[0].pass_ms, rel=0.1)
    assert one.pass_ms < one.first_token_ms / 3  # ... for its next prompt after one stage
    # the budget holds the latency, the queue waits on the service time
    rho = max_utilisation(100.0, 1000.0, 400.0)
    assert 400.0 + md1_wait_ms(100.0, rho) == pytest.approx(1000.0)
    load = prefill_load(PrefillInstance("B200", 8, 2, 4, (PrefillPass(1, 100.0, 400.0),), 0.0, True), 1000.0)
    assert load is not None and load.first_token_ms == 400.0 and load.utilisation == pytest.approx(rho)


def test_kv_transfer_is_layers_alpha_plus_prompt_kv_over_the_bandwidth():
    per_token = kv_bytes_per_token(LLAMA, "fp8")
    assert per_token == 2 * 80 * 8 * 128  # 160 KiB a token for Llama-3.1-70B at FP8
    ms = kv_transfer_ms(LLAMA, "fp8", 32000, 100.0, FABRIC_ALPHA_MS)
    assert ms == pytest.approx(80 * FABRIC_ALPHA_MS + per_token * 32000 / 100e9 * 1e3)


def test_decode_batch_is_the_largest_whose_pure_decode_step_meets_the_target():
    gpu, machine = GPUS["H100-SXM"], Machine(gpus_per_node=8, link="nvlink")
    d = decode_instance(gpu, machine, LLAMA, LONG, 4)
    assert d is not None and 1 <= d.batch <= d.max_batch
    target = DEFAULT_EFFICIENCY.slo_tpot_utilisation * LONG.tpot_ms
    assert d.step_ms <= target and d.tpot_target_ms == target
    ctx = build_context(gpu, LLAMA, "fp8", "fp8", "vllm", 4)
    if d.batch < d.max_batch:
        assert decode_parts(ctx, DEFAULT_EFFICIENCY, d.batch + 1, 32500).total_ms > target
    assert d.capacity_rps == pytest.approx(d.batch / (1000 * d.step_ms) * 1e3)


def test_pools_pair_only_inside_one_provider_over_a_fabric_or_one_node():
    offers = (_offer("H100-SXM", 3.0, "a", "infiniband", 1), _offer("H200", 3.5, "b", "infiniband", 2))
    snapshot = CatalogSnapshot(gpus=GPUS, offers=offers)
    comparison = compare(LONG, Traffic(requests_per_day=100_000), snapshot, LLAMA)
    assert comparison.plans
    for plan in comparison.plans:
        assert plan.pairing.prefill.offer.provider_id == plan.pairing.decode.offer.provider_id
        if plan.pairing.path == "node":
            assert plan.pairing.prefill.offer is plan.pairing.decode.offer
            gpus = plan.pairing.prefill_per_unit * plan.pairing.prefill.instance.gpu_count
            gpus += plan.pairing.decode_per_unit * plan.pairing.decode.instance.gpu_count
            assert gpus <= 8


def test_pools_size_for_the_traffic_and_meet_both_limits():
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 3.0, "a", "infiniband"),))
    low = compare(LONG, Traffic(requests_per_day=50_000, profile="flat"), snapshot, LLAMA).best
    high = compare(LONG, Traffic(requests_per_day=500_000, profile="flat"), snapshot, LLAMA).best
    assert low is not None and high is not None
    for plan in (low, high):
        assert plan.ttft_ms * DEFAULT_EFFICIENCY.p99_ttft_over_mean <= LONG.ttft_ms + 1e-6
        assert plan.tpot_ms <= DEFAULT_EFFICIENCY.slo_tpot_utilisation * LONG.tpot_ms + 1e-9
        assert plan.monthly_usd == pytest.approx(plan.prefill.monthly_usd + plan.decode.monthly_usd)
    assert high.prefill.replicas_at_peak > low.prefill.replicas_at_peak
    assert high.decode.replicas_at_peak > low.decode.replicas_at_peak
    assert high.monthly_usd > low.monthly_usd


def test_offers_without_a_fabric_pair_only_inside_a_node():
    workload = LONG.model_copy(update={"input_len": 8000})  # a 32k prompt needs the whole node to meet TTFT
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 3.0, "a"),))
    comparison = compare(workload, Traffic(requests_per_day=100_000), snapshot, LLAMA)
    assert comparison.plans and {p.pairing.path for p in comparison.plans} == {"node"}
    assert all(p.pairing.transfer_gbs > 100 for p in comparison.plans)  # NVLink, not a network
    single = replace(snapshot, offers=(replace(snapshot.offers[0], gpu_count=1, gpus_per_node=1),), memo=SnapshotMemo())
    lone = compare(workload, Traffic(requests_per_day=100_000), single, LLAMA)
    assert lone.plans == []
    answer = verdict(lone, LLAMA, workload)
    assert answer.winner in ("aggregated", "neither")


def test_the_decode_pool_tries_data_parallel_attention_where_tp_would_copy_the_kv_cache():
    from app.scoring.inference.step.memory import max_sequences
    from app.scoring.serving.disaggregated.pools import attention_dp_degrees, prefill_instance

    gpu, machine = GPUS["H200"], Machine(gpus_per_node=8, link="nvlink")
    r1 = MODELS["deepseek-r1"]
    w = InferenceWorkload(model="deepseek-r1", weight_dtype="fp8", kv_dtype="fp8", engine="sglang", input_len=1000,
                          output_len=8000, tpot_ms=100, ttft_ms=10000)  # fmt: skip
    # auto: both ways in the decode pool (MLA copies its latent KV onto every TP rank), heads in the prefill pool
    assert attention_dp_degrees(gpu, r1, w, 8, 1, "decode") == (1, 8)
    assert attention_dp_degrees(gpu, r1, w, 8, 1, "prefill") == (1,)
    assert attention_dp_degrees(gpu, LLAMA, LONG, 8, 1, "decode") == (1,)  # 8 KV heads over 8 GPUs: no copy
    heads = decode_instance(gpu, machine, r1, w.model_copy(update={"attention_parallel": "tp"}), 8)
    dp = decode_instance(gpu, machine, r1, w.model_copy(update={"attention_parallel": "dp"}), 8)
    auto = decode_instance(gpu, machine, r1, w, 8)
    assert heads is not None and dp is not None and auto is not None
    assert heads.attention_dp == 1 and dp.attention_dp == 8
    assert dp.max_batch == max_sequences(gpu, r1, "fp8", "fp8", 5000, 8, 1, 8) > 4 * heads.max_batch
    assert auto == max(heads, dp, key=lambda d: d.capacity_rps)
    assert auto.attention_dp == 8  # room for more sequences serves more requests/s at a 100 ms TPOT
    # dp asked: the prefill pool runs it too; where the attention weights do not fit on one GPU, no instance
    assert prefill_instance(gpu, machine, r1, w.model_copy(update={"attention_parallel": "dp"}), 8).attention_dp == 8
    small = GPUS["L40S"]
    assert attention_dp_degrees(small, r1, w.model_copy(update={"attention_parallel": "dp"}), 8, 1, "decode") == ()


@pytest.mark.parametrize(
    ("engine", "gpu_id", "stated", "most_prompts"),
    [
        ("vllm", "H100-SXM", None, 8),  # V1's 8,192 on a GPU of 70 GiB or more
        ("vllm", "A100-SXM-80GB", None, 2),  # V1's 2,048 on an A100 (vLLM PR #17885)
        ("vllm", "A100-SXM-80GB", 16384, 16),  # the workload's max_num_batched_tokens
        ("sglang", "H100-SXM", None, 8),  # chunked_prefill_size 8,192 under 160 GiB
        ("sglang", "B200", None, 16),  # 16,384 above (InferenceWorkload refuses max_num_batched_tokens on sglang)
        ("trtllm", "B200", None, 8),
    ],
)
def test_a_prefill_pass_carries_the_prompts_of_the_engines_step_budget_on_its_gpu(
    engine: str, gpu_id: str, stated: int | None, most_prompts: int
):
    w = InferenceWorkload(
        model="llama-3.1-8b", input_len=1000, output_len=200, engine=engine, max_num_batched_tokens=stated
    )
    instance = prefill_instance(GPUS[gpu_id], Machine(gpus_per_node=8, link="nvlink"), MODELS["llama-3.1-8b"], w, 1)
    assert instance is not None
    assert max(p.prompts for p in instance.passes) == most_prompts  # powers of two up to budget // 1,000 prompts


def test_an_nvl72_rack_holds_both_pools_in_its_nvlink_domain_and_bills_whole_4_gpu_instances():
    """CoreWeave's GB200 nodes are 4-GPU rentals of a 72-GPU NVLink domain: a prefill and decode pair larger than
    one node sits inside the domain (KV over NVLink) and bills its instances whole."""
    rack = replace(_offer("GB200", 10.5), gpu_count=4, gpus_per_node=4, scaleup_domain_gpus=72)
    comparison = compare(LONG, Traffic(requests_per_day=100_000), CatalogSnapshot(gpus=GPUS, offers=(rack,)), LLAMA)
    nodes = [p for p in comparison.plans if p.pairing.path == "node"]
    assert nodes and any(p.pairing.node_gpus_used > 4 for p in nodes), "pairs span the rack's 4-GPU nodes"
    for plan in nodes:
        assert plan.pairing.node_gpus_billed % 4 == 0 and plan.pairing.node_gpus_billed >= plan.pairing.node_gpus_used
        assert plan.pairing.transfer_gbs > 100  # NVLink, not a network
    assert "-GPU group in one NVLink domain" in " ".join(verdict(comparison, LLAMA, LONG).why)


def _rack_405b() -> tuple:
    """Llama 3.1 405B at 32k prompts on an NVL72 rack of 4-GPU rentals: aggregated runs 32 GPUs, 8 physical nodes of
    one NVLink domain."""
    w = InferenceWorkload(model="llama-3.1-405b", weight_dtype="fp8", kv_dtype="fp8", input_len=32000,
                          output_len=1000, tpot_ms=30, ttft_ms=3000, max_gpus=72)  # fmt: skip
    rack = replace(_offer("GB200", 10.5), gpu_count=4, gpus_per_node=4, scaleup_domain_gpus=72)
    model = MODELS["llama-3.1-405b"]
    return compare(w, Traffic(requests_per_day=100_000), CatalogSnapshot(gpus=GPUS, offers=(rack,)), model), model, w


def test_an_aggregated_layout_over_an_nvlink_domains_nodes_gets_its_decode_only_batch():
    comparison, model, w = _rack_405b()
    assert comparison.aggregated is not None
    o, alone = comparison.aggregated.option, comparison.aggregated_decode_only
    assert o.nodes > 1, "the layout spans the rack's 4-GPU nodes, inside its 72-GPU NVLink domain"
    assert alone is not None and alone.gpu_count == o.gpu_count and alone.batch > o.batch
    answer = verdict(comparison, model, w)
    assert f"decode alone would batch more ({alone.batch} against {o.batch})" in answer.headline
    assert "more against" not in answer.headline


def test_the_verdict_claims_no_decode_only_batch_it_did_not_estimate():
    comparison, model, w = _rack_405b()
    unknown = replace(comparison, aggregated_decode_only=None)  # as for a layout spanning nodes over a fabric
    answer = verdict(unknown, model, w)
    assert answer.winner == "aggregated"
    assert "decode alone" not in answer.headline and "more against" not in answer.headline
    assert "aggregated steps overlap the prompts' compute" in answer.headline
    assert not any("Prefill interference" in line for line in answer.why)


def test_the_node_path_is_worded_as_a_node_or_an_nvlink_domain_and_counts_its_units():
    """A rack's prefill and decode instances may sit on different 4-GPU nodes of its NVLink domain, and a unit of them
    that bills part of the domain is a group in it (several fit in one domain): never "the node's own link" there,
    never "1 NVLink domains"."""
    rack = replace(_offer("GB200", 10.5), gpu_count=4, gpus_per_node=4, scaleup_domain_gpus=72)
    quiet = Traffic(requests_per_day=2000)
    comparison = compare(LONG, quiet, CatalogSnapshot(gpus=GPUS, offers=(rack,)), LLAMA)
    best = comparison.best
    assert best is not None and best.pairing.path == "node" and best.units_at_peak == 1
    assert best.pairing.node_gpus_billed < 72
    pool = next(line for line in verdict(comparison, LLAMA, LONG).why if line.startswith("Prefill pool:"))
    assert f"per {best.pairing.node_gpus_billed}-GPU group in one NVLink domain, 1 group)" in pool
    assert "over the NVLink domain at" in pool and "node's own link" not in pool
    terms = {t.name: t.detail for t in plan_terms(best, LLAMA, LONG)}
    assert terms["KV transfer"].endswith("over the NVLink domain")
    # a unit that bills the whole domain is the domain, counted in the singular
    x = best.pairing
    whole = replace(x, prefill_per_unit=72 // (x.prefill.instance.gpu_count + x.decode.instance.gpu_count))
    whole = replace(whole, decode_per_unit=(72 - whole.prefill_per_unit * x.prefill.instance.gpu_count)
                    // x.decode.instance.gpu_count)  # fmt: skip
    assert whole.node_gpus_billed == 72
    assert unit_words(whole) == ("NVLink domain", "NVLink domain")
    line = plan_lines(replace(best, pairing=whole), LLAMA, LONG)[0]
    assert "per NVLink domain, 1 NVLink domain)" in line
    # a plain 8-GPU node rented whole keeps the node's words
    plain = compare(LONG, quiet, CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 3.0),)), LLAMA)
    assert plain.best is not None and plain.best.units_at_peak == 1
    pool = next(line for line in verdict(plain, LLAMA, LONG).why if line.startswith("Prefill pool:"))
    assert "per node, 1 node)" in pool and "over the node's own link" in pool


def test_a_fabric_pool_on_whole_8_gpu_rentals_counts_every_instance_they_hold():
    """An 8-GPU VM holding two TP4 decode instances is two instances of the pool, not one: the P:D ratio, the pool's
    line and its GPUs count them so ('10 × 4×H200 on 5 rented 8-GPU instances', not '5 × 4×H200' billing 40 GPUs)."""
    workload = LONG.model_copy(update={"output_len": 500, "ttft_ms": 3000})
    snapshot = CatalogSnapshot(gpus=GPUS, offers=(_offer("H200", 3.5, "a", "infiniband"),))
    comparison = compare(workload, Traffic(requests_per_day=500_000), snapshot, LLAMA)
    shared = [
        (plan, pool)
        for plan in comparison.plans
        if plan.pairing.path == "fabric"
        for pool in (plan.prefill, plan.decode)
        if pool.offer.instance.gpu_count < 8
    ]
    assert shared, "some fabric plan runs a pool's instances several to a rented 8-GPU instance"
    for plan, pool in shared:
        copies = 8 // pool.offer.instance.gpu_count
        assert pool.copies_per_rental == copies and pool.rentals_at_peak is not None
        assert pool.replicas_at_peak == pool.rentals_at_peak * copies
        assert pool.gpus_at_peak == pool.rentals_at_peak * 8 == pool.replicas_at_peak * pool.offer.instance.gpu_count
        assert f"{plan.prefill.replicas_at_peak}P:{plan.decode.replicas_at_peak}D" == plan.ratio
        line = plan_lines(plan, LLAMA, workload)[0 if pool.role == "prefill" else 1]
        assert f"{pool.replicas_at_peak} × {pool.offer.instance.gpu_count}×H200" in line
        assert f"on {pool.rentals_at_peak} rented 8-GPU instance" in line
