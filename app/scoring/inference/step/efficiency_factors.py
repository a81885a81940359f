"""The efficiency a forward pass runs at: MBU (share of peak bandwidth) and MFU (share of the dense peak).

Each is a product of named factors (decode streaming, TP penalty, GDDR, dtype, MoE, engine, ROCm) that the
explanation lines print (`factor_text`); `mbu` and `mfu` clamp the product and memoise it per (context,
efficiency) object. W8A8's 16-bit attention has its own share (`attention_mfu`, `attention_flop_rate`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from app.scoring.efficiency.inference import (
    ENGINE_MBU,
    ENGINE_MFU,
    MAX_MBU,
    SOFTWARE_CONSTANTS,
    InferenceEfficiency,
)
from app.scoring.efficiency.moe_share import moe_layer_factor
from app.scoring.explain import significant
from app.scoring.inference.step.context import InferenceContext


def engine_factors(
    ctx: InferenceContext, eff: InferenceEfficiency, table: dict[str, float], rocm: str
) -> list[tuple[str, float]]:
    """The serving engine's share of TensorRT-LLM's efficiency on CUDA, and the ROCm factor named `rocm`
    (streaming or matmul) on AMD, as named factors (llama.cpp has factors of its own). Only the constants that
    apply are read (the fits recompute a case only when a constant it read moves)."""
    if ctx.engine == "vllm":
        factors = [("vLLM", eff.vllm_factor)]
    elif ctx.engine == "sglang":
        factors = [("SGLang", eff.sglang_factor)]
    else:
        own = table.get(ctx.engine)  # an engine without a factor of its own is priced as vLLM
        factors = [(ctx.engine, eff.vllm_factor if own is None else own)]
    if not ctx.amd:
        return factors
    factors.append(("ROCm", getattr(eff, rocm)))
    return factors + ([ctx.rocm_matmul] if rocm == "amd_mfu_factor" and ctx.rocm_matmul else [])


def _engine_constants(ctx: InferenceContext, rocm: str) -> list[str]:
    """The fitted constants behind engine_factors: vLLM's (also any engine without a factor of its own) or SGLang's,
    and the ROCm factor on AMD; TensorRT-LLM and HF have fixed factors."""
    names = [] if ctx.engine in ENGINE_MBU else ["sglang_factor" if ctx.engine == "sglang" else "vllm_factor"]
    return names + ([rocm] if ctx.amd else [])


def mbu_constants(ctx: InferenceContext, tp_penalty: bool = True) -> list[str]:
    """The InferenceEfficiency fields mbu_factors reads, for an explanation line that names their evidence."""
    names = ["decode_mbu"] + (["mbu_tp_exponent"] if tp_penalty and ctx.tensor_parallel > 1 else [])
    names += ["gddr_mbu_factor"] if ctx.gddr else []
    if ctx.engine == "llamacpp":
        return names + ["llamacpp_mbu_factor"]
    return names + _engine_constants(ctx, "amd_mbu_factor")


def mfu_constants(ctx: InferenceContext) -> list[str]:
    """The InferenceEfficiency fields mfu_factors reads, for an explanation line that names their evidence."""
    names = ["mfu_max"]
    if ctx.compute_dtype in ("fp8", "int8"):
        names.append("fp8_mfu_factor")
    elif ctx.compute_dtype == "fp4":
        names.append("fp4_mfu_factor")
    names += ["moe_mfu_factor"] if ctx.moe else []
    if ctx.engine == "llamacpp":
        return names + ["llamacpp_mfu_factor"]
    return names + _engine_constants(ctx, "amd_mfu_factor")


# software_constants by context: a ranking explains each (GPU, machine) slot's kept layout (~40 an open loop's), and
# contexts are shared across rankings (context.build_context's cache), so each is read once rather than per explain.
_SOFTWARE_CONSTANTS_CACHE_SIZE = 4096


@lru_cache(maxsize=_SOFTWARE_CONSTANTS_CACHE_SIZE)
def software_constants(ctx: InferenceContext) -> tuple[str, ...]:
    """The fitted software-maturity constants (SOFTWARE_CONSTANTS: engine and ROCm factors) mbu and mfu read: a tuple
    of names, the same for equal contexts (found by speed26)."""
    return tuple(name for name in dict.fromkeys(mbu_constants(ctx) + mfu_constants(ctx)) if name in SOFTWARE_CONSTANTS)


def _product(factors: list[tuple[str, float]]) -> float:
    return math.prod(value for _, value in factors)


def mbu_factors(ctx: InferenceContext, eff: InferenceEfficiency, tp_penalty: bool = True) -> list[tuple[str, float]]:
    """The named factors whose product is `mbu` (before its clamp)."""
    factors = [("decode streaming at TP1", eff.decode_mbu)]
    if tp_penalty and ctx.tensor_parallel > 1:
        factors.append(
            (
                f"TP{ctx.tensor_parallel}^-{significant(eff.mbu_tp_exponent)}",
                ctx.tensor_parallel ** (-eff.mbu_tp_exponent),
            )
        )
    if ctx.gddr:
        factors.append(("GDDR", eff.gddr_mbu_factor))
    if ctx.engine == "llamacpp":
        return factors + [("llama.cpp", eff.llamacpp_mbu_factor)]
    return factors + engine_factors(ctx, eff, ENGINE_MBU, "amd_mbu_factor")


# mbu and mfu per (context, efficiency) object: a solve times a few dozen passes of one context, and naming the
# factors costs more than the pass's arithmetic. Keyed by identity, the objects kept beside the value so that an id
# is never reused while its entry lives; cleared when full.
_FACTOR_MEMO: dict[tuple[int, int, str], tuple[object, object, float]] = {}
_FACTOR_MEMO_LIMIT = 4096


def _memoised(kind: str, ctx: InferenceContext, eff: InferenceEfficiency, compute: Callable[[], float]) -> float:
    key = (id(ctx), id(eff), kind)
    hit = _FACTOR_MEMO.get(key)
    if hit is not None and hit[0] is ctx and hit[1] is eff:
        return hit[2]
    value = compute()
    if len(_FACTOR_MEMO) >= _FACTOR_MEMO_LIMIT:
        _FACTOR_MEMO.clear()
    _FACTOR_MEMO[key] = (ctx, eff, value)
    return value


def mbu(ctx: InferenceContext, eff: InferenceEfficiency, tp_penalty: bool = True) -> float:
    """Share of peak bandwidth for weight streaming (a fitted shard-size term, bytes per GPU per layer, was
    tried in place of the TP exponent and fitted to zero on the 2026-12 file, so it is not modelled).

    `tp_penalty=False`: routed experts. One grouped-GEMM launch streams every touched expert's shard of the
    layer, so the read does not shrink into many small GEMMs as TP grows (InferenceX DeepSeek-R1 TP8 on
    8xH200: TPOT 12.8-34.6 ms, about half what the dense TP exponent gives)."""
    return _memoised(
        "mbu" if tp_penalty else "mbu experts",
        ctx,
        eff,
        lambda: min(max(_product(mbu_factors(ctx, eff, tp_penalty)), 0.01), MAX_MBU),
    )


def mbu_cap_text(ctx: InferenceContext, eff: InferenceEfficiency) -> str:
    """', capped at 0.9 (...)' when the factors' product passes the streaming ceiling, else ''."""
    if _product(mbu_factors(ctx, eff)) <= MAX_MBU:
        return ""
    return f", capped at {significant(MAX_MBU)} (no streaming kernel reaches more of the peak: research §7.3)"


