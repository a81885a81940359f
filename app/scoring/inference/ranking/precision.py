"""Precision side by side: the same inference workload at BF16, FP8 (with a BF16 or an FP8 KV cache), FP4, INT4
weight-only, INT8 W8A8 and weight-only, and KV FP8, and MXFP4 for a model released in it.

Each variant re-ranks the catalog's offers with only the dtypes changed, keeps the cheapest feasible
option, and carries the published quality rows for that model and precision (quality.csv). A variant
without a published row has no quality note: it is never inferred from another model or precision.
The model's released precision (release_precision) is the reference row; BF16 above a lower-precision release is an
upcast of it, labelled so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.inference.ranking.release_precision import Release, release_precision
from app.scoring.inference.step.memory import GB, kv_bytes_per_token, weight_bytes
from app.scoring.specs import CatalogSnapshot, ModelSpec, QualityResult
from app.scoring.workload import NO_W8A8_ENGINES, InferenceWorkload, w8a8_refusal


@dataclass(frozen=True, slots=True)
class PrecisionVariant:
    key: str
    label: str
    weight_dtype: str
    kv_dtype: str
    quality_precisions: tuple[str, ...]  # quality.csv precision names that describe this variant
    runs_on: str  # the tensor peak its matmuls use (app.scoring.hardware.dtypes.compute_dtype)
    needs_fp4_peak: bool = False
    only_for_release: str = ""  # a row shown only for a model released at this precision


# Weight variants keep the KV cache at BF16 and the KV variant keeps BF16 weights, so each row changes one thing;
# "FP8 weights and KV" is what the ranking runs for FP8 weights by default on TensorRT-LLM, "FP8 W8A8" (a BF16
# cache) on vLLM, SGLang, llama.cpp and Transformers (workload.default_kv_dtype).
VARIANTS: tuple[PrecisionVariant, ...] = (
    PrecisionVariant("bf16", "BF16 (baseline)", "bf16", "bf16", (), "BF16 peak"),
    PrecisionVariant("fp8", "FP8 W8A8", "fp8", "bf16", ("fp8",), "FP8 peak (BF16 where the GPU has none)"),
    PrecisionVariant(
        "fp8_kv_fp8", "FP8 W8A8, FP8 KV cache", "fp8", "fp8", ("fp8",), "FP8 peak (BF16 where the GPU has none)"
    ),
    # FP4 as its label and quality rows mean it: W4A4 on an FP4 tensor peak. A ranking of fp4 weights also lists GPUs
    # without one (dequantised, weight-only: the INT4 row's W4A16), so this row ranks the FP4 GPUs alone.
    PrecisionVariant(
        "fp4", "FP4 (NVFP4 W4A4)", "fp4", "bf16", ("fp4_nvfp4",), "FP4 peak (GPUs with one only)", needs_fp4_peak=True
    ),
    # MXFP4 (gpt-oss's release: MoE weights at 4.25 bits, the rest BF16) is not NVFP4 W4A4: the checkpoint runs
    # weight-only on Hopper (dtypes.matmul_dtype), so the row is sized and timed as 4-bit weight-only, W4A16.
    PrecisionVariant(
        "mxfp4",
        "MXFP4 MoE weights, run W4A16",
        "int4",
        "bf16",
        ("mxfp4",),
        "BF16 peak (4-bit weights dequantised: W4A16, as the MXFP4 release runs on Hopper)",
        only_for_release="mxfp4",
    ),
    PrecisionVariant(
        "int4", "INT4 weight-only (W4A16)", "int4", "bf16", ("int4_w4a16_gptq", "int4_w4a16_awq"), "BF16 peak"
    ),
    # INT8 two ways, each with its own published rows: W8A8 multiplies INT8 activations on the INT8 tensor peak
    # (SmoothQuant, llm-compressor quantized.w8a8; dtypes.INT8_W8A8); plain int8 is weight-only, its 8-bit weights
    # (dtypes.WEIGHT_BYTES) dequantised to 16-bit matmuls, W8A16 (dtypes.compute_dtype).
    PrecisionVariant(
        "int8", "INT8 weight-only (W8A16)", "int8", "bf16", ("int8_w8a16",), "BF16 peak (INT8 weights dequantised)"
    ),
    PrecisionVariant(
        "int8_w8a8",
        "INT8 W8A8",
        "int8_w8a8",
        "bf16",
        ("int8_w8a8",),
        "INT8 peak (BF16 where the GPU has none); attention on the BF16 peak",
    ),
    PrecisionVariant("kv_fp8", "BF16 weights, FP8 KV cache", "bf16", "fp8", (), "BF16 peak"),
)
VARIANT_KEYS = tuple(v.key for v in VARIANTS)


@dataclass(frozen=True, slots=True)
class PrecisionRow:
    key: str
    label: str
    weight_dtype: str
    kv_dtype: str
    runs_on: str
    weights_gb: float  # the whole model's weights at this dtype (every replica holds one copy)
    kv_mb_per_1k_tokens: float  # KV cache of 1 000 tokens of context, the whole model
    feasible_options: int
    best: InferenceOption | None
    reason: str  # why there is no best option (empty when there is one)
    quality: list[QualityResult] = field(default_factory=list)
    quality_note: str = ""
    role: str = ""  # reference (the model's release) | upcast (BF16 weights above a lower-precision release) | ""
    # The question this row ranked: the workload at its dtypes (FP4: on the GPUs with an FP4 peak only); None
    # where no GPU may run it. A ranking of it lists `best` first.
    workload: InferenceWorkload | None = None

    @property
    def replica_memory_gb(self) -> float | None:
        """Weights + KV cache + reserve summed over the replica's GPUs, at the operating point."""
        if self.best is None:
            return None
        per_gpu = self.best.memory_gb
        return round((per_gpu.get("weights", 0) + per_gpu.get("kv_cache", 0)) * self.best.gpu_count, 3)


