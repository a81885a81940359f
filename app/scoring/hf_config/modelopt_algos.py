"""The release precision each NVIDIA ModelOpt / TensorRT-LLM `quant_algo` means, with what it is in words.

Sources: the names are TensorRT-LLM's `QuantAlgo` enum (tensorrt_llm/quantization/mode.py; not read here: PyPI's
tensorrt-llm is a stub sdist, the wheels live on NVIDIA's index), and what ModelOpt's export writes into
hf_quant_config.json and config.json (nvidia-modelopt 0.47.0, read from its PyPI wheel:
modelopt/torch/export/quant_utils.py process_layer_quant_config maps its formats int8_sq -> W8A8_SQ_PER_CHANNEL,
int8_wo -> W8A16, int4_awq -> W4A16_AWQ, w4a8_awq -> W4A8_AWQ, fp8 -> FP8, fp8_pc_pt -> FP8_PER_CHANNEL_PER_TOKEN,
nvfp4 -> NVFP4, nvfp4_awq -> NVFP4_AWQ, w4a8_mxfp4_fp8 -> W4A8_MXFP4_FP8, mxfp8 -> MXFP8; ModelOpt writes no
`INT8_SQ` quant_algo, int8_sq is only its internal format name).
Not read (the release stays unknown, BF16 assumed, and the answer names the algo): `INT8`, TensorRT-LLM's INT8
KV-cache algo (kv_cache_quant_algo), not a weight format; `MIXED_PRECISION`, one algo per layer; the NVFP4 forms whose
activations are not FP4 (W4A16_NVFP4, W4A8_NVFP4_FP8), which no gpumatch dtype prices; W4A8_QSERVE_*.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.hardware.dtypes import INT8_W8A8


@dataclass(frozen=True, slots=True)
class Algo:
    precision: str  # a release precision (release_precision.RELEASE_WORDS' keys)
    words: str  # what the algo is, without commas: the answer quotes it after the name, within MAX_WORDS


_SQ = "INT8 SmoothQuant W8A8"  # SmoothQuant: INT8 weights and activations, run on the INT8 tensor peak
_MXFP4 = "MXFP4 weights run as W4A16"  # release_precision.RELEASE_WEIGHT_DTYPE's mxfp4: 4-bit weight-only

MODELOPT_ALGOS: dict[str, Algo] = {
    "W8A8_SQ_PER_CHANNEL": Algo(INT8_W8A8, f"{_SQ} per channel"),
    "W8A8_SQ_PER_TENSOR_PLUGIN": Algo(INT8_W8A8, f"{_SQ} per tensor"),
    "W8A8_SQ_PER_CHANNEL_PER_TOKEN_PLUGIN": Algo(INT8_W8A8, _SQ),
    "W8A8_SQ_PER_CHANNEL_PER_TENSOR_PLUGIN": Algo(INT8_W8A8, _SQ),
    "W8A8_SQ_PER_TENSOR_PER_TOKEN_PLUGIN": Algo(INT8_W8A8, _SQ),
    "W8A16": Algo("int8", "INT8 weight-only W8A16"),
    "W8A16_GPTQ": Algo("int8", "INT8 GPTQ weight-only W8A16"),
    "W4A16": Algo("int4", "INT4 weight-only W4A16"),
    "W4A16_AWQ": Algo("int4", "INT4 AWQ weight-only W4A16"),
    "INT4_AWQ": Algo("int4", "INT4 AWQ weight-only W4A16"),
    "W4A16_GPTQ": Algo("int4", "INT4 GPTQ weight-only W4A16"),
    # INT4 weights, FP8 activations: no dtype of its own, its 4-bit weights sized and timed as W4A16
    "W4A8_AWQ": Algo("int4", "INT4 AWQ weights run as W4A16"),
    "FP8": Algo("fp8", "FP8 weights and activations"),
    "FP8_PER_CHANNEL_PER_TOKEN": Algo("fp8", "FP8 per channel and per token"),
    "FP8_BLOCK_SCALES": Algo("fp8", "FP8 block-scaled weights"),
    "MXFP8": Algo("fp8", "MXFP8 weights and activations"),
    "NVFP4": Algo("fp4", "NVFP4 weights and activations"),
    "NVFP4_AWQ": Algo("fp4", "NVFP4 with AWQ scales"),
    "W4A16_MXFP4": Algo("mxfp4", _MXFP4),
    "W4A8_MXFP4_FP8": Algo("mxfp4", _MXFP4),
    "W4A8_MXFP4_MXFP8": Algo("mxfp4", _MXFP4),
}
