"""Golden outputs: the rank, estimate, plan and disagg JSON of fixed questions, byte for byte.

A refactor is done when these are identical. A change that means to move answers regenerates them
on purpose (`GPUMATCH_GOLDEN_UPDATE=1 pytest tests/golden`) and says why in its commit.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.catalog import snapshot
from app.main import create_app
from tests.conftest import settings_for

GOLDEN_DIR = Path(__file__).parent / "answers"
LIMIT = {"limit": 25}  # the top of each ranking, with its terms; the count of the rest is in the payload
UPDATE = os.environ.get("GPUMATCH_GOLDEN_UPDATE") == "1"

CASES: dict[str, tuple[str, dict]] = {
    "rank_inference_8b_chat": (
        "/api/v1/rank/inference",
        {"model": "llama-3.1-8b", "input_len": 1000, "output_len": 300, "ttft_ms": 500, "tpot_ms": 30},
    ),
    # A fixed request rate: each row's load spread over every copy its rented instance holds (spread_load.py)
    "rank_inference_8b_request_rate": (
        "/api/v1/rank/inference",
        {"model": "llama-3.1-8b", "ttft_ms": 500, "scenario": "request_rate", "requests_per_s": 20},
    ),
    "rank_inference_70b_fp8": (
        "/api/v1/rank/inference",
        {
            "model": "llama-3.1-70b",
            "weight_dtype": "fp8",
            "kv_dtype": "fp8",
            "input_len": 2000,
            "output_len": 400,
            "ttft_ms": 1000,
            "tpot_ms": 50,
            "engine": "vllm",
        },
    ),
    "rank_inference_deepseek": (
        "/api/v1/rank/inference",
        {
            "model": "deepseek-r1",
            "weight_dtype": "fp8",
            "input_len": 1000,
            "output_len": 1000,
            "tpot_ms": 100,
            "max_gpus": 16,
        },
    ),
    # No weight_dtype: the MXFP4 release, ranked as 4-bit weight-only (int4, W4A16)
    "rank_inference_gpt_oss_release": ("/api/v1/rank/inference", {"model": "gpt-oss-120b", "input_len": 1000}),
    "rank_inference_hf_config": (
        "/api/v1/rank/inference",
        {
            "hf_config": {
                "model_type": "qwen2",
                "hidden_size": 1536,
                "num_hidden_layers": 28,
                "num_attention_heads": 12,
                "num_key_value_heads": 2,
                "intermediate_size": 8960,
                "vocab_size": 151936,
                "torch_dtype": "bfloat16",
            },
            "input_len": 2048,
            "output_len": 512,
        },
    ),
    # Plain int8 is weight-only INT8 (W8A16): pinned before INT8 W8A8 was priced, so that it keeps its meaning
    "rank_inference_8b_int8": (
        "/api/v1/rank/inference",
        {"model": "llama-3.1-8b", "weight_dtype": "int8", "input_len": 4000, "output_len": 300, "engine": "vllm"},
    ),
    "rank_inference_mixtral_sglang": (
        "/api/v1/rank/inference",
        {"model": "mixtral-8x7b", "input_len": 512, "output_len": 256, "engine": "sglang"},
    ),
    "rank_inference_custom": (
        "/api/v1/rank/inference",
        {
            "custom_model": {
                "name": "tiny",
                "params_b": 1.0,
                "layers": 16,
                "hidden_size": 2048,
                "num_attention_heads": 16,
                "num_kv_heads": 4,
                "intermediate_size": 5632,
            },
            "input_len": 256,
            "output_len": 128,
        },
    ),
    "rank_training_lora": (
        "/api/v1/rank/training",
        {
            "model": "llama-3.1-8b",
            "method": "lora",
            "precision": "bf16",
            "seq_len": 4096,
            "global_batch_seqs": 64,
            "total_tokens": 2e9,
        },
    ),
    "rank_training_qlora_70b": (
        "/api/v1/rank/training",
        {"model": "llama-3.1-70b", "method": "qlora", "seq_len": 2048, "global_batch_seqs": 16},
    ),
    "rank_training_full_ft": (
        "/api/v1/rank/training",
        {"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 4096, "global_batch_seqs": 256, "max_gpus": 64},
    ),
    "rank_training_pretrain_7b": (
        "/api/v1/rank/training",
        {"model": "llama-2-7b", "method": "pretrain", "total_tokens": 1e12, "max_gpus": 512},
    ),
    "estimate_inference_h100": (
        "/api/v1/estimate/inference",
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "gpu": "H100-SXM", "gpu_count": 2},
    ),
    "estimate_inference_a100_int8": (
        "/api/v1/estimate/inference",
        {
            "model": "llama-3.1-8b",
            "weight_dtype": "int8",
            "gpu": "A100-SXM-80GB",
            "gpu_count": 1,
            "input_len": 8000,
            "ttft_ms": 5000,
        },
    ),
    "estimate_training_a100": (
        "/api/v1/estimate/training",
        {"model": "llama-3.1-8b", "method": "lora", "gpu": "A100-SXM-80GB", "gpu_count": 1},
    ),
    "plan_serving_70b": (
        "/api/v1/plan/serving",
        {
            "workload": {"model": "llama-3.1-70b"},
            "traffic": {
                "requests_per_day": 500000,
                "profile": "diurnal",
                "peak_factor": 3,
                "min_replicas": 0,
                "cold_start_s": 60,
            },
        },
    ),
    # limits_at band_high on /disagg: each pool at its borrowed band's slow end, its latency_band_ms shown
    "disagg_70b_fp8_band_high": (
        "/api/v1/disagg",
        {
            "workload": {
                "model": "llama-3.1-70b",
                "weight_dtype": "fp8",
                "ttft_ms": 1000,
                "tpot_ms": 50,
                "limits_at": "band_high",
            },
            "traffic": {"requests_per_day": 2000000},
        },
    ),
    "plan_lifecycle_lora": (
        "/api/v1/plan/lifecycle",
        {
            "training": {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 1e9},
            "inference": {"model": "llama-3.1-8b"},
            "months": 6,
        },
    ),
}


# Staleness depends on the day the snapshot loads; the answers are pinned on one day.
GOLDEN_DAY = date(2026, 12, 1)


@pytest.fixture(scope="module")
def golden_client(seeded_url: str):  # type: ignore[no-untyped-def]
    app = create_app(settings_for(seeded_url))
    with pytest.MonkeyPatch.context() as patch, TestClient(app) as client:
        patch.setattr(snapshot, "today_utc", lambda: GOLDEN_DAY)
        yield client


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_matches_golden(golden_client: TestClient, name: str) -> None:
    path, body = CASES[name]
    response = golden_client.post(path, params=LIMIT if "rank" in path or "serving" in path else None, json=body)
    assert response.status_code == 200, response.text
    answer = json.dumps(response.json(), indent=1, sort_keys=True)
    golden = GOLDEN_DIR / f"{name}.json"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(answer + "\n")
    # a missing golden is a failure, not a first run: writing it would pass whatever the answer says
    assert golden.exists(), f"{golden.name} is missing: GPUMATCH_GOLDEN_UPDATE=1 writes it (read it before committing)"
    assert answer + "\n" == golden.read_text(), f"{name} changed; see the module docstring"


def test_every_golden_file_has_a_case() -> None:
    """A golden no case reads pins nothing: a renamed or removed case leaves one behind, looking like coverage."""
    unused = sorted(p.name for p in GOLDEN_DIR.glob("*.json") if p.stem not in CASES)
    assert unused == [], "delete the golden files no case uses"
