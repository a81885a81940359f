"""Hand-checked numbers and invariants of the training estimator."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import min_gpus_to_fit
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.training.step.flops import model_flops_per_token
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def workload(**kw):
    base = dict(model="llama-3.1-8b", method="pretrain", seq_len=4096, global_batch_seqs=64)
    return TrainingWorkload(**{**base, **kw})


def test_flops_per_token_llama_3_1_8b_at_4096():
    # 6 × 8.03e9 + 12 × 32 layers × (32 heads × 128) × 4096 = 4.818e10 + 6.442e9
    assert model_flops_per_token(MODELS["llama-3.1-8b"], "pretrain", 4096) == pytest.approx(5.4622e10, rel=1e-4)
    # LoRA: 4 × N instead of 6 × N
    assert model_flops_per_token(MODELS["llama-3.1-8b"], "lora", 4096) == pytest.approx(3.8562e10, rel=1e-4)


def test_model_state_bytes_mixed_adamw_and_zero3():
    model = MODELS["llama-3.1-8b"]
    assert model_state_bytes(model, "full_ft", Layout(zero_stage=0), 1, 16) == pytest.approx(8.03e9 * 16)
    assert model_state_bytes(model, "full_ft", Layout(zero_stage=3), 8, 16) == pytest.approx(8.03e9 * 16 / 8)
    assert model_state_bytes(model, "full_ft", Layout(zero_stage=1), 8, 16) == pytest.approx(8.03e9 * (4 + 12 / 8))


def test_lora_uses_less_memory_than_full_ft():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    layout = Layout(zero_stage=3, recompute="full")
    lora = estimate_training(gpu, 8, model, workload(method="lora"), layout=layout)
    full = estimate_training(gpu, 8, model, workload(method="full_ft"), layout=layout)
    assert lora.memory_per_gpu_gb < full.memory_per_gpu_gb
    qlora = estimate_training(gpu, 1, model, workload(method="qlora", seq_len=1024), layout=Layout(0, recompute="full"))
    lora1 = estimate_training(gpu, 1, model, workload(method="lora", seq_len=1024), layout=Layout(0, recompute="full"))
    assert qlora.memory_breakdown_gb["model_states"] < lora1.memory_breakdown_gb["model_states"]


def test_an_unfused_loss_holds_twice_the_logits_of_a_fused_one():
    """At the start of the loss's backward an unfused cross-entropy holds 12 B per logit (measured on an H200:
    docs/measurements/h200-2026-12-04-train-step.json); Megatron's fused and torchtune's chunked losses ~6 B. An
    8B model's 128k vocabulary at 16k tokens is then 25 GB of logits against 13 GB, and the stack decides a fit."""
    from app.scoring.training.layouts.memory import logits_bytes

    model, layout = MODELS["llama-3.1-8b"], Layout(0, 1, 1, "full", 1)
    elements = 16384 * model.vocab_size
    assert logits_bytes(model, 16384, layout, "hf") == pytest.approx(12 * elements)
    assert logits_bytes(model, 16384, layout, "auto") == pytest.approx(12 * elements)
    for fused in ("megatron", "nemo", "llm-foundry", "pytorch"):
        assert logits_bytes(model, 16384, layout, fused) == pytest.approx(6 * elements)
    hf = estimate_training(GPUS["H100-SXM"], 1, model, workload(method="lora", seq_len=16384, framework="hf"))
    tuned = estimate_training(GPUS["H100-SXM"], 1, model, workload(method="lora", seq_len=16384, framework="pytorch"))
    assert hf.memory_breakdown_gb["logits"] == pytest.approx(2 * tuned.memory_breakdown_gb["logits"])
    assert hf.memory_per_gpu_gb > tuned.memory_per_gpu_gb
    assert any(a.startswith("unfused loss") and "12 bytes per token" in a for a in hf.assumptions)
    assert any(a.startswith("fused or chunked loss") and "6 bytes per token" in a for a in tuned.assumptions)


