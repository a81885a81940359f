"""Estimator properties: roofline bound, monotonicity, infeasible reasons."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.host_overheads import moe_prefill_ms
from app.scoring.inference.step.memory import kv_bytes_per_token_per_gpu, weight_bytes
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
SCENARIOS = ["max_throughput", "latency_bound", "fixed_batch", "concurrency", "single_stream"]


def _workload(**kw):
    """8 requests at a time where the scenario reads a load (batch under fixed_batch, clients under concurrency)."""
    base = dict(engine="trtllm", scenario="max_throughput", ttft_ms=5000, tpot_ms=200)
    base.update(kw)
    load = {"fixed_batch": {"batch": 8}, "concurrency": {"concurrency": 8}}.get(str(base["scenario"]), {})
    return InferenceWorkload(**{**load, **base})


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["H100-SXM", "A100-SXM-80GB", "L40S", "H200", "RTX-4090", "B200"]),
    st.sampled_from(["llama-3.1-8b", "mistral-7b", "mixtral-8x7b"]),
    st.sampled_from(SCENARIOS),
    st.sampled_from(["bf16", "fp8", "int4"]),
    st.integers(16, 4000),
    st.integers(1, 2000),
    st.sampled_from([1, 2, 4]),
)
def test_never_faster_than_roofline_at_full_peak(gpu_id, model_id, scenario, dtype, inp, out, tp):
    gpu, model = GPUS[gpu_id], MODELS[model_id]
    w = _workload(scenario=scenario, weight_dtype=dtype, input_len=inp, output_len=out)
    est = estimate_inference(gpu, tp, model, w)
    if not est.feasible:
        return
    # decode step: every GPU must at least stream its weight shard (and KV) at 100 % bandwidth
    active = model.active_params_b / model.params_b
    shard = weight_bytes(model, dtype) * active / tp
    assert est.tpot_ms >= shard / (gpu.memory_bandwidth_tbs * 1e12) * 1e3
    # prefill: at least the FLOPs of the prompt at 100 % of the dense peak of the matmul dtype
    ctx = build_context(gpu, model, dtype, w.kv_dtype_effective, "trtllm", tp)
    if scenario in ("single_stream", "fixed_batch"):
        assert est.ttft_ms >= 2 * model.active_params_b * 1e9 * inp / (tp * ctx.peak_tflops * 1e12) * 1e3
    # throughput: never above the compute roofline of all tokens processed nor the memory roofline
    tokens_per_output = (inp + out - 1) / out  # the first output token comes out of the prefill pass
    compute_cap = tp * ctx.peak_tflops * 1e12 / (2 * model.active_params_b * 1e9 * tokens_per_output)
    assert est.output_tokens_per_s <= compute_cap * 1.0000001
    kv = kv_bytes_per_token_per_gpu(model, w.kv_dtype_effective, tp) * (inp + out / 2)
    step_floor = (shard + est.batch * kv) / (gpu.memory_bandwidth_tbs * 1e12)
    assert est.output_tokens_per_s <= est.batch / step_floor * 1.0000001


@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 10.0), st.sampled_from(SCENARIOS))
def test_more_bandwidth_is_never_slower(factor, scenario):
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    fast = replace(gpu, memory_bandwidth_tbs=gpu.memory_bandwidth_tbs * factor)
    w = _workload(scenario=scenario)
    slow_est, fast_est = estimate_inference(gpu, 1, model, w), estimate_inference(fast, 1, model, w)
    assert fast_est.tpot_ms <= slow_est.tpot_ms + 1e-9
    if scenario in ("fixed_batch", "single_stream"):  # no queue: TTFT is prefill + overheads only
        assert fast_est.ttft_ms <= slow_est.ttft_ms + 1e-9
    # Under load at the same batch a faster GPU also admits more prefills per second (closed loop), so its
    # M/D/1 wait may grow; what must hold is that it serves at least as many tokens per second.
    assert fast_est.output_tokens_per_s >= slow_est.output_tokens_per_s - 1e-9


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 500), st.integers(1, 500), st.sampled_from(["fixed_batch", "concurrency", "max_throughput"]))
def test_tpot_never_falls_as_batch_grows(b1, b2, scenario):
    small, large = sorted((b1, b2))
    ctx = build_context(GPUS["H100-SXM"], MODELS["mixtral-8x7b"], "fp8", "fp8", "vllm", 2)
    t_small = operating_point(ctx, DEFAULT_EFFICIENCY, scenario, small, 1000, 200).tpot_ms
    t_large = operating_point(ctx, DEFAULT_EFFICIENCY, scenario, large, 1000, 200).tpot_ms
    assert t_large >= t_small - 1e-9


@given(st.integers(100, 50_000), st.integers(1, 50_000))
def test_memory_never_shrinks_as_context_grows(inp, extra):
    gpu, model = GPUS["H200"], MODELS["llama-3.1-8b"]
    a = estimate_inference(gpu, 1, model, _workload(scenario="fixed_batch", batch=1, input_len=inp))
    b = estimate_inference(gpu, 1, model, _workload(scenario="fixed_batch", batch=1, input_len=inp + extra))
    if a.feasible and b.feasible:
        assert b.memory_gb["kv_cache"] >= a.memory_gb["kv_cache"]


def test_infeasible_reason_names_the_shortfall():
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.1-70b"], _workload(weight_dtype="fp32"))
    assert not est.feasible
    assert est.reason.startswith("needs 282 GB for fp32 weights; 2×H100 SXM leave ")


def test_one_gpu_that_cannot_hold_the_weights_leaves_singular():
    """'1xInstinct MI300X leave 179 GB' (DeepSeek-R1 on /compare's MI300X card) read as a typo (qa37)."""
    est = estimate_inference(GPUS["MI300X"], 1, MODELS["deepseek-r1"], _workload(weight_dtype="fp8"))
    assert est.reason.startswith("needs 671 GB for fp8 weights; 1×Instinct MI300X leaves ")


def test_latency_limits_too_tight_are_explained():
    est = estimate_inference(GPUS["L40S"], 1, MODELS["llama-3.1-8b"], _workload(scenario="latency_bound", tpot_ms=1))
    assert not est.feasible and "even one request misses the limits" in est.reason


def test_estimate_has_terms_band_and_bound():
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], _workload())
    assert est.feasible and est.bound in ("memory", "compute")
    assert est.band.low < est.output_tokens_per_s < est.band.high
    assert {t.name for t in est.terms} >= {"decode memory time", "decode compute time", "TP all-reduce"}
    assert est.output_tokens_per_s_per_gpu == est.output_tokens_per_s


