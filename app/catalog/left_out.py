"""The reference rows the seed leaves out and why: the spec build's own record
(scripts/build_seed_specs.py writes seed_data/reference_left_out.csv), read for the pages that list the catalog."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

LEFT_OUT_FILE = "reference_left_out.csv"


@dataclass(frozen=True, slots=True)
class LeftOutRow:
    reference_file: str  # the shared reference file the row is in: gpus.csv, models.csv
    id: str
    name: str
    reason: str


def left_out_rows(seed_dir: Path, reference_file: str) -> list[LeftOutRow]:
    """The rows of one reference file the build left out (none when the build wrote no record)."""
    path = seed_dir / LEFT_OUT_FILE
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as handle:
        rows = [LeftOutRow(**row) for row in csv.DictReader(handle)]
    return [row for row in rows if row.reference_file == reference_file]
