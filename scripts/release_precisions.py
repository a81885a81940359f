"""Each model's release precision for seed_data/models.csv: `release_precision` and the `release_precision_source`.

Read, in this order, from what the reference states about the model itself: a quality.csv row whose method calls the
checkpoint native, a quality.csv row whose baseline is the native checkpoint, a models.csv note naming the release's
format, and then the quantization_config of the config.json that the models.csv row cites (CONFIG_QUANTIZATION).
A model none of them speaks for is `unknown`: the app assumes BF16 for it and says so.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from app.scoring.inference.ranking.release_precision import NATIVE_BASELINE, NATIVE_METHOD, RELEASE_WORDS

UNKNOWN = "unknown"
UNKNOWN_SOURCE = "unknown: the reference does not state the release precision (BF16 assumed)"
NOTE_RELEASE = re.compile(r"\b(?P<precision>FP8|MXFP4)\b[^;.]*\bin the release\b", re.IGNORECASE)

# The `quantization_config` of the config.json each models.csv row cites as its source_url (the reference rows say
# nothing of the release's precision): DeepSeek-V3.1 and V3.2 keep V3's FP8 format, Kimi K2 and MiniMax-M2 ship theirs.
CONFIG_QUANTIZATION = {
    model_id: ("fp8", "quant_method fp8, weight_block_size [128, 128]")
    for model_id in ("deepseek-v3.1", "deepseek-v3.2", "kimi-k2", "minimax-m2")
}


def _from_quality(rows: list[dict[str, str]]) -> tuple[str, str] | None:
    for row in rows:
        if NATIVE_METHOD.search(row["method"]) and row["precision"] in RELEASE_WORDS:
            quote = row["method"].split(";")[0].strip()
            return row["precision"], f"quality.csv: {row['model']}, method '{quote}' ({row['source_url']})"
    for row in rows:
        for text in (row["method"], row["note"]):
            found = NATIVE_BASELINE.search(text)
            if found is not None and (native := (found.group("a") or found.group("b")).lower()) in RELEASE_WORDS:
                said = f"quality.csv: {row['model']}'s {row['precision']} rows give their baseline as native"
                return native, f"{said} {native.upper()} ({row['source_url']})"
    return None


def release_precision(model: dict[str, str], quality: list[dict[str, str]]) -> tuple[str, str]:
    """(precision, where it was read) for one reference models.csv row."""
    found = _from_quality([r for r in quality if r["model_id"] == model["id"]])
    if found is not None:
        return found
    if (note := NOTE_RELEASE.search(model["notes"])) is not None:
        return note.group("precision").lower(), f"models.csv notes: '{note.group(0)}'"
    if model["id"] in CONFIG_QUANTIZATION:
        precision, stated = CONFIG_QUANTIZATION[model["id"]]
        return precision, f"config.json quantization_config: {stated} ({model['source_url']})"
    return UNKNOWN, UNKNOWN_SOURCE


def read_quality(reference: Path) -> list[dict[str, str]]:
    with open(reference / "quality.csv", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if row["model_id"]]
