"""A pasted config.json's quantization_config gives the release precision, as the checkpoints on the Hub write it."""

from __future__ import annotations

from typing import Any

import pytest

from app.scoring.hf_config import model_spec_from_hf_config
from app.scoring.hf_quantization import read_quantization
from app.scoring.inference.release_precision import release_weights
from app.scoring.workload import InferenceWorkload
from tests.scoring.test_hf_config import DEEPSEEK_V3, GPT_OSS_120B, LLAMA_31_8B

# deepseek-ai/DeepSeek-V3 config.json
DEEPSEEK_V3_FP8 = {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [128, 128],
}
# openai/gpt-oss-120b config.json
GPT_OSS_MXFP4 = {
    "modules_to_not_convert": [
        "model.layers.*.self_attn",
        "model.layers.*.mlp.router",
        "model.embed_tokens",
        "lm_head",
    ],
    "quant_method": "mxfp4",
}


def _compressed(bits: int, kind: str, fmt: str, **weights: Any) -> dict[str, Any]:
    """llm-compressor's compressed-tensors block (RedHatAI/*-FP8-dynamic, *-quantized.w4a16, *-NVFP4)."""
    group = {
        "targets": ["Linear"],
        "weights": {"num_bits": bits, "type": kind, "symmetric": True, "dynamic": False, **weights},
        "input_activations": None,
        "output_activations": None,
    }
    return {
        "config_groups": {"group_0": group},
        "format": fmt,
        "ignore": ["lm_head"],
        "kv_cache_scheme": None,
        "quant_method": "compressed-tensors",
        "quantization_status": "compressed",
    }


# nvidia/Llama-3.1-8B-Instruct-FP8 and nvidia/DeepSeek-R1-FP4 (ModelOpt)
MODELOPT_FP8 = {
    "quant_algo": "FP8",
    "kv_cache_quant_algo": "FP8",
    "exclude_modules": ["lm_head"],
    "quant_method": "modelopt",
}
MODELOPT_NVFP4 = {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"], "quant_method": "modelopt"}
AWQ = {
    "bits": 4,
    "group_size": 128,
    "modules_to_not_convert": None,
    "quant_method": "awq",
    "version": "gemm",
    "zero_point": True,
}
GPTQ = {"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": False, "sym": True, "quant_method": "gptq"}
BITSANDBYTES = {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}


@pytest.mark.parametrize(
    ("block", "precision", "words"),
    [
        (DEEPSEEK_V3_FP8, "fp8", "quant_method fp8"),
        (GPT_OSS_MXFP4, "mxfp4", "quant_method mxfp4"),
        (_compressed(8, "float", "float-quantized", strategy="channel"), "fp8", "weights 8-bit float"),
        (_compressed(4, "int", "pack-quantized", strategy="group", group_size=128), "int4", "weights 4-bit int"),
        (_compressed(4, "float", "nvfp4-pack-quantized", strategy="tensor_group", group_size=16), "fp4", "4-bit float"),
        (_compressed(8, "int", "int-quantized", strategy="channel"), "int8", "weights 8-bit int"),
        (MODELOPT_FP8, "fp8", "quant_method modelopt, quant_algo FP8"),
        (MODELOPT_NVFP4, "fp4", "quant_algo NVFP4"),
        (AWQ, "int4", "quant_method awq, bits 4"),
        (GPTQ, "int4", "quant_method gptq, bits 4"),
        ({**GPTQ, "bits": 8}, "int8", "bits 8"),
        ({**GPTQ, "bits": 3}, "unknown", "bits 3"),
        (BITSANDBYTES, "unknown", "quant_method bitsandbytes"),
    ],
)
def test_quantization_config_gives_the_release_precision(block: dict[str, Any], precision: str, words: str) -> None:
    read = read_quantization({**LLAMA_31_8B, "quantization_config": block})
    assert read is not None and read.release_precision == precision and words in read.words


def test_a_config_without_quantization_config_has_no_reading() -> None:
    assert read_quantization(LLAMA_31_8B) is None
    assert model_spec_from_hf_config(LLAMA_31_8B).release_precision == "unknown"


def test_deepseek_v3_pasted_ranks_its_fp8_release_and_says_where_that_was_read() -> None:
    spec = model_spec_from_hf_config({**DEEPSEEK_V3, "quantization_config": DEEPSEEK_V3_FP8})
    workload, weights = release_weights(InferenceWorkload(model="custom"), spec)
    assert workload.weight_dtype == "fp8" and weights.from_release and not weights.release.assumed
    assert weights.note == (
        "Weights as released: FP8 (config.json quantization_config: quant_method fp8); "
        "set weight_dtype to rank another."
    )


def test_gpt_oss_pasted_ranks_mxfp4_as_4_bit_weight_only() -> None:
    spec = model_spec_from_hf_config({**GPT_OSS_120B, "quantization_config": GPT_OSS_MXFP4})
    workload, weights = release_weights(InferenceWorkload(model="custom"), spec)
    assert workload.weight_dtype == "int4" and "MXFP4 MoE weights" in weights.note


def test_a_quant_method_not_read_is_named_and_bf16_kept() -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": BITSANDBYTES})
    workload, weights = release_weights(InferenceWorkload(model="custom"), spec)
    assert workload.weight_dtype == "bf16" and weights.release.assumed
    assert weights.note == (
        "Weights BF16, assumed: config.json quantization_config: quant_method bitsandbytes is a format not read; "
        "set weight_dtype to rank another."
    )


def test_a_weight_dtype_asked_beside_a_quantized_config_wins_and_names_the_release() -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": AWQ})
    workload, weights = release_weights(InferenceWorkload(model="custom", weight_dtype="bf16"), spec)
    assert workload.weight_dtype == "bf16"
    assert "released in INT4 W4A16 (config.json quantization_config: quant_method awq, bits 4)" in weights.note