def test_pipeline_stages_divide_a_lone_prompts_layers_not_its_latency():
    """A request sits in one micro-batch at a time (vLLM, TensorRT-LLM), so its prompt runs through the stages in
    turn: TP2 x PP4 prefills a lone 100k-token prompt no faster than TP2 alone (it was read as 4x faster)."""
    gpu, model = GPUS["B200"], MODELS["llama-3.1-8b"]
    ttft = {}
    for scenario in ("single_stream", "fixed_batch"):
        lone = {"batch": 1} if scenario == "fixed_batch" else {}
        w = _workload(scenario=scenario, **lone, input_len=100_000, output_len=100)
        for pp in (1, 4):
            est = estimate_inference(gpu, 2 * pp, model, w, tensor_parallel=2, pipeline_parallel=pp)
            assert est.feasible, est.reason
            ttft[scenario, pp] = est.ttft_ms
            piped = [t for t in est.terms if t.name == "prefill through the pipeline"]
            assert [t.value <= est.ttft_ms and "4 stages of 8 layers" in t.detail for t in piped] == [True] * (pp > 1)
        assert ttft[scenario, 4] == pytest.approx(ttft[scenario, 1], rel=0.1)
    # under load a request still waits for its own prompt through every stage
    w = _workload(scenario="latency_bound", input_len=100_000, output_len=1000, ttft_ms=20_000, tpot_ms=200)
    loaded = estimate_inference(gpu, 8, model, w, tensor_parallel=2, pipeline_parallel=4)
    assert loaded.feasible and loaded.ttft_ms >= ttft["single_stream", 4]