def test_more_gpus_never_raise_zero3_model_states():
    model = MODELS["llama-3.1-70b"]
    previous = float("inf")
    for n in (1, 2, 4, 8, 16, 32, 64, 128):
        states = model_state_bytes(model, "full_ft", Layout(zero_stage=3), n, 16)
        assert states <= previous
        previous = states


def test_70b_full_ft_does_not_fit_one_80gb_gpu():
    est = estimate_training(
        GPUS["H100-SXM"], 1, MODELS["llama-3.1-70b"], workload(model="llama-3.1-70b", method="full_ft")
    )
    assert not est.feasible and not est.fits
    assert "GB of model states" in est.reason and "H100-SXM" in est.reason and "80 GB" in est.reason
    n = min_gpus_to_fit(GPUS["H100-SXM"], MODELS["llama-3.1-70b"], workload(model="llama-3.1-70b", method="full_ft"))
    assert n is not None and 8 <= n <= 32


def test_estimate_is_complete_and_feasible():
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], workload())
    assert est.feasible and est.tokens_per_s_per_gpu > 0 and est.step_time_s > 0
    assert est.band.low < est.tokens_per_s_per_gpu < est.band.high
    assert est.terms and est.assumptions and est.layout_text
    expected_step = 64 * 4096 / (8 * est.tokens_per_s_per_gpu)
    assert est.step_time_s == pytest.approx(expected_step)


@pytest.mark.parametrize("gpu_id", ["A100-SXM-80GB", "H100-SXM", "H200", "B200", "L40S", "MI300X", "RTX-4090", "T4"])
@pytest.mark.parametrize("model_id", ["mpt-125m", "llama-3.1-8b", "llama-3.1-70b"])
@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_never_faster_than_peak(gpu_id, model_id, precision):
    w = workload(model=model_id, precision=precision, seq_len=2048, global_batch_seqs=512)
    for n in (1, 8, 64):
        est = estimate_training(GPUS[gpu_id], n, MODELS[model_id], w, layout=Layout(zero_stage=3 if n > 1 else 0))
        assert 0 <= est.mfu <= 1.0


def test_fp8_uses_fp8_peak_and_falls_back_where_missing():
    w = workload(precision="fp8")
    h100 = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], w)
    assert any(t.name == "dense peak" and t.value == GPUS["H100-SXM"].fp8_tflops for t in h100.terms)
    a100 = estimate_training(GPUS["A100-SXM-80GB"], 8, MODELS["llama-3.1-8b"], w)
    assert any("FP8" in a for a in a100.assumptions)


def test_fp4_training_runs_the_gemm_share_of_the_fp8_speedup_at_the_fp4_peak():
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
    from app.scoring.training.step.mfu import low_precision_speedup, peak_tflops

    b200, h100, a100 = GPUS["B200"], GPUS["H100-SXM"], GPUS["A100-SXM-80GB"]
    assert peak_tflops(b200, "fp4")[:2] == (b200.fp4_tflops, "fp4")
    assert peak_tflops(h100, "fp4")[:2] == (h100.fp8_tflops, "fp8")  # no FP4 tensor cores: FP8
    assert peak_tflops(a100, "fp4")[:2] == (a100.bf16_tflops, "16")
    # Amdahl by hand on B200: FP8 s = 1.7 at r8 = 2 -> GEMMs p = (1 - 1/1.7) / (1 - 1/2) of the BF16 time;
    # FP4 at r4 = FP4 / BF16 peak on 85 % of them, BF16 on the 15 % the NVFP4 recipe keeps
    s, r8, r4 = E.fp8_speedup, b200.fp8_tflops / b200.bf16_tflops, b200.fp4_tflops / b200.bf16_tflops
    p = (1 - 1 / s) / (1 - 1 / r8)
    expected = 1 / ((1 - p) + p * (E.fp4_bf16_linear_share + (1 - E.fp4_bf16_linear_share) / r4))
    assert low_precision_speedup(E, "megatron", "fp4", b200) == pytest.approx(expected)
    assert s < expected < s * r4 / r8  # faster than FP8, slower than the peaks' ratio
    assert low_precision_speedup(E, "megatron", "fp8", b200) == s == low_precision_speedup(E, "nemo", "fp8", h100)
    est = {p: estimate_training(b200, 8, MODELS["llama-3.1-8b"], workload(precision=p)) for p in ("fp8", "fp4")}
    ratio = est["fp4"].tokens_per_s_per_gpu / est["fp8"].tokens_per_s_per_gpu
    assert 1.05 < ratio < expected / s + 0.01  # attention and communication do not speed up
    assert any("FP4 training is modelled, not measured" in a for a in est["fp4"].assumptions)
    widths = {p: e.band.high / e.band.low for p, e in est.items()}
    assert widths["fp4"] > widths["fp8"] and est["fp4"].band.high / est["fp4"].tokens_per_s_per_gpu >= 1.6 - 1e-9
    on_h100 = {p: estimate_training(h100, 8, MODELS["llama-3.1-8b"], workload(precision=p)) for p in ("fp8", "fp4")}
    assert on_h100["fp4"].tokens_per_s_per_gpu == on_h100["fp8"].tokens_per_s_per_gpu
    assert on_h100["fp4"].band == on_h100["fp8"].band  # it runs FP8: FP8's evidence, FP8's band


