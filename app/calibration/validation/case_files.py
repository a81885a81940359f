"""Case files (shared/validation/*_cases.csv) read into rows: the columns a case needs, and a cumulative
technique table's rows given the techniques above them.

A file without a required column, or one that cannot be read, is a CaseFileError naming the file and the column;
validate.py predicts and summarises the rows read here.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

# The columns a case cannot be predicted or scored without (shared/validation/README.md has the whole schema);
# a case file is a training one when it has a framework or method column (is_training).
CASE_COLUMNS = ("case_id", "source", "gpu", "gpu_count", "model", "metric", "value")
INFERENCE_COLUMNS = (*CASE_COLUMNS, "input_len", "output_len")
TRAINING_COLUMNS = (*CASE_COLUMNS, "method", "seq_len", "global_batch_seqs")


class CaseFileError(ValueError):
    """A case file whose shape is wrong: required columns missing, or a row with more or fewer cells than the header."""


def read_cases(path: str | Path) -> list[dict]:
    """The case rows; raises CaseFileError for a file that is not a case table (a cell that cannot be read stays
    a row, predicted `covered: false` with its reason)."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        rows = list(reader)
    required = TRAINING_COLUMNS if is_training([dict.fromkeys(header)]) else INFERENCE_COLUMNS
    if missing := [name for name in required if name not in header]:
        raise CaseFileError(f"missing required columns: {', '.join(missing)}")
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        if None in row or None in row.values():
            raise CaseFileError(f"line {number} has {_cells(row)} cells, the header {len(header)}")
    return with_cumulative_techniques(with_readme_spellings(rows))


# The README's enums are lower case ("`vllm`", "`fp8`", "`p99`"); a publication's table typed as " vLLM ", "FP8",
# "TensorRT-LLM" or "Megatron-Core" means the same, and reads as the README's spelling. Ids keep theirs ("H100-SXM",
# "llama-3-8b"): a cell that differs from exactly one of them only in case or surrounding spaces reads as that id.
# Anything else stays as typed, and the row is uncovered with its reason (an unknown id) or noted ("engine ...
# treated as ...").
ENUM_COLUMNS = (
    "engine",
    "framework",
    "scenario",
    "metric",
    "statistic",
    "weight_dtype",
    "kv_dtype",
    "method",
    "precision",
)
ALIASES = {
    "engine": {
        "tensorrt-llm": "trtllm",
        "tensorrt_llm": "trtllm",
        "trt-llm": "trtllm",
        "llama.cpp": "llamacpp",
        "llama-cpp": "llamacpp",
    },
    "framework": {
        "megatron-core": "megatron-lm",
        "megatron": "megatron-lm",
        "llm foundry": "llm-foundry",
        "llmfoundry": "llm-foundry",
    },
}


def with_readme_spellings(rows: list[dict]) -> list[dict]:
    """Each row's enum cells in the README's spelling and its gpu / model cells as the reference ids they name."""
    ids = {"gpu": _ids_by_casefold("gpus.csv"), "model": _ids_by_casefold("models.csv")}
    for row in rows:
        for column in ENUM_COLUMNS:
            if (cell := row.get(column)) is not None:
                spelled = cell.strip().lower()
                row[column] = ALIASES.get(column, {}).get(spelled, spelled)
        for column, by_casefold in ids.items():
            if (cell := row.get(column)) is not None:
                row[column] = by_casefold.get(cell.strip().casefold(), cell)
    return rows


@lru_cache(maxsize=2)
def _ids_by_casefold(file_name: str) -> dict[str, str]:
    """The seed table's ids by their casefolded spelling (one dropped where two ids share it: neither is guessed)."""
    from app.catalog.spec_files import SEED_DIR

    with open(SEED_DIR / file_name, encoding="utf-8", newline="") as handle:
        ids = [row["id"] for row in csv.DictReader(handle)]
    folded = [name.casefold() for name in ids]
    return {key: name for key, name in zip(folded, ids, strict=True) if folded.count(key) == 1}


def _cells(row: dict) -> int:
    extra = row.get(None) or []
    return sum(1 for key, value in row.items() if key is not None and value is not None) + len(extra)


# A row of a cumulative table ("cumulative technique '+ Compile'": torchtune's optimization-flags table, where each
# row adds one technique to all the rows above it) names only its own technique.
CUMULATIVE_TECHNIQUE = re.compile(r"cumulative technique '([^']+)'")
TECHNIQUES_ABOVE = "techniques above it in the cumulative table: "


def with_cumulative_techniques(rows: list[dict]) -> list[dict]:
    """Append to such a row's notes the techniques of the rows above it in its table (same source, same table
    note, file order), so that the readers of run conditions see the whole stack it ran with."""
    stacks: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        notes = row.get("notes") or ""
        found = next(((part, m) for part in notes.split("; ") if (m := CUMULATIVE_TECHNIQUE.search(part))), None)
        if found is None:
            continue
        item, technique = found[0], found[1].group(1)
        stack = stacks.setdefault((row.get("source", ""), CUMULATIVE_TECHNIQUE.sub("", item)), [])
        if technique not in stack:
            stack.append(technique)
        above = stack[: stack.index(technique)]
        if above:
            row["notes"] = f"{notes}; {TECHNIQUES_ABOVE}{', '.join(above)}"
    return rows


def is_training(rows: list[dict]) -> bool:
    columns = set(rows[0]) if rows else set()
    return "framework" in columns or "method" in columns