def test_the_engines_step_token_budget_caps_the_running_batch_where_prompts_are_long_and_outputs_short():
    """TensorRT-LLM v0.14 serving, Llama-3.1-70B on 4xH100, 467 in / 16 out, 500 requests at once: each step
    carries the batch's decode tokens and batch x 467 / 16 prompt tokens, so 8,192 tokens a step sustain 271
    running requests (measured step 548 ms; all 500 running read 946 ms)."""
    w = _workload(model="llama-3.1-70b", input_len=467, output_len=16, max_num_seqs=500)
    est = estimate_inference(GPUS["H100-SXM"], 4, MODELS["llama-3.1-70b"], w)
    assert est.feasible and est.batch == int(8192 / (1 + 467 / 16)) == 271
    assert any("8,192-token step budget (the trtllm default)" in a for a in est.assumptions)
    assert 450 < est.tpot_ms < 650
    # the workload sets the budget as the engine's flag would
    bigger = w.model_copy(update={"max_num_batched_tokens": 16384})
    raised = estimate_inference(GPUS["H100-SXM"], 4, MODELS["llama-3.1-70b"], bigger)
    assert raised.batch == min(int(16384 / (1 + 467 / 16)), 500) == 500
    # SGLang prefills in batches of their own (no per-step budget on the decode batch); a static batch has none
    sglang = estimate_inference(GPUS["H100-SXM"], 4, MODELS["llama-3.1-70b"], w.model_copy(update={"engine": "sglang"}))
    static = estimate_inference(
        GPUS["H100-SXM"], 4, MODELS["llama-3.1-70b"], w.model_copy(update={"scenario": "fixed_batch", "batch": 400})
    )
    assert sglang.batch > 271 and static.batch == 400
    ttft = {e.reason: next(t.detail for t in e.terms if t.name == "TTFT") for e in (est, sglang)}
    assert ["0.5 running steps" in detail for detail in ttft.values()] == [False, True]  # SGLang waits half a step
    # a decode-heavy workload never meets the budget
    decode_heavy = _workload(input_len=128, output_len=2048)
    assert estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], decode_heavy).batch > 271


def test_the_compute_term_says_how_many_prompt_tokens_each_continuous_batching_step_carries():
    def compute_detail(**kw):
        est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], _workload(**kw))
        return est.batch, next(t.detail for t in est.terms if t.name == "decode compute time")

    # steady state: every request's 2,000-token prompt is prefilled once over its 400 output steps
    batch, detail = compute_detail(scenario="latency_bound", input_len=2000, output_len=400, ttft_ms=2000, tpot_ms=60)
    assert f"plus {batch * 2000 / 400:,.0f} prompt tokens prefilled per step" in detail
    _, static = compute_detail(scenario="fixed_batch", input_len=2000, output_len=400)  # prefill runs before
    assert "prompt tokens" not in static


def test_the_efficiency_terms_name_every_factor_and_the_rocm_evidence_where_it_applies():
    from app.scoring.inference.step.efficiency_factors import mbu, mbu_factors, mfu, mfu_factors

    w = _workload(engine="vllm", weight_dtype="fp8", model="llama-3.1-70b")
    for gpu in ("MI300X", "H100-SXM"):
        est = estimate_inference(GPUS[gpu], 8, MODELS["llama-3.1-70b"], w, tensor_parallel=8)
        memory = next(t.detail for t in est.terms if t.name == "decode memory time")
        compute = next(t.detail for t in est.terms if t.name == "decode compute time")
        assert "(vLLM)" in memory and "(TP8^-" in memory and "(FP8)" in compute
        assert ("(ROCm)" in memory and "(ROCm)" in compute and "MLPerf v4.1" in memory) == (gpu == "MI300X")
    ctx = build_context(GPUS["MI300X"], MODELS["llama-3.1-70b"], "fp8", "fp8", "vllm", 8)
    product = 1.0
    for _, value in mbu_factors(ctx, DEFAULT_EFFICIENCY):
        product *= value
    assert mbu(ctx, DEFAULT_EFFICIENCY) == pytest.approx(product)
    assert ("ROCm", DEFAULT_EFFICIENCY.amd_mfu_factor) in mfu_factors(ctx, DEFAULT_EFFICIENCY)
    assert mfu(ctx, DEFAULT_EFFICIENCY) < mfu(replace(ctx, amd=False), DEFAULT_EFFICIENCY)


