"""MoE layer counts in the seed: scripts/build_seed_specs.py reads them from the reference notes; the committed
seed_data/models.csv, the database and an invalid row."""

from __future__ import annotations

import csv
import importlib
import shutil
from pathlib import Path

import pytest
from sqlmodel import Session

from app.catalog.setup import seed
from app.catalog.snapshot import model_spec
from app.catalog.spec_files import load_model_specs
from app.db import make_engine
from app.models.llm import LlmModel
from tests.conftest import SEED_DIR

REFERENCE = SEED_DIR.parent.parent / "shared" / "reference"


def test_seed_counts_only_the_layers_with_experts():
    models = load_model_specs()
    counts = {m: models[m].moe_layers for m in ("llama-4-maverick", "deepseek-r1", "deepseek-v3", "kimi-k2")}
    assert counts == {"llama-4-maverick": 24, "deepseek-r1": 58, "deepseek-v3": 58, "kimi-k2": 60}
    assert (models["glm-4.5"].moe_layers, models["glm-4.5-air"].moe_layers) == (89, 45)
    assert models["llama-4-scout"].moe_layers == 48 and models["qwen3-235b-a22b"].moe_layers == 94  # all MoE
    assert models["llama-3.1-8b"].moe_layers == 0


@pytest.mark.skipif(not (REFERENCE / "models.csv").exists(), reason="the shared reference is not checked out")
def test_committed_moe_layers_are_the_builders_output(monkeypatch: pytest.MonkeyPatch):
    builder = importlib.import_module("scripts.build_seed_specs")
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    built = {row["id"]: row["moe_layers"] for row in builder.build_models()}
    with open(SEED_DIR / "models.csv", encoding="utf-8") as handle:
        seeded = {row["id"]: row["moe_layers"] for row in csv.DictReader(handle)}
    assert seeded == built


def test_a_stated_count_is_read_not_a_figure_inside_a_word():
    builder = importlib.import_module("scripts.build_seed_specs")
    row = {"id": "x", "num_experts": "128", "layers": "36", "notes": "MXFP4 MoE weights; first_k_dense_replace 1"}
    assert builder.moe_layers(row, {}) == "36"  # "MXFP4 MoE" is no count: every layer
    row["notes"] = "first_k_dense_replace 1 (1 dense + 35 MoE layers)"
    assert builder.moe_layers(row, {}) == "35"
    assert builder.moe_layers({**row, "num_experts": "0"}, {}) == "0"


def test_database_snapshot_carries_the_count(seeded_url: str):
    engine = make_engine(seeded_url)
    with Session(engine) as session:
        row = session.get(LlmModel, "llama-4-maverick")
        assert row is not None
        spec = model_spec(row)
    engine.dispose()
    assert (spec.layers, spec.moe_layers, spec.dense_ffn_layers) == (48, 24, 24)


def _seed_with(tmp_path: Path, model_id: str, **cells: str) -> tuple[Path, int]:
    seed_dir = tmp_path / "seed"
    shutil.copytree(SEED_DIR, seed_dir)
    path = seed_dir / "models.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    index = next(i for i, row in enumerate(rows) if row["id"] == model_id)
    rows[index].update(cells)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return seed_dir, index + 2  # header is line 1


@pytest.mark.parametrize(
    ("model_id", "count", "words"),
    [("deepseek-r1", "62", "61 layers"), ("llama-3.1-8b", "4", "routed experts")],
)
def test_a_bad_moe_layer_count_is_a_row_error(fresh_url: str, tmp_path: Path, model_id: str, count: str, words: str):
    seed_dir, line = _seed_with(tmp_path, model_id, moe_layers=count)
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir)}
    engine.dispose()
    [error] = reports["models.csv"].errors
    assert (error.line, error.field) == (line, "moe_layers") and words in error.message
