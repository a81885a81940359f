"""A model's released precision, the reference its published quality deltas are measured against, and the weight
dtype an inference question ranks when it names none.

A catalog model carries it (ModelSpec.release_precision, seeded by scripts/release_precisions.py from the reference
and the model's config.json), as does a custom model whose pasted config.json has a quantization_config
(app.scoring.hf_config.quantization; one in a format not read is said so, and BF16 assumed). Otherwise it is read from
quality.csv: a row whose method calls the checkpoint native (`native FP8 mixed-precision training`, `native: MoE
weights post-trained with MXFP4`) is the release at that row's precision; a row whose baseline is said to be native
(`baseline = native FP8`) names the release's precision.
Without either, the release is assumed to be BF16, and the answer says it was assumed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.specs import ModelSpec, QualityResult
from app.scoring.workload import NO_W8A8_ENGINES, InferenceWorkload, w8a8_lack

NATIVE_METHOD = re.compile(r"^\s*native\b", re.IGNORECASE)
NATIVE_BASELINE = re.compile(
    r"baseline\s*=\s*native\s+(?P<a>[a-z0-9]+)|baseline_score is the (?P<b>[a-z0-9]+) \(native\)", re.IGNORECASE
)
NO_BASELINE = re.compile(r"no (?:\w+ )?baseline", re.IGNORECASE)
# The release precisions the precision rows show: the catalog's three, and the 4- and 8-bit ones a pasted config.json's
# quantization_config may give (app.scoring.hf_config.quantization), each one of /precision's rows (precision.VARIANTS).
RELEASE_WORDS = {
    "bf16": "BF16",
    "fp8": "FP8",
    "mxfp4": "MXFP4",
    "int4": "INT4 W4A16",
    "fp4": "NVFP4",
    "int8": "INT8",
    "int8_w8a8": "INT8 W8A8",
}
# The weight dtype that runs each release: MXFP4 (MoE weights at 4.25 bits, the rest BF16) is sized and timed as 4-bit
# weight-only, W4A16, as /precision's mxfp4 row runs it (inference/ranking/precision.py VARIANTS, dtypes.matmul_dtype).
RELEASE_WEIGHT_DTYPE = {
    "bf16": "bf16",
    "fp8": "fp8",
    "mxfp4": "int4",
    "int4": "int4",
    "fp4": "fp4",
    "int8": "int8",
    "int8_w8a8": INT8_W8A8,
}
# A W8A8 release on an engine that runs no INT8 W8A8 is ranked as that engine runs the checkpoint's INT8 weights:
# weight-only, W8A16 (llama.cpp's GGUF Q8_0; Transformers decompressing to 16-bit matmuls: workload.NO_W8A8_ENGINES).
W8A8_WHERE_NONE = "int8"
SOURCE_URL = re.compile(r"\((?P<url>https?://[^\s)]+)\)\s*$")


@dataclass(frozen=True, slots=True)
class Release:
    precision: str  # RELEASE_WORDS' keys: bf16 | fp8 | mxfp4, and a pasted config.json's int4 | fp4 | int8 | int8_w8a8
    source: str  # where it was read, in words
    source_url: str = ""
    assumed: bool = False  # nothing in the reference says: BF16 by default

    @property
    def words(self) -> str:
        return RELEASE_WORDS.get(self.precision, self.precision.upper())

    @property
    def weight_dtype(self) -> str:
        """The workload weight_dtype that runs this release."""
        return RELEASE_WEIGHT_DTYPE.get(self.precision, "bf16")


def _native_baseline(row: QualityResult) -> str | None:
    for text in (row.method, row.note):
        if (found := NATIVE_BASELINE.search(text)) is not None:
            return (found.group("a") or found.group("b")).lower()
    return None


def release_precision(model: ModelSpec, results: Sequence[QualityResult]) -> Release:
    """The model's released precision: the catalog's, else from its own quality.csv rows (none of another model's)."""
    if model.release_precision in RELEASE_WORDS:
        found = SOURCE_URL.search(model.release_precision_source)
        source = SOURCE_URL.sub("", model.release_precision_source).strip()
        return Release(model.release_precision, source, found.group("url") if found else "")
    if model.quantization:  # a pasted config.json's quantization_config, in a form gpumatch does not read
        return Release("bf16", f"assumed: {model.release_precision_source} is a format not read", assumed=True)
    rows = [r for r in results if r.model_id == model.id]
    for row in rows:
        if NATIVE_METHOD.search(row.method) and row.precision in RELEASE_WORDS:
            quote = row.method.split(";")[0].strip()
            return Release(row.precision, f"quality.csv: {row.model}, method '{quote}'", row.source_url)
    for row in rows:
        if (native := _native_baseline(row)) in RELEASE_WORDS:
            said = f"quality.csv: {row.model}'s {row.precision} rows give their baseline as native {native.upper()}"
            return Release(native, said, row.source_url)
    return Release(
        "bf16",
        "assumed: the catalog does not know this model's release precision and quality.csv has no native-precision "
        "row for it",
        assumed=True,
    )


def model_said(release: Release) -> bool:
    """The release was assumed though the model's config.json has a quantization_config: one not read."""
    return release.assumed and release.source.startswith("assumed: config.json")


def stated_baseline(row: QualityResult) -> str:
    """What the row's recovery is measured against, as quality.csv gives it."""
    if NATIVE_METHOD.search(row.method):
        return "none (this row is the release itself)"
    if (native := _native_baseline(row)) is not None:
        return f"native {native.upper()}"
    if any(NO_BASELINE.search(text) for text in (row.benchmark, row.note)):
        return "none published"
    return "the unquantised model (quality.csv names no other baseline)"


DTYPE_WORDS = {"int4": "INT4 weight-only (W4A16)", "fp4": "FP4", "int8": "INT8", "int8_w8a8": "INT8 W8A8"}


@dataclass(frozen=True, slots=True)
class Weights:
    """The weight dtype an inference answer ranked, whether the question named it, and the model's release."""

    dtype: str
    given: bool  # the question set weight_dtype; else the release's precision was ranked
    release: Release
    engine_lacks: str = ""  # the release is W8A8 and the engine runs none (workload.w8a8_lack): ranked as W8A16

    @property
    def from_release(self) -> bool:
        return not self.given

    @property
    def note(self) -> str:
        ranked = DTYPE_WORDS.get(self.dtype, self.dtype.upper())
        release, source, lacks = self.release, self.release.source, self.engine_lacks
        if self.given:
            if lacks:
                return f"Weights {ranked}, as asked; the model is released in {release.words} ({source}), and {lacks}."
            if release.assumed:
                return f"Weights {ranked}, as asked (the model's release precision is not known)."
            if self.dtype == release.weight_dtype:
                return f"Weights {ranked}, as asked: the model's release precision ({source})."
            return (
                f"Weights {ranked}, as asked; the model is released in {release.words} ({source}): leave weight_dtype "
                "unset to rank the release."
            )
        if model_said(release):
            return f"Weights BF16, {release.source}; set weight_dtype to rank another."
        if release.assumed:
            return (
                "Weights BF16: the catalog does not know the model's release precision, so BF16 is assumed; set "
                "weight_dtype to rank another."
            )
        if lacks:
            return (
                f"Weights INT8 weight-only (W8A16): the model is released in {release.words} ({source}), but {lacks}, "
                "so its INT8 weights are ranked as that engine runs them; set engine vllm, sglang or trtllm to rank "
                "the release, or weight_dtype to rank another."
            )
        if release.precision == "mxfp4":
            return (
                f"Weights as released: MXFP4 MoE weights, ranked as 4-bit weight-only (int4, W4A16) as the release "
                f"runs on Hopper ({source}); set weight_dtype to rank another."
            )
        return f"Weights as released: {release.words} ({source}); set weight_dtype to rank another."


def release_weights(
    workload: InferenceWorkload, model: ModelSpec, results: Sequence[QualityResult] = ()
) -> tuple[InferenceWorkload, Weights]:
    """The workload at the weight dtype it ranks: its own weight_dtype when it names one, else the model's release
    precision's (FP8 -> fp8, MXFP4 -> int4 W4A16, BF16 or unknown -> bf16; INT8 W8A8 -> int8_w8a8, or int8 W8A16 on an
    engine without W8A8). The returned workload names its dtype, so its canonical query carries it."""
    asked = workload.weight_dtype if "weight_dtype" in workload.model_fields_set else None
    weights = weights_for(release_precision(model, results), workload.engine, asked)
    if weights.given:
        return workload, weights
    # model_copy skips the validators: weights_for never gives int8_w8a8 to an engine that _engine_runs_w8a8 refuses.
    return workload.model_copy(update={"weight_dtype": weights.dtype}), weights


def weights_for(release: Release, engine: str, asked: str | None) -> Weights:
    """The weights a question on `engine` ranks: the dtype it asked, else the release's as that engine runs it (a W8A8
    release on an engine with no INT8 W8A8 as INT8 weight-only, and the note says why; a 422 would name weight_dtype, a
    field the question left blank to mean "as released", when the engine runs these weights one way)."""
    lacks = w8a8_lack(engine) if release.weight_dtype == INT8_W8A8 and engine in NO_W8A8_ENGINES else ""
    if asked is not None:
        return Weights(asked, True, release, lacks)
    return Weights(W8A8_WHERE_NONE if lacks else release.weight_dtype, False, release, lacks)
