"""Sliding-window attention in the seed: scripts/build_seed_specs.py's SLIDING_WINDOW table against the
reference notes, the committed seed_data/models.csv, the database and an invalid row."""

from __future__ import annotations

import csv
import importlib
import re
import shutil
from pathlib import Path

import pytest
from sqlmodel import Session

from app.catalog.setup import seed
from app.catalog.snapshot import model_spec
from app.catalog.spec_files import load_model_specs
from app.db import make_engine
from app.models.llm import LlmModel
from app.scoring.inference.step.memory import kv_bytes_per_sequence
from tests.conftest import SEED_DIR

REFERENCE = SEED_DIR.parent.parent / "shared" / "reference"
# Notes that mention a sliding window only to say the model has none.
NO_WINDOW = ("no sliding window", "sliding_window null", "use_sliding_window false")
# Words that say some layers attend to fewer tokens than the context: a window, local layers or chunks.
LOCAL_ATTENTION_WORDS = ("sliding", "local/global", "local attention", "chunked", "attention_chunk")


def _builder(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    builder = importlib.import_module("scripts.build_seed_specs")
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    return builder


def test_gpt_oss_alternates_full_and_window_128_layers():
    models = load_model_specs()
    assert (models["gpt-oss-120b"].sliding_window, models["gpt-oss-120b"].sliding_layers) == (128, 18)
    assert (models["gpt-oss-20b"].sliding_window, models["gpt-oss-20b"].sliding_layers) == (128, 12)
    assert (models["gemma-3-27b"].sliding_window, models["gemma-3-27b"].sliding_layers) == (1024, 52)
    assert (models["mistral-7b"].sliding_window, models["mistral-7b"].sliding_layers) == (0, 0)  # left out
    assert (models["llama-3.1-8b"].sliding_window, models["llama-3.1-8b"].sliding_layers) == (0, 0)


@pytest.mark.skipif(not (REFERENCE / "models.csv").exists(), reason="the shared reference is not checked out")
def test_every_local_attention_window_the_notes_name_is_in_the_table(monkeypatch: pytest.MonkeyPatch):
    """A sliding window, local/global layers or chunked attention (Llama 4) in a row's notes (the reference's, or
    the words the builder adds from the config) is in SLIDING_WINDOW, left out with a reason, or said to be none."""
    builder = _builder(monkeypatch)
    rows = {row["id"]: row for row in builder.build_models()}
    for model_id, row in rows.items():
        notes = row["notes"].lower()
        if model_id in builder.SLIDING_WINDOW:
            window, sliding = builder.SLIDING_WINDOW[model_id]
            assert re.search(rf"(window|chunked attention)\D{{0,12}}\(?{window}\b", notes), model_id
            assert 0 < sliding <= int(row["layers"]), model_id
        elif any(word in notes for word in LOCAL_ATTENTION_WORDS):
            said_none = any(phrase in notes for phrase in NO_WINDOW)
            assert said_none or model_id in builder.SLIDING_WINDOW_LEFT_OUT, f"{model_id}: notes mention a window"
    assert set(builder.SLIDING_WINDOW) <= set(rows) and not set(builder.SLIDING_WINDOW) & set(
        builder.SLIDING_WINDOW_LEFT_OUT
    )


def test_llama_4_chunked_attention_caches_one_chunk_on_three_of_four_layers():
    models = load_model_specs()
    for model_id in ("llama-4-scout", "llama-4-maverick"):
        assert (models[model_id].sliding_window, models[model_id].sliding_layers) == (8192, 36), model_id
    kv_128k_gb = kv_bytes_per_sequence(models["llama-4-scout"], "bf16", 131072) / 1e9
    assert kv_128k_gb == pytest.approx((12 * 131072 + 36 * 8192) * 2 * 8 * 128 * 2 / 1e9)  # 7.65 GB, not 25.8 GB


@pytest.mark.skipif(not (REFERENCE / "models.csv").exists(), reason="the shared reference is not checked out")
def test_committed_seed_is_the_builders_output(monkeypatch: pytest.MonkeyPatch):
    built = {row["id"]: row for row in _builder(monkeypatch).build_models()}
    with open(SEED_DIR / "models.csv", encoding="utf-8") as handle:
        seeded = {row["id"]: row for row in csv.DictReader(handle)}
    assert {k: (r["sliding_window"], r["sliding_layers"]) for k, r in seeded.items()} == {
        k: (r["sliding_window"], r["sliding_layers"]) for k, r in built.items()
    }


def test_database_snapshot_carries_the_window(seeded_url: str):
    engine = make_engine(seeded_url)
    with Session(engine) as session:
        row = session.get(LlmModel, "gpt-oss-120b")
        assert row is not None
        spec = model_spec(row)
    engine.dispose()
    assert (spec.sliding_window, spec.sliding_layers) == (128, 18)


def test_more_sliding_layers_than_layers_is_a_row_error(fresh_url: str, tmp_path: Path):
    seed_dir = tmp_path / "seed"
    shutil.copytree(SEED_DIR, seed_dir)
    path = seed_dir / "models.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    line = next(i for i, row in enumerate(rows) if row["id"] == "gpt-oss-20b") + 2  # header is line 1
    rows[line - 2]["sliding_layers"] = "25"  # of 24 layers
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir)}
    engine.dispose()
    [error] = reports["models.csv"].errors
    assert (error.line, error.field) == (line, "sliding_layers") and "24 layers" in error.message
