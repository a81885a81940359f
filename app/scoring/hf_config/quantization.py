"""A pasted config.json's release precision, read from its `quantization_config` (pure: a dict in, words out).

The formats the checkpoints on the Hub write (transformers' quantizers; llm-compressor; NVIDIA ModelOpt):
- `quant_method: fp8` (DeepSeek-V3/R1, Qwen3-FP8: block-scaled E4M3) and `fbgemm_fp8`: FP8 weights;
- `quant_method: mxfp4` (gpt-oss): MXFP4 MoE weights, run as 4-bit weight-only (release_precision.RELEASE_WEIGHT_DTYPE);
- `quant_method: compressed-tensors` (llm-compressor): the weights' `num_bits` and `type` in each config group,
  8-bit float = FP8, 4-bit float = NVFP4, 4-bit int = INT4 W4A16, 8-bit int = INT8 weight-only (W8A16), or INT8 W8A8
  where every group's `input_activations` are 8-bit int too (RedHatAI / neuralmagic `*-quantized.w8a8`);
- `quant_method: modelopt` (NVIDIA ModelOpt / TensorRT-LLM checkpoints): `quant_algo`, as
  app.scoring.hf_config.modelopt_algos
  reads it: the W8A8_SQ_* SmoothQuant algos = INT8 W8A8, W8A16 = INT8, W4A16* = INT4, FP8* = FP8, NVFP4 = NVFP4;
- `quant_method: awq` / `gptq`: `bits` 4 = INT4 W4A16, 8 (GPTQ) = INT8.
Anything else is named in the answer as not read; the release is then assumed BF16, as for a config without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.hf_config.modelopt_algos import MODELOPT_ALGOS

UNKNOWN = "unknown"
MAX_WORDS = 120  # ModelArchitecture.quantization's bound: what the answer quotes of the config


@dataclass(frozen=True, slots=True)
class Quantization:
    """What a config.json's quantization_config says: the release precision it means (or unknown), and the keys
    read, in words ("quant_method fp8")."""

    release_precision: str  # bf16 | fp8 | mxfp4 | int4 | fp4 | int8 | int8_w8a8 | unknown
    words: str


NONE = Quantization(UNKNOWN, "")  # a config.json without a quantization_config


def source(words: str, precision: str) -> str:
    """Where a custom model's release precision was read, as an answer quotes it; empty when nothing says."""
    if words:
        return f"config.json quantization_config: {words}"
    return "" if precision == UNKNOWN else "the custom model's release_precision"


def _text(value: Any) -> str:
    return " ".join(str(value).split())[:40] if isinstance(value, (str, int, float)) else ""


def _bits(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _from_bits(bits: int | None, kind: str) -> str:
    """int4/int8/fp8/fp4 from a weight width and number type ('int' or 'float')."""
    return {(4, "int"): "int4", (8, "int"): "int8", (8, "float"): "fp8", (4, "float"): "fp4"}.get(
        (bits or 0, kind), UNKNOWN
    )


def _width(scheme: Any) -> tuple[int | None, str]:
    """A compressed-tensors scheme's (num_bits, type); (None, "") where it is not one (null: not quantised)."""
    return (_bits(scheme.get("num_bits")), _text(scheme.get("type"))) if isinstance(scheme, dict) else (None, "")


def _compressed_tensors(config: dict[str, Any]) -> tuple[str, str]:
    groups = config.get("config_groups")
    found = [g for g in groups.values() if isinstance(g, dict)] if isinstance(groups, dict) else []
    read = {_width(g.get("weights")) for g in found if isinstance(g.get("weights"), dict)}
    if len(read) != 1:  # none, or groups of different widths: which one the release is cannot be said
        return UNKNOWN, "config_groups weights not one width and type"
    bits, kind = read.pop()
    precision, words = _from_bits(bits, kind), f"weights {bits}-bit {kind}"
    # INT8 activations in every group: llm-compressor's W8A8 scheme (vLLM runs it on the INT8 tensor peak); without
    # them (input_activations null, as quantized.w8a16 writes) the INT8 weights are weight-only, W8A16.
    if precision == "int8" and {_width(g.get("input_activations")) for g in found} == {(8, "int")}:
        return INT8_W8A8, f"{words}, input_activations 8-bit int"
    return precision, words


def _modelopt(config: dict[str, Any]) -> tuple[str, str]:
    inner = config.get("quantization")  # hf_quant_config.json nests it; config.json's copy is flat
    algo = _text(config.get("quant_algo") or (inner.get("quant_algo") if isinstance(inner, dict) else ""))
    said = f"quant_algo {algo or 'not given'}"
    if (known := MODELOPT_ALGOS.get(algo.upper())) is None:
        return UNKNOWN, said
    return known.precision, f"{said}: {known.words}"


def _bits_method(config: dict[str, Any], widths: dict[int, str]) -> tuple[str, str]:
    bits = _bits(config.get("bits") if "bits" in config else config.get("w_bit"))
    return widths.get(bits or 0, UNKNOWN), f"bits {bits if bits is not None else 'not given'}"


def read_quantization(config: dict[str, Any]) -> Quantization | None:
    """The release precision a config.json's quantization_config gives; None when it has none."""
    quant = config.get("quantization_config")
    if quant is None:
        return None
    if not isinstance(quant, dict):
        return Quantization(UNKNOWN, "not an object")
    method = _text(quant.get("quant_method")).lower()
    said = f"quant_method {method or 'not given'}"
    if method in ("fp8", "fbgemm_fp8", "mxfp4"):
        precision, detail = ("mxfp4" if method == "mxfp4" else "fp8"), ""
    elif method == "compressed-tensors":
        precision, detail = _compressed_tensors(quant)
    elif method == "modelopt":
        precision, detail = _modelopt(quant)
    elif method == "awq":
        precision, detail = _bits_method(quant, {4: "int4"})
    elif method == "gptq":
        precision, detail = _bits_method(quant, {4: "int4", 8: "int8"})
    else:
        precision, detail = UNKNOWN, ""
    return Quantization(precision, (f"{said}, {detail}" if detail else said)[:MAX_WORDS])