def test_hf_stacks_split_by_data_parallelism_only():
    """HF Trainer / DeepSpeed stacks have no Megatron TP or PP: ZeRO-3 over every GPU, or no fit."""
    from app.scoring.training.ranking.gpu_timer import GpuTimer
    from app.scoring.training.ranking.layout_search import LayoutSearch

    w = workload(model="llama-3.1-70b", framework="hf", global_batch_seqs=64)
    for gpu_id in ("H100-SXM", "A100-SXM-80GB"):
        est = estimate_training(GPUS[gpu_id], 32, MODELS["llama-3.1-70b"], w)
        assert (est.layout.tensor_parallel, est.layout.pipeline_parallel, est.layout.zero_stage) == (1, 1, 3)
        layout, seconds = GpuTimer(LayoutSearch(MODELS["llama-3.1-70b"], w), GPUS[gpu_id]).best_layout(32)
        assert layout == est.layout and seconds == est.step_time_s  # the ranking sweep agrees
    auto = estimate_training(GPUS["H100-SXM"], 32, MODELS["llama-3.1-70b"], workload(model="llama-3.1-70b"))
    assert auto.layout.tensor_parallel > 1  # a Megatron-class stack may use TP for the same job
    # 405B on 8 GPUs needs 6.5 TB of model states: no data-parallel-only layout fits, and the reason says so
    big = estimate_training(
        GPUS["H100-SXM"], 8, MODELS["llama-3.1-405b"], workload(model="llama-3.1-405b", framework="hf")
    )
    assert not big.feasible and "FSDP ×8" in big.reason


def test_sequence_parallel_divides_activations_and_pays_all_to_alls():
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
    from app.scoring.training.layouts.memory import activation_bytes, logits_bytes
    from app.scoring.training.step.communication import sequence_parallel_seconds

    model, gpu = MODELS["llama-3.1-8b"], GPUS["H100-SXM"]
    one, four = Layout(3, 1, 1, "full", 1), Layout(3, 1, 1, "full", 1, sequence_parallel=4)
    assert activation_bytes(model, 65536, four, E) == pytest.approx(activation_bytes(model, 65536, one, E) / 4)
    assert logits_bytes(model, 65536, four) == pytest.approx(logits_bytes(model, 65536, one) / 4)
    assert sequence_parallel_seconds(E, gpu, model, one, 8192, "hf") == 0
    # 32 layers × 3 passes (forward, backward, the recomputed forward) × 2 B × (2·4096 + 2·1024) × 3/4 per token,
    # 8,192 tokens, NVLink at 450 × 0.65 GB/s
    expected = 8192 * 32 * 3 * 2 * (2 * 4096 + 2 * 1024) * 0.75 / (900 / 2 * 0.65 * 1e9)
    assert sequence_parallel_seconds(E, gpu, model, four, 8192, "hf") == pytest.approx(expected)
    # without recompute the forward's all-to-alls run once: 2 passes
    kept = Layout(3, 1, 1, "none", 1, sequence_parallel=4)
    assert sequence_parallel_seconds(E, gpu, model, kept, 8192, "hf") == pytest.approx(expected * 2 / 3)
    assert sequence_parallel_seconds(E, gpu, model, four, 8192, "megatron") == 0  # ring attention overlaps its K/V
    assert "SP4" in four.describe(8, "hf") and "CP4" in four.describe(8)  # auto splits by a ring, as megatron


