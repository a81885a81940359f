"""Per-MoE-layer costs are charged on the layers with routed experts only (ModelSpec.moe_layers): Llama 4 Maverick's
24 of 48, DeepSeek-R1's 58 of 61; a model with experts on every layer, or a spec that does not say, as before."""

import math
from dataclasses import replace

import pytest
from pydantic import ValidationError

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY as EFF
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as TRAIN_EFF
from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.efficiency_factors import mfu_factors
from app.scoring.inference.step.host_overheads import moe_prefill_ms
from app.scoring.training.step.flops import routed_expert_params
from app.scoring.training.step.mfu import effective_mfu
from app.scoring.training.step.terms import matmul_efficiency_factors
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from tests.scoring.test_hf_config import DEEPSEEK_V3, QWEN3_235B
from tests.test_rank_api import MAVERICK_SHAPE

GPUS = load_gpu_specs()
MODELS = load_model_specs()
MAVERICK, R1 = MODELS["llama-4-maverick"], MODELS["deepseek-r1"]


def test_a_spec_that_does_not_say_counts_every_layer_of_a_moe_and_none_of_a_dense_model():
    assert replace(MAVERICK, moe_layers=0).moe_layers == 48
    assert MODELS["llama-3.1-8b"].moe_layers == 0 and MODELS["llama-3.1-8b"].dense_ffn_layers == 32


def test_a_pasted_config_counts_its_moe_layers():
    assert model_spec_from_hf_config(DEEPSEEK_V3).moe_layers == 58  # first_k_dense_replace 3
    assert model_spec_from_hf_config({**DEEPSEEK_V3, "first_k_dense_replace": 1}).moe_layers == 60  # Kimi K2's
    assert model_spec_from_hf_config(QWEN3_235B).moe_layers == 94  # every layer
    interleaved = {**QWEN3_235B, "num_hidden_layers": 48, "interleave_moe_layer_step": 2}  # Maverick's schedule
    del interleaved["decoder_sparse_step"]
    assert model_spec_from_hf_config(interleaved).moe_layers == 24


def test_maverick_pays_the_moe_prefill_host_time_on_its_24_moe_layers_half_the_all_layer_charge():
    ctx = build_context(GPUS["H100-SXM"], MAVERICK, "fp8", "fp8", "vllm", 8)
    every_layer = build_context(GPUS["H100-SXM"], replace(MAVERICK, moe_layers=48), "fp8", "fp8", "vllm", 8)
    assert moe_prefill_ms(ctx, EFF) == pytest.approx(24 * EFF.moe_prefill_layer_ms)
    assert moe_prefill_ms(ctx, EFF) == pytest.approx(moe_prefill_ms(every_layer, EFF) / 2)
    w = InferenceWorkload(model="llama-4-maverick", weight_dtype="fp8", engine="vllm", tpot_ms=50)
    estimate = estimate_inference(GPUS["H100-SXM"], 8, MAVERICK, w)
    [term] = [t for t in estimate.terms if t.name == "prefill MoE host time"]
    assert term.detail.startswith("24 MoE layers × ") and "the other 24 of the 48 layers are dense" in term.detail
    assert term.value == pytest.approx(24 * EFF.moe_prefill_layer_ms)


def test_r1_under_pipeline_parallelism_pays_29_moe_layers_a_stage():
    ctx = build_context(GPUS["H100-SXM"], R1, "fp8", "fp8", "sglang", 8, pipeline_parallel=2)
    assert moe_prefill_ms(ctx, EFF) == pytest.approx(29 * EFF.moe_prefill_layer_ms)


def test_the_moe_matmul_factor_falls_on_the_moe_layers_share_only():
    maverick = dict(mfu_factors(build_context(GPUS["H100-SXM"], MAVERICK, "fp8", "fp8", "vllm", 8), EFF))
    assert maverick["MoE"] == pytest.approx(1 - (1 - EFF.moe_mfu_factor) / 2)
    qwen = dict(mfu_factors(build_context(GPUS["H100-SXM"], MODELS["qwen3-235b-a22b"], "fp8", "fp8", "vllm", 8), EFF))
    assert qwen["MoE"] == EFF.moe_mfu_factor  # every layer MoE: the fitted factor as it is
    dense = dict(mfu_factors(build_context(GPUS["H100-SXM"], MODELS["llama-3.1-8b"], "bf16", "bf16", "vllm", 1), EFF))
    assert "MoE" not in dense


