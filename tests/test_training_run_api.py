"""A training ranking's #1 run as the API, the page and the CLI give it: the count, the bill and its caveats."""

from __future__ import annotations

DEEPSEEK_FT = {
    "model": "deepseek-v3",
    "method": "full_ft",
    "seq_len": 4096,
    "global_batch_seqs": 64,
    "total_tokens": 1e9,
    "max_gpus": 512,
}


def test_deepseek_v3_fine_tuning_ranks_the_frontiers_cheapest_point_first(client):
    """72 B200 (TP8 FSDP ×9) at $6,652 ranked first where its frontier showed 128 (TP4 PP8 ZeRO-1 ×4) at $1,723:
    the count sweep stopped after two worse counts."""
    body = client.post("/api/v1/rank/training", json={**DEEPSEEK_FT, "gpus": ["B200"], "providers": ["coreweave"]})
    best, frontier = body.json()["options"][0], body.json()["frontier"]
    assert best["feasible"] and frontier
    assert best["total_usd"] <= min(p["total_usd"] for p in frontier if p["on_time"]) * 1.001
    assert best["gpu_count"] == 128 and "PP8" in best["layout"]


def test_a_capacity_block_run_is_billed_whole_days(client):
    """31.1 h on an AWS Capacity Block (24 h minimum, booked by the day) billed 31.1 h ($1,224); it books 48 h."""
    body = {
        "model": "llama-3.1-8b",
        "method": "full_ft",
        "total_tokens": 8e9,
        "max_gpus": 8,
        "price_types": ["capacity_block"],
        "include_stale": True,
        "gpus": ["H100-SXM"],
    }
    best = client.post("/api/v1/rank/training", json=body).json()["options"][0]
    assert best["provider"] == "aws" and 24 < best["total_hours"] < 48
    assert best["billed_hours"] == 48.0
    assert best["total_usd"] == best["gpu_count"] * best["usd_per_gpu_hour"] * 48.0