def test_small_matmuls_saturate_later_on_gpus_with_more_flops_per_byte():
    """The width half-point scales with peak / bandwidth: an H100 (295 TFLOPS per TB/s) needs wider layers than an
    A100-80GB (153) for the same share of its peak; the reference GPU gets the constant as quoted."""
    from dataclasses import replace

    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
    from app.scoring.training.step.mfu import width_factor

    a100, h100 = GPUS["A100-SXM-80GB"], GPUS["H100-SXM"]
    assert width_factor(E, 2048, a100) == pytest.approx(width_factor(E, 2048), rel=0.01)
    ridge = (h100.bf16_tflops / h100.memory_bandwidth_tbs) / (a100.bf16_tflops / a100.memory_bandwidth_tbs)
    assert ridge > 1.8  # 295 against 153 TFLOPS per TB/s
    wider = replace(E, width_half_hidden=E.width_half_hidden * ridge)
    assert width_factor(E, 2048, h100) == pytest.approx(width_factor(wider, 2048, a100), rel=1e-9)
    assert width_factor(E, 2048, h100) < width_factor(E, 2048, a100)
    assert width_factor(E, 16384, h100) > 0.9  # wide layers saturate every GPU


def test_torchtitan_selective_recompute_is_op_level_sac():
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as e
    from app.scoring.training.step.flops import op_sac_recomputed_share, recompute_flops_per_param

    llama = MODELS["llama-3-8b"]
    # every second matmul of q, k, v, o, gate, up, down: k (4.2M), o (16.8M), up (58.7M) of 218M per block
    assert op_sac_recomputed_share(llama) == pytest.approx(79.7 / 218.1, rel=0.01)
    assert recompute_flops_per_param(e, llama, "selective", "torchtitan") == pytest.approx(0.73, abs=0.01)
    assert recompute_flops_per_param(e, llama, "selective", "megatron") == e.selective_recompute_flops_per_param
    assert recompute_flops_per_param(e, llama, "full", "torchtitan") == e.full_recompute_flops_per_param
    assert recompute_flops_per_param(e, llama, "none", "torchtitan") == 0.0


def test_a_torchtitan_selective_step_costs_more_than_a_megatron_one():
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as e
    from app.scoring.training.step.step_time import compute_seconds

    model = MODELS["llama-3-8b"]
    seconds = {
        framework: compute_seconds(e, 8, model, "pretrain", 8192, 8, "selective", 989.5, 0.5, framework=framework)
        for framework in ("torchtitan", "megatron", "auto")
    }
    # same tokens, peak and MFU: the steps differ by the recompute FLOPs alone (dense 48.2 + causal attention 6.4 GF)
    assert seconds["torchtitan"] / seconds["megatron"] == pytest.approx(
        (54.6 + 0.73 * 8.03) / (54.6 + 0.2 * 8.03), rel=0.02
    )
    assert seconds["auto"] == seconds["megatron"]


def test_llm_foundry_runs_flash_attention_2_on_hopper_and_the_others_hopper_native_kernels():
    """LLM Foundry calls the flash-attn 2 package; Megatron/NeMo (TransformerEngine) and the SDPA stacks run cuDNN."""
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as e
    from app.scoring.training.step.mfu import attention_efficiency

    h100, b200, a100 = GPUS["H100-SXM"], GPUS["B200"], GPUS["A100-SXM-80GB"]
    fa2 = e.attn_efficiency * e.attn_fa2_hopper_ratio
    assert attention_efficiency(e, h100, "llm-foundry") == pytest.approx(fa2)
    assert attention_efficiency(e, b200, "llm-foundry") == pytest.approx(fa2)
    for framework in ("megatron", "nemo", "torchtitan", "hf", "pytorch", "auto"):
        assert attention_efficiency(e, h100, framework) == e.attn_efficiency_hopper
    ampere = {attention_efficiency(e, a100, framework) for framework in ("llm-foundry", "megatron")}
    assert ampere == {e.attn_efficiency}