@dataclass(frozen=True, slots=True)
class PrecisionComparison:
    model_id: str
    rank_by: str
    rows: list[PrecisionRow]
    notes: list[str]
    release: Release


def quality_for(model: ModelSpec, variant: PrecisionVariant, results: tuple[QualityResult, ...]) -> list[QualityResult]:
    """Published rows of exactly this catalog model at this precision (none for BF16 or KV FP8)."""
    return [r for r in results if r.model_id == model.id and r.precision in variant.quality_precisions]


def role(variant: PrecisionVariant, release: Release) -> str:
    """reference: the release (its row: the precision's weights with a BF16 KV cache); upcast: BF16 weights above a
    lower-precision release."""
    if variant.key == release.precision:
        return "reference"
    return "upcast" if release.precision != "bf16" and variant.weight_dtype == "bf16" else ""


def label(variant: PrecisionVariant, release: Release) -> str:
    if release.precision == "bf16":
        return variant.label
    if variant.key == release.precision:
        return f"{variant.label} (the release)"
    if variant.key == "bf16":
        return f"BF16 (an upcast of the {release.words} release)"
    return "BF16 weights (upcast), FP8 KV cache" if variant.key == "kv_fp8" else variant.label


NO_ROW = "no published quality row for this model at this precision in quality.csv"
NO_KV_ROW = "no published quality row for an FP8 KV cache in quality.csv"


def _quality_note(variant: PrecisionVariant, rows: list[QualityResult], release: Release) -> str:
    kind = role(variant, release)
    if kind == "reference":
        if release.precision == "bf16":
            return "the baseline the others are measured against"
        alone = "" if any(r.recovery_pct is not None for r in rows) else "; quality.csv publishes no score of it"
        return f"the release: the reference the published deltas are measured against{alone}"
    if kind == "upcast":
        upcast = f"BF16 weights are an upcast of the {release.words} release: more memory, no quality to recover"
        return f"{upcast}; {NO_KV_ROW}" if variant.key == "kv_fp8" else f"{upcast}, so not the reference"
    if rows:
        return "the weights' published rows; none for the FP8 KV cache on top" if variant.key == "fp8_kv_fp8" else ""
    if variant.key == "kv_fp8" or (variant.key == "fp8_kv_fp8" and release.precision == "fp8"):
        return NO_KV_ROW if variant.key == "kv_fp8" else f"the released weights with an FP8 KV cache; {NO_KV_ROW}"
    if release.precision == "mxfp4" and variant.key in ("fp4", "int4"):
        other = "NVFP4" if variant.key == "fp4" else "INT4"
        return (
            f"no published {other} row for this model in quality.csv; its MXFP4 release is another 4-bit format "
            "(its own row)"
        )
    return NO_ROW