def test_training_takes_the_moe_matmul_factor_on_deepseek_v3s_58_moe_layers_of_61_only():
    v3, gpu = MODELS["deepseek-v3"], GPUS["H100-SXM"]
    share_weighted = 1 - (1 - TRAIN_EFF.moe_factor) * 58 / 61  # the 3 dense layers at 1
    every_layer = effective_mfu(TRAIN_EFF, gpu, 256, replace(v3, moe_layers=61), "pretrain", "megatron", "bf16")
    ours = effective_mfu(TRAIN_EFF, gpu, 256, v3, "pretrain", "megatron", "bf16")
    assert ours == pytest.approx(every_layer / TRAIN_EFF.moe_factor * share_weighted)
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", framework="megatron", max_gpus=256)
    factors = dict(matmul_efficiency_factors(gpu, 256, v3, w, "bf16", TRAIN_EFF))
    assert factors["MoE"] == pytest.approx(share_weighted) == pytest.approx(0.6)  # the research's whole-model reading


def test_training_and_inference_spread_the_moe_factor_over_the_same_share_of_maverick():
    w = TrainingWorkload(model="llama-4-maverick", method="pretrain", max_gpus=64)
    training = dict(matmul_efficiency_factors(GPUS["H100-SXM"], 64, MAVERICK, w, "bf16", TRAIN_EFF))["MoE"]
    inference = dict(mfu_factors(build_context(GPUS["H100-SXM"], MAVERICK, "fp8", "fp8", "vllm", 8), EFF))["MoE"]
    assert training == pytest.approx(1 - (1 - TRAIN_EFF.moe_factor) / 2)  # 24 of 48 layers
    assert (1 - training) / (1 - TRAIN_EFF.moe_factor) == pytest.approx((1 - inference) / (1 - EFF.moe_mfu_factor))


def test_a_dense_models_training_efficiency_has_no_moe_discount():
    llama, gpu = MODELS["llama-3.1-8b"], GPUS["H100-SXM"]
    w = TrainingWorkload(model="llama-3.1-8b", method="pretrain", max_gpus=8)
    factors = dict(matmul_efficiency_factors(gpu, 8, llama, w, "bf16", TRAIN_EFF))
    assert factors["MoE"] == 1.0
    mfu = effective_mfu(TRAIN_EFF, gpu, 8, llama, "pretrain", "auto", "bf16")
    assert mfu == pytest.approx(min(1.0, math.prod(v for k, v in factors.items() if k != "MoE")))


def test_training_counts_routed_experts_on_the_moe_layers():
    assert routed_expert_params(R1) == pytest.approx(routed_expert_params(replace(R1, moe_layers=61)) * 58 / 61)


ARCH = {k: v for k, v in MAVERICK_SHAPE.items() if k != "active_params_b"}  # Llama 4 Maverick, as typed


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"moe_layers": 49}, "more than the model's 48 layers"),
        ({"moe_layers": 0}, "at least 1 MoE layer"),
        ({"num_experts": 0, "experts_per_token": 0, "moe_layers": 24}, "need routed experts"),
    ],
)
def test_a_typed_moe_layer_count_outside_the_layers_is_refused_naming_the_field(values: dict, words: str):
    with pytest.raises(ValidationError) as caught:
        ModelArchitecture.model_validate({**ARCH, **values})
    [error] = [e for e in caught.value.errors() if e["loc"] == ("moe_layers",)]
    assert words in error["msg"]


def test_a_typed_count_passes_the_parameter_check_that_every_layer_would_fail_by_half():
    assert ModelArchitecture.model_validate({**ARCH, "moe_layers": 24}).moe_layers == 24
    assert ModelArchitecture.model_validate(ARCH).moe_layers is None  # blank: every layer