def test_an_llm_foundry_long_sequence_step_on_h100_pays_for_flash_attention_2():
    """MPT-7B at 32k tokens on 8 H100s (LLM Foundry published 3,318 tok/s per GPU): the foundry estimate stays near it,
    a Megatron-class stack with the same layout runs faster only through its attention."""
    w = dict(model="mpt-7b", seq_len=32768, global_batch_seqs=32, max_gpus=8)
    foundry = estimate_training(GPUS["H100-SXM"], 8, MODELS["mpt-7b"], workload(**w, framework="llm-foundry"))
    megatron = estimate_training(
        GPUS["H100-SXM"], 8, MODELS["mpt-7b"], workload(**w, framework="megatron"), layout=foundry.layout
    )
    assert 2500 < foundry.tokens_per_s_per_gpu < 4500
    assert megatron.tokens_per_s_per_gpu > 1.5 * foundry.tokens_per_s_per_gpu


def test_gddr_cards_are_one_regime_apart_from_the_hbm_parts_of_their_generation():
    """A10 and RTX A6000 (GA102) no longer borrow the A100's (GA100) fitted base: they share the GDDR cards' base
    with the RTX 4090 and L40S (AD102) and the RTX 5090 (GB202); HBM parts and older GDDR cards keep their family."""
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as e
    from app.scoring.training.step.mfu import base_mfu, gpu_family

    for gpu_id in ("A10", "RTX-A6000", "RTX-3090", "RTX-4090", "L4", "L40S", "RTX-5090", "RTX-PRO-6000"):
        assert gpu_family(GPUS[gpu_id]) == "gddr", gpu_id
    assert gpu_family(GPUS["A100-SXM-80GB"]) == "ampere" and gpu_family(GPUS["B200"]) == "blackwell"
    assert gpu_family(GPUS["T4"]) == "other"  # Turing
    assert base_mfu(e, "gddr") == e.mfu_gddr_16 != e.mfu_ampere_16


def test_an_a10_does_not_outrun_an_rtx_4090_on_qlora():
    """The reviewer's ranking: Llama-3.1-8B QLoRA at 2,048 tokens on one card. The RTX 4090 has 1.3x the A10's 16-bit
    peak and 1.7x its bandwidth; with one base for both it must come out ahead."""
    w = workload(method="qlora", seq_len=2048, global_batch_seqs=16, max_gpus=1)
    tokens = {
        g: estimate_training(GPUS[g], 1, MODELS["llama-3.1-8b"], w).tokens_per_s_per_gpu for g in ("A10", "RTX-4090")
    }
    assert tokens["RTX-4090"] > 1.2 * tokens["A10"]


@pytest.mark.parametrize("framework", ["megatron", "nemo", "auto", "hf", "llm-foundry", "pytorch"])
def test_megatron_class_selective_keeps_the_flash_attention_count(framework):
    """The per-layer count s·h·(18 + 6·ffn/h) is already Megatron's selective count (flash attention never stores the
    scores selective recompute drops); it was multiplied again by torchtitan's op-level SAC share (0.6) for every
    stack, so a Megatron selective layout claimed 40 % less activation memory than it holds."""
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
    from app.scoring.training.layouts.memory import activation_bytes

    model = MODELS["llama-3.1-70b"]
    none, selective = Layout(1, 8, 1, "none", 1), Layout(1, 8, 1, "selective", 1)
    assert activation_bytes(model, 4096, selective, E, framework) == activation_bytes(model, 4096, none, E, framework)
    titan = activation_bytes(model, 4096, selective, E, "torchtitan")
    assert titan == pytest.approx(E.selective_activation_share * activation_bytes(model, 4096, none, E, "torchtitan"))