def test_unverified_peak_falls_back_and_is_flagged():
    est = estimate_inference(
        GPUS["RTX-3090"], 1, MODELS["llama-3.1-8b"], _workload(weight_dtype="int4", engine="llamacpp")
    )
    assert any("peak estimated" in a for a in est.assumptions)  # a derived peak, flagged, never silent


def test_engine_batch_cap_defaults_to_the_engine_and_max_num_seqs_overrides_it():
    h100, a100, model = GPUS["H100-SXM"], GPUS["A100-SXM-80GB"], MODELS["llama-3.1-8b"]
    short = dict(input_len=128, output_len=128)  # KV for thousands of sequences: the cap binds, not memory
    # vLLM V1 (EngineArgs._set_default_args): 1,024 sequences on a GPU of 70 GiB or more, but 256 on an A100
    vllm = estimate_inference(h100, 1, model, _workload(engine="vllm", **short))
    assert vllm.batch == 1024 and any("engine batch cap 1024 (the vllm default)" in a for a in vllm.assumptions)
    on_a100 = estimate_inference(a100, 1, model, _workload(engine="vllm", **short))
    assert on_a100.batch == 256 and any("engine batch cap 256 (the vllm default)" in a for a in on_a100.assumptions)
    capped = estimate_inference(h100, 1, model, _workload(engine="vllm", max_num_seqs=32, **short))
    assert capped.batch == 32 and capped.output_tokens_per_s < vllm.output_tokens_per_s
    assert any("cap 32 (max_num_seqs)" in a for a in capped.assumptions)
    raised = estimate_inference(a100, 1, model, _workload(engine="vllm", max_num_seqs=1024, **short))
    assert raised.batch > 256


def test_a_fixed_batch_above_max_num_seqs_is_refused_naming_batch():
    # before: batch 100 with max_num_seqs 64 answered batch 100, "held at the engine batch cap 64"
    with pytest.raises(ValueError, match="batch 100 is above max_num_seqs 64"):
        _workload(scenario="fixed_batch", batch=100, max_num_seqs=64)
    assert _workload(scenario="fixed_batch", batch=64, max_num_seqs=64).batch == 64


def test_a_fixed_batch_over_the_engine_default_cap_is_not_said_to_be_held_by_it():
    # llama.cpp's default --parallel is 4: a fixed batch of 8 runs 8, and no cap is claimed to hold it
    est = estimate_inference(
        GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], _workload(engine="llamacpp", scenario="fixed_batch", batch=8)
    )
    assert est.batch == 8
    assert "held at" not in est.reason and not any("engine batch cap" in a for a in est.assumptions)


def test_vllm_defaults_follow_the_gpu_as_its_engine_args_do():
    from app.scoring.efficiency.inference import engine_defaults

    assert engine_defaults("vllm", GPUS["H100-SXM"]) == (1024, 8192)
    assert engine_defaults("vllm", GPUS["MI300X"]) == (1024, 8192)
    assert engine_defaults("vllm", GPUS["A100-SXM-80GB"]) == (256, 2048)  # an A100 is kept small (vLLM #17885)
    assert engine_defaults("vllm", GPUS["L40S"]) == (256, 2048)  # under 70 GiB
    assert engine_defaults("trtllm", GPUS["L40S"]) == (2048, 8192) and engine_defaults("sglang", GPUS["H100-SXM"]) == (
        2048,
        None,
    )


def test_inference_band_names_its_leave_one_source_out_evidence():
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], _workload(engine="trtllm"))
    assert any(
        "leave-one-source-out residuals (output tokens/s per GPU, TensorRT-LLM on NVIDIA, 16-bit, dense)" in a
        for a in est.assumptions
    )


