"""A pasted config.json written by NVIDIA ModelOpt (quant_method modelopt) gives its release precision from quant_algo,
TensorRT-LLM's QuantAlgo names; an algo not read stays unknown and is named."""

from __future__ import annotations

from typing import Any

import pytest

from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.hf_config.modelopt_algos import MODELOPT_ALGOS
from app.scoring.hf_config.quantization import MAX_WORDS, read_quantization
from app.scoring.inference.ranking.release_precision import RELEASE_WORDS, release_weights
from app.scoring.workload import InferenceWorkload
from tests.scoring.test_hf_config import LLAMA_31_8B


def modelopt(algo: str) -> dict[str, Any]:
    """config.json's quantization_config as ModelOpt's export writes it (convert_hf_quant_config_format)."""
    return {
        "ignore": ["lm_head"],
        "quant_algo": algo,
        "producer": {"name": "modelopt", "version": "0.47.0"},
        "quant_method": "modelopt",
    }


def _read(block: dict[str, Any]) -> tuple[str, str]:
    read = read_quantization({**LLAMA_31_8B, "quantization_config": block})
    assert read is not None
    return read.release_precision, read.words


@pytest.mark.parametrize(
    ("algo", "precision", "words"),
    [
        ("W8A8_SQ_PER_CHANNEL", "int8_w8a8", "quant_algo W8A8_SQ_PER_CHANNEL: INT8 SmoothQuant W8A8 per channel"),
        ("W8A8_SQ_PER_TENSOR_PLUGIN", "int8_w8a8", "INT8 SmoothQuant W8A8 per tensor"),
        ("W8A8_SQ_PER_CHANNEL_PER_TOKEN_PLUGIN", "int8_w8a8", "INT8 SmoothQuant W8A8"),
        ("W8A8_SQ_PER_CHANNEL_PER_TENSOR_PLUGIN", "int8_w8a8", "INT8 SmoothQuant W8A8"),
        ("W8A8_SQ_PER_TENSOR_PER_TOKEN_PLUGIN", "int8_w8a8", "INT8 SmoothQuant W8A8"),
        ("W8A16", "int8", "quant_algo W8A16: INT8 weight-only W8A16"),
        ("W8A16_GPTQ", "int8", "INT8 GPTQ weight-only"),
        ("W4A16", "int4", "INT4 weight-only W4A16"),
        ("W4A16_AWQ", "int4", "quant_algo W4A16_AWQ: INT4 AWQ weight-only W4A16"),
        ("W4A16_GPTQ", "int4", "INT4 GPTQ"),
        ("W4A8_AWQ", "int4", "run as W4A16"),
        ("FP8", "fp8", "quant_method modelopt, quant_algo FP8: FP8 weights and activations"),
        ("FP8_PER_CHANNEL_PER_TOKEN", "fp8", "FP8 per channel"),
        ("FP8_BLOCK_SCALES", "fp8", "quant_algo FP8_BLOCK_SCALES: FP8 block-scaled weights"),
        ("NVFP4", "fp4", "NVFP4 weights and activations"),
        ("NVFP4_AWQ", "fp4", "NVFP4 with AWQ scales"),
        ("W4A16_MXFP4", "mxfp4", "MXFP4 weights run as W4A16"),
        ("W4A8_MXFP4_FP8", "mxfp4", "MXFP4"),
        ("w8a8_sq_per_channel", "int8_w8a8", "quant_algo w8a8_sq_per_channel"),  # the name as written, read any case
    ],
)
def test_quant_algo_gives_the_release_precision(algo: str, precision: str, words: str) -> None:
    read_precision, read_words = _read(modelopt(algo))
    assert read_precision == precision and words in read_words


@pytest.mark.parametrize("algo", ["INT8", "MIXED_PRECISION", "W4A8_NVFP4_FP8", "SOMETHING_NEW"])
def test_a_quant_algo_not_read_stays_unknown_and_is_named(algo: str) -> None:
    assert _read(modelopt(algo)) == ("unknown", f"quant_method modelopt, quant_algo {algo}")


def test_hf_quant_config_json_nested_quantization_is_read() -> None:
    """hf_quant_config.json puts quant_algo under `quantization`, beside `producer`."""
    block = {"quant_method": "modelopt", "quantization": {"quant_algo": "W8A8_SQ_PER_CHANNEL", "exclude_modules": []}}
    assert _read(block)[0] == "int8_w8a8"


@pytest.mark.parametrize("algo", sorted(MODELOPT_ALGOS))
def test_every_algo_read_is_a_release_precision_and_its_words_fit(algo: str) -> None:
    """Each reading ranks as a release (RELEASE_WORDS) and its words fit whole in ModelArchitecture.quantization."""
    precision, words = _read(modelopt(algo))
    assert precision in RELEASE_WORDS and len(words) <= MAX_WORDS and words.endswith(MODELOPT_ALGOS[algo].words)


@pytest.mark.parametrize(("engine", "dtype"), [("trtllm", "int8_w8a8"), ("vllm", "int8_w8a8"), ("llamacpp", "int8")])
def test_a_smoothquant_release_ranks_int8_w8a8_where_the_engine_runs_it(engine: str, dtype: str) -> None:
    spec = model_spec_from_hf_config({**LLAMA_31_8B, "quantization_config": modelopt("W8A8_SQ_PER_CHANNEL")})
    assert spec.release_precision == "int8_w8a8"
    workload, weights = release_weights(InferenceWorkload(model="custom", engine=engine), spec)
    assert workload.weight_dtype == dtype and weights.from_release
    assert bool(weights.engine_lacks) == (engine == "llamacpp")
