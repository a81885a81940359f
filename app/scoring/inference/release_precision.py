"""A model's released precision, the reference its published quality deltas are measured against.

models.csv has no release-precision column, so it is read from quality.csv: a row whose method calls the checkpoint
native (`native FP8 mixed-precision training`, `native: MoE weights post-trained with MXFP4`) is the release at that
row's precision; a row whose baseline is said to be native (`baseline = native FP8`) names the release's precision.
Without either, the release is assumed to be BF16, and the answer says it was assumed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.scoring.specs import ModelSpec, QualityResult

NATIVE_METHOD = re.compile(r"^\s*native\b", re.IGNORECASE)
NATIVE_BASELINE = re.compile(
    r"baseline\s*=\s*native\s+(?P<a>[a-z0-9]+)|baseline_score is the (?P<b>[a-z0-9]+) \(native\)", re.IGNORECASE
)
NO_BASELINE = re.compile(r"no (?:\w+ )?baseline", re.IGNORECASE)
RELEASE_WORDS = {"bf16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}  # the release precisions the precision rows show


@dataclass(frozen=True, slots=True)
class Release:
    precision: str  # bf16 | fp8 | mxfp4
    source: str  # where it was read, in words
    source_url: str = ""
    assumed: bool = False  # nothing in the reference says: BF16 by default

    @property
    def words(self) -> str:
        return RELEASE_WORDS.get(self.precision, self.precision.upper())


def _native_baseline(row: QualityResult) -> str | None:
    for text in (row.method, row.note):
        if (found := NATIVE_BASELINE.search(text)) is not None:
            return (found.group("a") or found.group("b")).lower()
    return None


def release_precision(model: ModelSpec, results: Sequence[QualityResult]) -> Release:
    """The model's released precision from its own quality.csv rows (none of another model's)."""
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
        "assumed: models.csv has no release-precision column and quality.csv no native-precision row for this model",
        assumed=True,
    )


def stated_baseline(row: QualityResult) -> str:
    """What the row's recovery is measured against, as quality.csv gives it."""
    if NATIVE_METHOD.search(row.method):
        return "none (this row is the release itself)"
    if (native := _native_baseline(row)) is not None:
        return f"native {native.upper()}"
    if any(NO_BASELINE.search(text) for text in (row.benchmark, row.note)):
        return "none published"
    return "the unquantised model (quality.csv names no other baseline)"