def test_moe_prefill_pays_eager_host_time_in_pytorch_engines_only():
    def estimate(model_id: str, engine: str):  # type: ignore[no-untyped-def]
        w = InferenceWorkload(model=model_id, weight_dtype="fp8", engine=engine, scenario="single_stream")
        return estimate_inference(GPUS["H200"], 8, MODELS[model_id], w)

    def host(est) -> float:  # type: ignore[no-untyped-def]
        return next((t.value for t in est.terms if t.name == "prefill MoE host time"), 0.0)

    layers = MODELS["deepseek-r1"].moe_layers  # 58: the first 3 of 61 layers are dense
    sglang, trtllm = estimate("deepseek-r1", "sglang"), estimate("deepseek-r1", "trtllm")
    # TensorRT-LLM's default since 1.0 is its PyTorch backend: eager prefill, as SGLang's; llama.cpp is compiled
    assert host(sglang) == host(trtllm) == pytest.approx(DEFAULT_EFFICIENCY.moe_prefill_layer_ms * layers)
    assert host(estimate("mixtral-8x7b", "llamacpp")) == 0.0
    assert host(estimate("llama-3.1-70b", "sglang")) == 0.0  # dense models run no routing or grouped GEMMs
    # TensorRT-LLM's TensorRT engine flow (its default before 1.0, as the older public rows ran it) is compiled
    ctx = build_context(GPUS["H200"], MODELS["deepseek-r1"], "fp8", "fp8", "trtllm", 8)
    assert moe_prefill_ms(ctx, DEFAULT_EFFICIENCY) > 0.0
    assert moe_prefill_ms(replace(ctx, compiled_prefill=True), DEFAULT_EFFICIENCY) == 0.0


def test_routed_experts_do_not_take_the_dense_tensor_parallel_mbu_penalty():
    from app.scoring.efficiency.inference import MAX_MBU
    from app.scoring.inference.step.efficiency_factors import mbu

    ctx = build_context(GPUS["H200"], MODELS["deepseek-r1"], "fp8", "fp8", "vllm", 8)
    assert mbu(ctx, DEFAULT_EFFICIENCY, tp_penalty=False) == pytest.approx(
        mbu(ctx, DEFAULT_EFFICIENCY) * 8**DEFAULT_EFFICIENCY.mbu_tp_exponent
    )
    assert mbu(ctx, DEFAULT_EFFICIENCY, tp_penalty=False) < MAX_MBU  # below the ceiling: the exact product


def test_llamacpp_gets_the_fp16_accumulate_peak_on_geforce_cards_only():
    def peak(gpu_id: str, engine: str) -> float:
        return build_context(GPUS[gpu_id], MODELS["llama-2-7b"], "fp16", "fp16", engine, 1).peak_tflops

    assert peak("RTX-4090", "llamacpp") == 2 * GPUS["RTX-4090"].bf16_tflops  # 330.3: FP16 accumulate
    assert peak("RTX-4090", "vllm") == GPUS["RTX-4090"].bf16_tflops  # FP32 accumulate: half rate on GeForce
    assert peak("RTX-6000-ADA", "llamacpp") == GPUS["RTX-6000-ADA"].bf16_tflops  # pro card: full rate either way


def test_rocm_streaming_and_matmul_factors_scale_their_own_side_only():
    from app.scoring.inference.step.efficiency_factors import mbu, mfu

    mi300x = build_context(GPUS["MI300X"], MODELS["llama-3-70b"], "fp16", "fp16", "vllm", 1)
    h100 = build_context(GPUS["H100-SXM"], MODELS["llama-3-70b"], "fp16", "fp16", "vllm", 1)
    streaming, matmul = replace(DEFAULT_EFFICIENCY, amd_mbu_factor=0.8), replace(DEFAULT_EFFICIENCY, amd_mfu_factor=0.8)
    assert mbu(mi300x, streaming) == pytest.approx(
        mbu(mi300x, DEFAULT_EFFICIENCY) * 0.8 / DEFAULT_EFFICIENCY.amd_mbu_factor
    )
    assert mfu(mi300x, streaming) == mfu(mi300x, DEFAULT_EFFICIENCY)
    assert mfu(mi300x, matmul) == pytest.approx(
        mfu(mi300x, DEFAULT_EFFICIENCY) * 0.8 / DEFAULT_EFFICIENCY.amd_mfu_factor
    )
    assert mbu(mi300x, matmul) == mbu(mi300x, DEFAULT_EFFICIENCY)
    assert mbu(h100, streaming) == mbu(h100, DEFAULT_EFFICIENCY) and mfu(h100, matmul) == mfu(h100, DEFAULT_EFFICIENCY)


