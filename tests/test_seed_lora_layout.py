"""What LoRA adapts, in the seed: MLA's projection sizes read from the reference notes and fused experts from the cited
config.json's model_type (scripts/adapter_layout.py); the committed seed_data/models.csv, the database, bad rows."""

from __future__ import annotations

import csv
import importlib

import pytest
from sqlmodel import Session

from app.catalog.setup import seed
from app.catalog.snapshot import model_spec
from app.catalog.spec_files import load_model_specs
from app.db import make_engine
from app.models.llm import LlmModel
from tests.conftest import SEED_DIR
from tests.test_seed_moe_layers import REFERENCE, _seed_with

MLA = ("q_lora_rank", "qk_nope_head_dim", "v_head_dim")
FUSED = ("experts_fused", "router_fused")
LAYOUT = (*MLA, *FUSED)


def test_seed_has_mla_sizes_for_deepseek_v3_its_siblings_and_kimi_k2():
    models = load_model_specs()
    for model_id in ("deepseek-v3", "deepseek-r1", "deepseek-v3.1", "deepseek-v3.2", "kimi-k2"):
        spec = models[model_id]
        assert (spec.q_lora_rank, spec.qk_nope_head_dim, spec.v_head_dim) == (1536, 128, 128), model_id
        assert spec.mla_projections_known and spec.qk_nope_head_dim + spec.qk_rope_head_dim == spec.head_dim
    assert not models["llama-3.1-8b"].mla_projections_known and models["llama-3.1-8b"].q_lora_rank == 0


def test_seed_marks_gpt_oss_and_llama_4_experts_fused_and_gpt_oss_router_too():
    models = load_model_specs()
    fused = {m: (s.experts_fused, s.router_fused) for m, s in models.items() if s.experts_fused or s.router_fused}
    assert fused == {
        "gpt-oss-20b": (True, True),
        "gpt-oss-120b": (True, True),
        "llama-4-scout": (True, False),
        "llama-4-maverick": (True, False),
    }


@pytest.mark.skipif(not (REFERENCE / "models.csv").exists(), reason="the shared reference is not checked out")
def test_committed_layout_is_the_builders_output(monkeypatch: pytest.MonkeyPatch):
    builder = importlib.import_module("scripts.build_seed_specs")
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    built = {row["id"]: tuple(row[c] for c in LAYOUT) for row in builder.build_models()}
    with open(SEED_DIR / "models.csv", encoding="utf-8") as handle:
        seeded = {row["id"]: tuple(row[c] for c in LAYOUT) for row in csv.DictReader(handle)}
    assert seeded == built


def test_mla_sizes_are_read_from_the_notes_or_a_same_architecture_row():
    layout = importlib.import_module("scripts.adapter_layout")
    v3 = {"id": "deepseek-v3", "attention": "mla", "head_dim": "192", "qk_rope_head_dim": "64"}
    v3["notes"] = "MLA: q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128 + qk_rope_head_dim 64, v_head_dim 128"
    r1 = {**v3, "id": "deepseek-r1", "notes": "Same architecture as DeepSeek-V3."}
    by_id = {"deepseek-v3": v3, "deepseek-r1": r1}
    assert layout.mla_dims(r1, by_id) == {"q_lora_rank": "1536", "qk_nope_head_dim": "128", "v_head_dim": "128"}
    silent = {**v3, "id": "other-mla", "notes": "MLA, sizes not stated"}
    assert layout.mla_dims(silent, by_id) == dict.fromkeys(MLA, "0")  # not stated: today's rule
    with pytest.raises(AssertionError, match="head_dim"):
        layout.mla_dims({**v3, "head_dim": "256"}, by_id)


def test_database_snapshot_carries_the_layout(seeded_url: str):
    engine = make_engine(seeded_url)
    with Session(engine) as session:
        rows = {m: session.get(LlmModel, m) for m in ("deepseek-v3", "gpt-oss-20b")}
        specs = {m: model_spec(row) for m, row in rows.items() if row is not None}
    engine.dispose()
    assert (specs["deepseek-v3"].q_lora_rank, specs["deepseek-v3"].v_head_dim) == (1536, 128)
    assert specs["gpt-oss-20b"].experts_fused is True and specs["gpt-oss-20b"].router_fused is True


@pytest.mark.parametrize(
    ("model_id", "cells", "field", "words"),
    [
        ("deepseek-v3", {"qk_nope_head_dim": "96"}, "qk_nope_head_dim", "head_dim 192"),
        ("llama-3.1-8b", {"qk_nope_head_dim": "64"}, "qk_nope_head_dim", "attention must be mla"),
        ("llama-3.1-8b", {"experts_fused": "true"}, "experts_fused", "routed experts"),
    ],
)
def test_a_bad_layout_cell_is_a_row_error(fresh_url: str, tmp_path, model_id, cells, field, words):
    seed_dir, line = _seed_with(tmp_path, model_id, **cells)
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir)}
    engine.dispose()
    [error] = reports["models.csv"].errors
    assert (error.line, error.field) == (line, field) and words in error.message