def mfu_factors(ctx: InferenceContext, eff: InferenceEfficiency, attention: bool = False) -> list[tuple[str, float]]:
    """The named factors whose product is `mfu` (before its clamp); `attention`: W8A8's 16-bit attention's
    (attention_mfu), without the INT8 factor."""
    factors = [("16-bit matmuls", eff.mfu_max)]
    if ctx.compute_dtype == "fp8":
        factors.append(("FP8", eff.fp8_mfu_factor))
    elif ctx.compute_dtype == "fp4":
        factors.append(("FP4", eff.fp4_mfu_factor))
    elif ctx.compute_dtype == "int8" and not attention:
        # INT8 W8A8 borrows FP8's factor, unvalidated: an 8-bit tensor-core GEMM at twice the 16-bit rate, as FP8's,
        # and no public validation row runs W8A8 to fit one of its own (w8a8_note says so in every estimate)
        factors.append(("INT8 W8A8, FP8's factor borrowed", eff.fp8_mfu_factor))
    if ctx.moe:  # on the MoE layers' share of the matmuls: Maverick's 24 dense layers of 48 run at the dense rate
        factors.append(("MoE", moe_layer_factor(eff.moe_mfu_factor, ctx.moe_layer_share)))
    if ctx.engine == "llamacpp":
        return factors + [("llama.cpp", eff.llamacpp_mfu_factor)]
    return factors + engine_factors(ctx, eff, ENGINE_MFU, "amd_mfu_factor")


def mfu(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Matmul share of the dense peak once compute-bound; the small-M (GEMV) regime is the memory side
    of the soft roofline, so no separate M-dependent efficiency (it would count weight reads twice)."""
    return _memoised("mfu", ctx, eff, lambda: min(max(_product(mfu_factors(ctx, eff)), 1e-4), 1.0))


def attention_mfu(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Share of `attention_peak_tflops` the 16-bit attention of an INT8 W8A8 pass reaches: the 16-bit matmul share."""
    return _memoised("mfu attention", ctx, eff, lambda: min(max(_product(mfu_factors(ctx, eff, True)), 1e-4), 1.0))


def attention_flop_rate(ctx: InferenceContext, eff: InferenceEfficiency, matmul_rate: float) -> float:
    """FLOP per ms of a pass's QK^T and AV: the matmuls' rate, or W8A8's 16-bit attention's (attention_peak_tflops)."""
    if not ctx.attention_peak_tflops:
        return matmul_rate
    return ctx.attention_peak_tflops * 1e12 * attention_mfu(ctx, eff) / 1e3


def factor_text(factors: list[tuple[str, float]]) -> str:
    """'0.777 (decode streaming at TP1) x 0.565 (TP8^-0.275) x ...' for an explanation line."""
    return " × ".join(f"{significant(value, 3)} ({name})" for name, value in factors)
