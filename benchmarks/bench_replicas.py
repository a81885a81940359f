"""What the replicas note costs a fixed-load question: a question whose load one replica takes whole (clients in
flight, or a request rate) ranks the same load again as a latency-bound peak, to decide whether to say that replicas
sized to the limits are cheaper (app.service.rank.answer_body.cheaper_on_replicas; only the fleets that could come
first or be noted are estimated: ranking.fleet_leader). Measured as that ranking plus the decision against the plain
ranking of the same question, in one run; each run a distinct workload."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service.rank import ranking
from app.service.rank.answer_body import cheaper_on_replicas

RUNS = 30
# Input lengths no other question of `make bench` ranks (bench_rank: 2000-2179), one range per question: the second
# ranking of one question (a latency-bound peak, input_len alike) would otherwise reuse the step estimates memoised
# by another's, and time as nearly free (a first run here gave the request rate 1.01x after the 512 clients).
CONCURRENCY_INPUT_LEN = 4000
REQUEST_RATE_INPUT_LEN = 5000


def concurrency_workload(run: int) -> InferenceWorkload:
    """512 clients on Llama 3.1 8B, the case the note was written for (rank.cheaper_on_replicas)."""
    return InferenceWorkload.model_validate(
        {
            "model": "llama-3.1-8b",
            "scenario": "concurrency",
            "concurrency": 512,
            "input_len": CONCURRENCY_INPUT_LEN + run,
        }
    )


def request_rate_workload(run: int) -> InferenceWorkload:
    """The open-loop question of bench_rank (Llama 3.1 8B at 0.5 requests/s), at other input lengths."""
    return InferenceWorkload.model_validate(
        {
            "model": "llama-3.1-8b",
            "scenario": "request_rate",
            "requests_per_s": 0.5,
            "input_len": REQUEST_RATE_INPUT_LEN + run,
        }
    )


def _plain(workload: InferenceWorkload, snapshot: CatalogSnapshot) -> Any:
    return ranking.rank("inference", workload, snapshot)


def _with_note(workload: InferenceWorkload, snapshot: CatalogSnapshot) -> Any:
    model, ranked, answered, _ = ranking.rank("inference", workload, snapshot)
    return cheaper_on_replicas(answered, snapshot, model, ranked)


def median_ms(
    answer: Callable[[InferenceWorkload, CatalogSnapshot], Any],
    make: Callable[[int], InferenceWorkload],
    snapshot: CatalogSnapshot,
    start: int,
) -> tuple[float, Any]:
    """Median wall ms over RUNS distinct workloads numbered from `start`, and the last run's answer."""
    timings_ms, last = [], None
    for run in range(start, start + RUNS):
        workload = make(run)
        began = time.perf_counter()
        last = answer(workload, snapshot)
        timings_ms.append((time.perf_counter() - began) * 1000)
    return statistics.median(timings_ms), last


def measure(snapshot: CatalogSnapshot) -> list[dict[str, Any]]:
    rows = []
    for label, make in (
        ("concurrency, 512 clients", concurrency_workload),
        ("request rate, 0.5/s", request_rate_workload),
    ):
        # distinct input lengths for each side (+0-29, +60-89): no estimate memoised by one serves the other
        plain_ms, _ = median_ms(_plain, make, snapshot, start=0)
        noted_ms, note = median_ms(_with_note, make, snapshot, start=2 * RUNS)
        rows.append(
            {
                "question": label,
                "plain_ms": plain_ms,
                "with_note_ms": noted_ms,
                "ratio": noted_ms / plain_ms,
                "note_given": note is not None,
            }
        )
    return rows