# Where no GPU the question allows has an FP4 peak (an H100 filter), FP4 weights run as the ranking runs them there:
# dequantised to 16-bit matmuls, weight-only (Marlin / gpt-oss MXFP4 kernels in vLLM on Hopper), so both pages agree.
DEQUANTISED_FP4 = "BF16 peak (no GPU allowed has an FP4 peak: FP4 weights dequantised, W4A16, as the ranking runs them)"
DEQUANTISED_FP4_LABEL = "FP4 weights, run W4A16 (no FP4 peak among the GPUs asked for)"
DEQUANTISED_FP4_QUALITY = "the published rows measure NVFP4 W4A4; run W4A16 its activations stay 16-bit (not measured)"


def _fp4_gpus(workload: InferenceWorkload, snapshot: CatalogSnapshot) -> list[str]:
    """The GPUs with an FP4 tensor peak that the question's GPU filter allows (in any case, as the filter matches)."""
    fp4 = sorted(g.id for g in snapshot.gpus.values() if g.fp4_tflops)
    asked = {g.lower() for g in workload.gpus}
    return [g for g in fp4 if not asked or g.lower() in asked]


def _variant_workload(
    workload: InferenceWorkload, variant: PrecisionVariant, snapshot: CatalogSnapshot
) -> InferenceWorkload | str:
    """The workload at the variant's dtypes, or why the variant cannot be ranked for it."""
    if variant.weight_dtype == INT8_W8A8 and workload.engine in NO_W8A8_ENGINES:
        return w8a8_refusal(workload.engine).removeprefix("weight_dtype: ")
    update: dict[str, object] = {"weight_dtype": variant.weight_dtype, "kv_dtype": variant.kv_dtype}
    if variant.needs_fp4_peak and (native := _fp4_gpus(workload, snapshot)):
        update["gpus"] = native
    return workload.model_copy(update=update)


def compare_precisions(
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    keys: tuple[str, ...] = VARIANT_KEYS,
) -> PrecisionComparison:
    """One row per precision variant: cheapest feasible option, memory, and the published quality delta."""
    release = release_precision(model, snapshot.quality)
    rows = []
    shown = (v for v in VARIANTS if v.key in keys and v.only_for_release in ("", release.precision))
    for variant in shown:
        quality = quality_for(model, variant, snapshot.quality)
        sized = _variant_workload(workload, variant, snapshot)
        best, feasible, reason = None, 0, sized if isinstance(sized, str) else ""
        if not isinstance(sized, str):
            ranking = rank_inference(sized, snapshot, model)
            feasible = ranking.feasible_count
            best = ranking.options[0] if feasible else None
            reason = "" if best else _row_reason(ranking.options)
        dequantised = variant.needs_fp4_peak and not _fp4_gpus(workload, snapshot)  # the ranking's W4A16
        rows.append(
            PrecisionRow(
                key=variant.key,
                label=DEQUANTISED_FP4_LABEL if dequantised else label(variant, release),
                weight_dtype=variant.weight_dtype,
                kv_dtype=variant.kv_dtype,
                runs_on=DEQUANTISED_FP4 if dequantised else variant.runs_on,
                weights_gb=round(weight_bytes(model, variant.weight_dtype) / GB, 3),
                kv_mb_per_1k_tokens=round(kv_bytes_per_token(model, variant.kv_dtype) * 1000 / 1e6, 3),
                feasible_options=feasible,
                best=best,
                reason=reason,
                quality=quality,
                quality_note=DEQUANTISED_FP4_QUALITY
                if dequantised and quality
                else _quality_note(variant, quality, release),
                role=role(variant, release),
                workload=None if isinstance(sized, str) else sized,
            )
        )
    notes = [
        "Each row re-ranks every offer with only the dtypes changed (the form's weight and KV precision are "
        "ignored here); the other workload fields, filters and the latency targets stay as given. Each row links "
        "its own ranking.",
        "FP4 means W4A4 on an FP4 tensor peak (Blackwell): the FP4 row ranks only GPUs with one. Elsewhere FP4 "
        "weights run dequantised to 16-bit matmuls, weight-only, as INT4 W4A16 does (its row); the ranking at FP4 "
        "without a GPU filter lists those too, and where no GPU asked for has an FP4 peak the FP4 row ranks them "
        "so, as the ranking does.",
        "INT8 W8A8 multiplies INT8 weights and activations on the INT8 tensor peak (A100: 624 TOPS against 312 "
        "TFLOPS BF16) at FP8's matmul efficiency, borrowed: no public validation row runs W8A8. INT8 weight-only "
        "(W8A16) holds about the same weights (sized as GGUF Q8_0, 1.0625 bytes a weight against per-channel "
        "W8A8's 1.0) but multiplies in 16 bits: a decode almost as fast, a slower prefill.",
        "Quality deltas are the sources' published recovery (quantised score ÷ baseline × 100) for this model "
        "only, each against the baseline quality.csv gives it; rows for other models of the family are not carried "
        "over.",
        release_note(model, release),
    ]
    return PrecisionComparison(model.id, workload.ranked_by, rows, notes, release)