def test_vllm_pays_host_time_for_each_running_sequence_on_top_of_the_shared_overheads():
    """vLLM's Python scheduler, sampler and detokeniser add a per-sequence host time to every step (BLIS: 46 us
    per output token on vLLM v0.15.1): it grows with the batch, and TensorRT-LLM and SGLang do not pay it."""
    from app.scoring.inference.step.host_overheads import overhead_ms

    def step_overhead_ms(engine: str, batch: float) -> float:
        ctx = build_context(GPUS["H100-SXM"], MODELS["llama-3.1-8b"], "bf16", "bf16", engine, 1)
        return overhead_ms(ctx, DEFAULT_EFFICIENCY, batch)

    extra = DEFAULT_EFFICIENCY.vllm_seq_overhead_ms
    assert extra == pytest.approx(0.046)
    for batch in (1, 64, 256):
        assert step_overhead_ms("vllm", batch) - step_overhead_ms("trtllm", batch) == pytest.approx(batch * extra)
        assert step_overhead_ms("sglang", batch) == pytest.approx(step_overhead_ms("trtllm", batch))
    w = InferenceWorkload(model="llama-3.1-8b", engine="vllm", scenario="fixed_batch", batch=128)
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], w)
    term = next(t for t in est.terms if t.name == "launch and host overheads")
    assert "vLLM's Python scheduler" in term.detail


def test_no_card_streams_above_the_mbu_ceiling_and_the_term_says_when_it_is_capped():
    from app.scoring.efficiency.inference import MAX_MBU
    from app.scoring.inference.step.efficiency_factors import mbu

    gpus, models = load_gpu_specs(), load_model_specs()
    workload = InferenceWorkload(model="llama-3.1-8b", engine="trtllm", input_len=512, output_len=256)
    eager = replace(DEFAULT_EFFICIENCY, decode_mbu=MAX_MBU, gddr_mbu_factor=1.5)
    for gpu_id, capped in (("L40S", True), ("H100-SXM", False)):  # GDDR6 past the ceiling; HBM3 at it
        ctx = build_context(gpus[gpu_id], models["llama-3.1-8b"], "bf16", "bf16", "trtllm", 1)
        assert mbu(ctx, eager) == pytest.approx(MAX_MBU)
        estimate = estimate_inference(gpus[gpu_id], 1, models["llama-3.1-8b"], workload, efficiency=eager)
        memory = next(t for t in estimate.terms if t.name == "decode memory time")
        assert ("capped at 0.9" in memory.detail) is capped, memory.detail


@pytest.mark.parametrize("gpu_count", [1, 2, 4, 8])
def test_a_missed_limit_is_one_the_numbers_given_miss(gpu_count):
    """The reason quotes the batch-1 point the check used: its p99 TTFT is over the limit or its mean TPOT over
    the target (a 32k prompt on B200s once said 976 ms against a 1,000 ms limit, quoting one stream's TTFT)."""
    w = _workload(
        scenario="latency_bound", weight_dtype="fp8", input_len=32000, output_len=1000, ttft_ms=900, tpot_ms=40
    )  # 8 B200s' lone 32k prompt sits at ~1,000 ms p99: 900 keeps every count clear of the limit's edge
    est = estimate_inference(GPUS["B200"], gpu_count, MODELS["llama-3.1-70b"], w)
    assert not est.feasible and "even one request misses the limits" in est.reason
    ttft = float(est.reason.split("p99 TTFT ")[1].split(" ms")[0].replace(",", ""))
    tpot = float(est.reason.split("mean TPOT ")[1].split(" ms")[0])
    target = float(est.reason.split("(target ")[1].split(":")[0])
    assert ttft > 900 or tpot > target
