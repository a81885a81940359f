"""fleet_leader: the #1 row of a peak ranked by fleet, from the slots whose floor could still come first, is the full
ranking's #1 row; and the replicas note it feeds (answer_body.cheaper_on_replicas) is the note the full ranking gives,
given or not, word for word, on a spread of fixed-load questions."""

from __future__ import annotations

import math
from typing import Any

import pytest

import app.scoring.inference.ranking.fleet_leader as fleet_leader_module
from app.scoring.inference.ranking.fleet_leader import FleetLeader, fleet_leader, leader_of
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.workload import InferenceWorkload
from app.service.rank import ranking
from app.service.rank.answer_body import cheaper_on_replicas, replicas_workload
from app.service.rank.model_spec import model_spec_for
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
MODELS: list[dict[str, Any]] = [
    {"model": "llama-3.1-8b"},
    {"model": "llama-3.1-70b", "weight_dtype": "fp8"},
    {"model": "llama-3.1-70b", "weight_dtype": "bf16", "price_types": ["on_demand"]},
    {"model": "qwen3-30b-a3b"},
    {"model": "mixtral-8x7b"},
    {"model": "deepseek-r1", "weight_dtype": "fp8"},
]
LOADS: list[dict[str, Any]] = [
    *({"scenario": "request_rate", "requests_per_s": rate} for rate in (0.05, 0.5, 5.0, 10.0, 20.0)),
    *({"scenario": "concurrency", "concurrency": clients} for clients in (1, 16, 128, 512, 4000)),
    {"scenario": "request_rate", "requests_per_s": 5.0, "ttft_ms": 500, "tpot_ms": 20},
    {"scenario": "concurrency", "concurrency": 512, "ttft_ms": 500, "tpot_ms": 20},
    {"scenario": "request_rate", "requests_per_s": 16.0, "tpot_ms": 30},
]
QUESTIONS = [{**model, **load} for model in MODELS for load in LOADS]


def full_leader(workload: InferenceWorkload, *_: object) -> FleetLeader | None:
    """The check before fleet_leader: the whole fleet ranking, its first row."""
    fleets = rank_inference(workload, SNAPSHOT, model_spec_for(workload, SNAPSHOT))
    return leader_of(fleets.options[0]) if fleets.feasible_count else None


def notes(monkeypatch: pytest.MonkeyPatch, leader: Any) -> list[dict[str, Any] | None]:
    answers = []
    with monkeypatch.context() as patched:
        patched.setattr(fleet_leader_module, "fleet_leader", leader)  # answer_body imports it when it runs
        for question in QUESTIONS:
            workload = InferenceWorkload.model_validate(question)
            model, ranked, answered, _ = ranking.rank("inference", workload, SNAPSHOT)
            answers.append(cheaper_on_replicas(answered, SNAPSHOT, model, ranked))
    return answers


def test_the_replicas_note_is_the_full_checks_given_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = notes(monkeypatch, fleet_leader)
    full = notes(monkeypatch, full_leader)
    assert fast == full
    given = [q["scenario"] for q, note in zip(QUESTIONS, full, strict=True) if note]
    # the spread has notes to lose; clients, spread over the copies of one rented instance (spread_load.py), no longer
    # cost twice the replicas sized for them on this catalog, so only request rates give notes
    assert given.count("request_rate") >= 3


def test_the_guard_sees_a_floor_above_what_a_fleet_costs(monkeypatch: pytest.MonkeyPatch) -> None:
    # a deliberate fault: floors at three times the month, so slots that come first are skipped. A request rate's
    # note asks only for fleets it could note (answer_body._could_be_noted), which hides the fault there: the leaders
    # of the sized peaks, any month allowed, show it
    monkeypatch.setattr(fleet_leader_module, "HOURS_PER_MONTH", fleet_leader_module.HOURS_PER_MONTH * 3)
    sized = [w for w in peaks()]
    faulty = [fleet_leader(w, SNAPSHOT, model_spec_for(w, SNAPSHOT)) for w in sized]
    assert faulty != [full_leader(w) for w in sized]


def peaks() -> list[InferenceWorkload]:
    sized = [replicas_workload(InferenceWorkload.model_validate(q)) for q in QUESTIONS]
    # a rate under a peak ranks rows over its limits after those within: some rows over them, or every one
    rated = {"scenario": "request_rate", "requests_per_s": 5.0, "peak_requests_per_s": 10.0, "weight_dtype": "fp8"}
    over = [
        InferenceWorkload.model_validate({"model": model, **rated, "ttft_ms": ttft_ms, "tpot_ms": tpot_ms})
        for model in ("llama-3.1-8b", "llama-3.1-70b")
        for ttft_ms, tpot_ms in ((1, 1), (300, 15))
    ]
    # every slot that meets the limits has a floor above the cheapest rows over them: all must be estimated
    slow = {"scenario": "request_rate", "requests_per_s": 1.0, "peak_requests_per_s": 2.0, "ttft_ms": 100, "tpot_ms": 8}
    over.append(InferenceWorkload.model_validate({"model": "llama-3.1-8b", **slow}))
    return [w.model_copy(update={"rank_by": "fleet"}) for w in [*sized, *over] if w is not None]


@pytest.mark.parametrize("workload", peaks(), ids=lambda w: w.model_dump_json(exclude_none=True)[:80])
def test_the_leader_is_the_fleet_rankings_first_row_within_any_ceiling(workload: InferenceWorkload) -> None:
    model = model_spec_for(workload, SNAPSHOT)
    fleets = rank_inference(workload, SNAPSHOT, model)
    expected = leader_of(fleets.options[0]) if fleets.feasible_count else None
    assert fleet_leader(workload, SNAPSHOT, model) == expected
    if expected is None or expected.usd_per_month_at_peak is None:
        return
    # ceilings at and just under every row's month (rows over the limits cheaper than the first one among them)
    months = {fleets.options[i].usd_per_month_at_peak or 0.0 for i in range(fleets.feasible_count)}
    for ceiling in sorted(months | {math.nextafter(month, 0.0) for month in months}):
        within = expected if expected.usd_per_month_at_peak <= ceiling else None
        assert fleet_leader(workload, SNAPSHOT, model, lambda usd, most=ceiling: usd <= most) == within, ceiling
