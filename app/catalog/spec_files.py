"""Read GPU and model specs straight from seed_data/*.csv into scoring types.

Used by the seed loader and by tests/commands that need specs without a database.
"""

from __future__ import annotations

import csv
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, TypeVar

from app.scoring.hardware.gpu_gaps import fill_catalog_gaps
from app.scoring.specs import GpuSpec, ModelSpec, peak_estimated

SpecT = TypeVar("SpecT", GpuSpec, ModelSpec)

SEED_DIR = Path(__file__).resolve().parents[2] / "seed_data"


def _coerce(kind: type | str, text: str) -> object:
    text = text.strip()
    kind_name = kind if isinstance(kind, str) else kind.__name__
    if text == "":
        return None if "None" in kind_name else ("" if "str" in kind_name else 0)
    if kind_name.startswith("bool"):
        return text.lower() in ("true", "1")
    if kind_name.startswith("int"):
        return int(float(text))
    if kind_name.startswith("float"):
        return float(text)
    return text


def _spec_from_row(cls: type[SpecT], row: dict[str, str]) -> SpecT:
    # Values are coerced from each field's annotation, so the dynamic construction is well-typed at run time.
    values: dict[str, Any] = {f.name: _coerce(f.type, row[f.name]) for f in fields(cls) if f.name in row}
    return cls(**values)


def load_gpu_specs(seed_dir: Path = SEED_DIR) -> dict[str, GpuSpec]:
    with open(seed_dir / "gpus.csv", encoding="utf-8") as handle:
        specs = [
            replace(
                _spec_from_row(GpuSpec, row),
                peak_estimated=peak_estimated(
                    row["peak_verification"], _float_or_none(row["bf16_tflops"]), _float_or_none(row["fp16_tflops"])
                ),
            )
            for row in csv.DictReader(handle)
        ]
    return fill_catalog_gaps({spec.id: spec for spec in specs})


def load_model_specs(seed_dir: Path = SEED_DIR) -> dict[str, ModelSpec]:
    with open(seed_dir / "models.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    specs = []
    for row in rows:
        row = dict(row, name=row["name"])
        row["num_kv_heads"] = row["num_kv_heads"] or row["num_attention_heads"]
        specs.append(_spec_from_row(ModelSpec, row))
    return {spec.id: spec for spec in specs}


def _float_or_none(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None
