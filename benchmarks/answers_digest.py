"""One digest of many inference answers, to show a speed change moves no byte of any answer.

Ranks QUESTIONS (dense and MoE/MLA models, open and closed loops, some given the replicas note, a batch job, tight
and loose limits, FP8/FP4, AMD, multi-node, spot-only, price types) in process (rank_payload with terms: every row,
reason and band) and through the JSON API (POST /api/v1/rank/inference on a freshly seeded database), seven of them
(two fixed loads, spread over copies) again on the seed offers three times over (bench_data.bench_snapshot(3): many
offers a slot), and prints the SHA-256 of the JSON of all of them. Run it on two trees
(`PYTHONPATH=<tree> python -m benchmarks.answers_digest`): the same digest means the same answers.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

QUESTIONS: list[dict[str, Any]] = [
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2000},
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2000, "ttft_ms": 300, "tpot_ms": 15},
    {"model": "llama-3.1-8b", "ttft_ms": 30000, "tpot_ms": 400},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 2000},
    {"model": "deepseek-r1", "weight_dtype": "fp4", "attention_parallel": "dp", "tpot_ms": 30},
    {"model": "qwen3-30b-a3b", "scenario": "request_rate", "requests_per_s": 3.0},
    {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 0.5, "input_len": 2000},
    {"model": "llama-3.1-70b", "scenario": "request_rate", "requests_per_s": 400.0, "weight_dtype": "fp8"},
    {"model": "llama-3.1-8b", "scenario": "concurrency", "concurrency": 64},
    {"model": "llama-3.1-70b", "scenario": "concurrency", "concurrency": 2000, "weight_dtype": "bf16"},
    {
        "model": "llama-3.1-8b",
        "scenario": "max_throughput",
        "job_requests": 1_000_000,
        "job_deadline_hours": 1,
        "price_types": ["on_demand", "spot", "reserved"],
    },
    {"model": "mixtral-8x7b", "scenario": "max_throughput", "engine": "trtllm"},
    {"model": "llama-3.1-405b", "weight_dtype": "fp8", "max_gpus": 16},
    {"model": "llama-3.1-70b", "vendors": ["amd"], "weight_dtype": "fp8"},
    {"model": "qwen2.5-72b", "price_types": ["spot"], "weight_dtype": "int4"},
    {"model": "gpt-oss-120b", "weight_dtype": "fp4", "input_len": 8000, "output_len": 1000},
    {"model": "llama-3.1-8b", "scenario": "single_stream", "output_len": 1},
    {"model": "llama-3.2-1b", "ttft_ms": 50, "tpot_ms": 5, "price_types": ["marketplace", "on_demand"]},
    {"model": "kimi-k2", "weight_dtype": "fp8", "max_gpus": 32, "rank_by": "requests"},
    {"model": "llama-3.1-8b", "scenario": "fixed_batch", "batch": 32, "beam_width": 4},
    # fixed loads whose replicas note is given (cheaper_on_replicas), and low ones where it is not
    {"model": "llama-3.1-8b", "scenario": "concurrency", "concurrency": 512},
    {"model": "mixtral-8x7b", "scenario": "concurrency", "concurrency": 128},
    {"model": "qwen3-30b-a3b", "scenario": "request_rate", "requests_per_s": 5.0, "ttft_ms": 500, "tpot_ms": 20},
    {"model": "llama-3.1-70b", "scenario": "request_rate", "requests_per_s": 10.0, "weight_dtype": "fp8"},
    {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20.0},
    {"model": "deepseek-r1", "scenario": "request_rate", "requests_per_s": 0.05, "weight_dtype": "fp8"},
    {"model": "llama-3.1-70b", "scenario": "concurrency", "concurrency": 16, "weight_dtype": "fp8"},
]


def in_process(offer_multiplier: int = 1, questions: list[dict[str, Any]] = QUESTIONS) -> list[Any]:
    from app.scoring.workload import InferenceWorkload
    from app.service.rank.ranking import rank_payload
    from benchmarks.bench_data import bench_snapshot

    snapshot = bench_snapshot(offer_multiplier)
    answers = []
    for question in questions:
        workload = InferenceWorkload.model_validate(question)
        answers.append(rank_payload("inference", workload, snapshot, "/share"))
    return answers


def through_api() -> list[Any]:
    from fastapi.testclient import TestClient

    from app.catalog.setup import migrate, seed
    from app.config import PROJECT_ROOT, Settings
    from app.db import make_engine
    from app.main import create_app

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'digest.db'}"
        migrate.upgrade(url)
        engine = make_engine(url)
        seed.seed(engine, PROJECT_ROOT / "seed_data")
        engine.dispose()
        answers = []
        with TestClient(create_app(Settings(database_url=url, share_rate_limit=""))) as client:
            for question in QUESTIONS:
                response = client.post("/api/v1/rank/inference?terms=true", json=question)
                answers.append([response.status_code, response.json()])
        return answers


def main() -> None:
    # every offer three times over (other provider ids, prices within 5 %): many offers a slot, many refused
    copies = in_process(3, QUESTIONS[:4] + QUESTIONS[10:11] + QUESTIONS[24:25] + QUESTIONS[26:27])
    body = json.dumps({"in_process": in_process(), "api": through_api(), "x3": copies}, sort_keys=True).encode()
    print(f"{len(QUESTIONS)} questions, {len(body)} bytes, sha256 {hashlib.sha256(body).hexdigest()}")
    if "-o" in sys.argv:
        Path(sys.argv[sys.argv.index("-o") + 1]).write_bytes(body)


if __name__ == "__main__":
    main()