def release_note(model: ModelSpec, release: Release) -> str:
    if release.assumed:
        return f"The BF16 row is the reference the deltas are measured against, {release.source}."
    note = (
        f"{model.name} is released in {release.words} ({release.source}): its {release.words} row is the reference "
        "the published deltas are measured against, and BF16 is an upcast of the release, shown for its cost only."
    )
    if release.precision == "mxfp4":
        note += (
            " MXFP4 is not NVFP4 W4A4: its row is sized and timed as 4-bit weight-only (W4A16, 4.5 bits on every "
            "weight; the release stores 4.25 on the MoE weights and BF16 elsewhere), as the checkpoint runs on "
            "Hopper, and the FP4 row is a requantisation to NVFP4."
        )
    return note


def _row_reason(options: Sequence[InferenceOption]) -> str:
    """Why a precision has no option, in the words of one refused configuration, named: the cheapest that holds the
    weights (a latency or KV-cache refusal: the nearest to running), else the one nearest to holding them. The row
    took the first refusal in catalog order, whichever GPU that was: 405B at BF16 within 4 GPUs read "4xA100 40GB
    leave 141 GB" while 4xGB200 leave 691 GB, and DeepSeek-R1 INT4 at a 100k prompt read an A100 40GB's "needs 377
    GB" while 8xRTX PRO 6000 hold it and miss the TTFT limit."""
    if not options:
        return "no offer passes the filters"
    holding = [o for o in options if _shortfall_gb(o) == 0.0]
    if holding:
        chosen = min(holding, key=lambda o: o.usd_per_gpu_hour * o.gpu_count)
        why = "the cheapest configuration that holds the weights"
    elif short := [o for o in options if _shortfall_gb(o) is not None]:
        chosen = min(short, key=lambda o: _shortfall_gb(o) or 0.0)
        why = "the nearest to holding the weights"
    else:
        chosen, why = options[0], ""
    where = f"{chosen.gpu_count}×{chosen.gpu_id}" + (f", {why}" if why else "")
    return f"{where}: {chosen.reason or 'no offer meets the latency targets'}"


def _shortfall_gb(option: InferenceOption) -> float | None:
    """GB the configuration lacks to hold the weights and the runtime reserve (0 where it holds them); None where the
    refusal came before any sizing (an engine that does not run the GPU's vendor, a layout the offer cannot supply)."""
    memory = option.memory_gb
    if "capacity" not in memory:
        return None
    per_gpu = memory.get("weights", 0.0) + memory.get("reserve", 0.0) - memory["capacity"]
    return max(per_gpu, 0.0) * option.gpu_count
