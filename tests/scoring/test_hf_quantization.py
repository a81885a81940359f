"""A pasted config.json's quantization_config gives the release precision, as the checkpoints on the Hub write it."""

from __future__ import annotations

from typing import Any

import pytest

from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.hf_config.quantization import read_quantization
from app.scoring.inference.ranking.release_precision import release_weights
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


def _with_activations(block: dict[str, Any], bits: int, kind: str) -> dict[str, Any]:
    """The block with each group's input_activations quantised, dynamic per token, as llm-compressor's W8A8 and
    FP8-dynamic schemes write them."""
    scheme = {"num_bits": bits, "type": kind, "symmetric": True, "dynamic": True, "strategy": "token"}
    groups = {name: {**group, "input_activations": scheme} for name, group in block["config_groups"].items()}
    return {**block, "config_groups": groups}


# RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8 (llm-compressor): INT8 weights per channel, INT8 activations
# per token; its quantized.w8a16 sibling writes the same weights with input_activations null (_compressed's).
W8A8 = _with_activations(_compressed(8, "int", "int-quantized", strategy="channel"), 8, "int")
W8A16 = _compressed(8, "int", "pack-quantized", strategy="channel")
READ_W8A8 = "quant_method compressed-tensors, weights 8-bit int, input_activations 8-bit int"


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
        (W8A8, "int8_w8a8", READ_W8A8),
        (W8A16, "int8", "quant_method compressed-tensors, weights 8-bit int"),
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


def test_w8a16_words_name_no_activations() -> None:
    """A W8A16 config reads as before, word for word: no input_activations to name."""
    read = read_quantization({**LLAMA_31_8B, "quantization_config": W8A16})
    assert read is not None and read.words == "quant_method compressed-tensors, weights 8-bit int"


def test_fp8_dynamic_activations_keep_the_fp8_reading_and_words() -> None:
    """RedHatAI *-FP8-dynamic writes float-8 input_activations: still FP8 (already W8A8), its words as before."""
    block = _with_activations(_compressed(8, "float", "float-quantized", strategy="channel"), 8, "float")
    read = read_quantization({**LLAMA_31_8B, "quantization_config": block})
    assert read is not None and read.release_precision == "fp8"
    assert read.words == "quant_method compressed-tensors, weights 8-bit float"


def test_int8_activations_in_only_some_groups_stay_weight_only() -> None:
    """W8A8 only where every group multiplies INT8 activations; a group without them runs W8A16."""
    block = {**W8A8, "config_groups": {**W8A8["config_groups"], "group_1": W8A16["config_groups"]["group_0"]}}
    read = read_quantization({**LLAMA_31_8B, "quantization_config": block})
    assert read is not None and read.release_precision == "int8"


def test_int4_weights_with_int8_activations_stay_int4() -> None:
    """W4A8 has no dtype of its own: its 4-bit weights read INT4 W4A16, as before."""
    block = _with_activations(_compressed(4, "int", "pack-quantized", strategy="group", group_size=128), 8, "int")
    read = read_quantization({**LLAMA_31_8B, "quantization_config": block})
    assert read is not None and read.release_precision == "int4" and "activations" not in read.words


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_a_w8a8_config_ranks_int8_w8a8_where_the_engine_runs_it(engine: str) -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": W8A8})
    assert spec.release_precision == "int8_w8a8"
    workload, weights = release_weights(InferenceWorkload(model="custom", engine=engine), spec)
    assert workload.weight_dtype == "int8_w8a8" and weights.from_release and not weights.engine_lacks
    assert weights.note == (
        f"Weights as released: INT8 W8A8 (config.json quantization_config: {READ_W8A8}); "
        "set weight_dtype to rank another."
    )


@pytest.mark.parametrize("engine", ["llamacpp", "hf"])
def test_a_w8a8_release_on_an_engine_without_w8a8_ranks_w8a16_and_says_why(engine: str) -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": W8A8})
    workload, weights = release_weights(InferenceWorkload(model="custom", engine=engine), spec)
    assert workload.weight_dtype == "int8" and weights.dtype == "int8" and weights.from_release
    assert weights.note.startswith("Weights INT8 weight-only (W8A16): the model is released in INT8 W8A8 (")
    assert f"but engine {engine} runs no INT8 W8A8 (" in weights.note
    assert "set engine vllm, sglang or trtllm to rank the release" in weights.note
    # the answered workload is one the validators accept: its canonical query reopens
    InferenceWorkload.model_validate(workload.model_dump(exclude_unset=True))


def test_a_dtype_asked_beside_a_w8a8_release_on_llamacpp_names_what_the_engine_lacks() -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": W8A8})
    workload, weights = release_weights(InferenceWorkload(model="custom", engine="llamacpp", weight_dtype="bf16"), spec)
    assert workload.weight_dtype == "bf16" and weights.given
    assert weights.note.startswith("Weights BF16, as asked; the model is released in INT8 W8A8 (")
    assert "and engine llamacpp runs no INT8 W8A8" in weights.note and "leave weight_dtype unset" not in weights.note


def test_a_w8a16_config_ranks_int8_weight_only_on_every_engine() -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": W8A16})
    for engine in ("vllm", "llamacpp"):
        workload, weights = release_weights(InferenceWorkload(model="custom", engine=engine), spec)
        assert workload.weight_dtype == "int8" and not weights.engine_lacks
        assert weights.note.startswith("Weights as released: INT8 (")
