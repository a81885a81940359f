"""In-process ranking speed: the whole seeded catalog, and the same with 100x synthetic offers.

Every run gets a slightly different workload (input_len / seq_len) so no memo of a previous run helps.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.rank import ranking
from benchmarks.bench_data import bench_snapshot

RUNS = 60
OFFER_MULTIPLIER = 100


def inference_workload(run: int) -> InferenceWorkload:
    values = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2000 + run}
    return InferenceWorkload.model_validate(values)


def mla_workload(run: int) -> InferenceWorkload:
    """An MLA model: attention_parallel auto solves every TP > 1 configuration both by heads and data-parallel."""
    values = {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 2000 + run}
    return InferenceWorkload.model_validate(values)


def open_loop_workload(run: int) -> InferenceWorkload:
    """Poisson arrivals: each configuration searches for the running batch where completions meet the rate."""
    values = {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 0.5, "input_len": 2000 + run}
    return InferenceWorkload.model_validate(values)


def batch_job_workload(run: int) -> InferenceWorkload:
    """A batch job with a deadline: replicas searched per configuration, every offer billed the job's hours."""
    values = {
        "model": "llama-3.1-8b",
        "scenario": "max_throughput",
        "job_requests": 1_000_000 + run,
        "job_deadline_hours": 1,
        "price_types": ["on_demand", "spot", "reserved"],
    }
    return InferenceWorkload.model_validate(values)


def training_workload(run: int) -> TrainingWorkload:
    return TrainingWorkload.model_validate({"seq_len": 4096 + run})


def median_ms(phase: str, make: Callable[[int], Any], snapshot: CatalogSnapshot, start: int) -> float:
    """Median wall ms of rank() over RUNS distinct workloads (numbered from `start`, never reused)."""
    timings_ms = []
    for run in range(start, start + RUNS):
        workload = make(run)
        began = time.perf_counter()
        ranking.rank(phase, workload, snapshot)
        timings_ms.append((time.perf_counter() - began) * 1000)
    return statistics.median(timings_ms)


def measure(snapshot: CatalogSnapshot) -> list[dict[str, Any]]:
    big = bench_snapshot(OFFER_MULTIPLIER)
    rows = []
    phases = (
        ("inference", "inference", inference_workload),
        ("inference, DeepSeek-R1 (attention auto)", "inference", mla_workload),
        ("inference, open loop (request rate)", "inference", open_loop_workload),
        ("inference, batch job with a deadline", "inference", batch_job_workload),
        ("training", "training", training_workload),
    )
    for label, phase, make in phases:
        # Neighbouring but distinct workloads (e.g. 2000-2059 vs 2100-2159 input tokens): the same regime,
        # and no estimate memoised in one run can serve another.
        base_ms = median_ms(phase, make, snapshot, start=0)
        big_ms = median_ms(phase, make, big, start=2 * RUNS)
        rows.append(
            {
                "phase": label,
                "offers": len(snapshot.offers),
                "median_ms": base_ms,
                "offers_big": len(big.offers),
                "median_ms_big": big_ms,
                "ratio": big_ms / base_ms,
            }
        )
    return rows
