"""The latency-bound search starts its range at the first batch whose step floor misses the TPOT target
(throughput_ceiling.floored_latency_search), not at the cap: that batch misses the limits every time, and the search
finds the same batch and operating point as from the cap."""

import json
from typing import Any

import pytest

from app.scoring.hardware.machines import machine_of
from app.scoring.inference.batching import loops
from app.scoring.inference.estimates import configurations, estimate, shared_searches, throughput_ceiling
from app.scoring.inference.ranking import rank
from app.scoring.workload import InferenceWorkload
from app.service.rank.ranking import rank_payload
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
# latency-bound questions: dense and MoE/MLA, short and long prompts, tight and loose limits, a prompt spread, the
# band's high end, speculative decoding and beams (no floor: the cap's range); input lengths make each this file's own
QUESTIONS: list[dict[str, Any]] = [
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2_033},
    {"model": "llama-3.1-8b", "input_len": 1_031},
    {"model": "llama-3.1-8b", "ttft_ms": 30_000, "tpot_ms": 400, "input_len": 1_037},
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2_039, "ttft_ms": 300, "tpot_ms": 15},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 2_029},
    {"model": "qwen3-30b-a3b", "input_len": 8_039, "ttft_ms": 1_500, "prompt_p99_over_mean": 1.0},
    {"model": "gpt-oss-120b", "weight_dtype": "fp4", "input_len": 8_027, "output_len": 1_000},
    {"model": "llama-3.2-1b", "ttft_ms": 50, "tpot_ms": 5, "input_len": 1_033},
    {"model": "llama-3.1-8b", "input_len": 16_007, "prompt_p99_over_mean": 2.0, "limits_at": "band_high"},
    {"model": "llama-3.1-8b", "input_len": 1_049, "spec_acceptance": 0.7, "spec_draft_tokens": 3},
    {"model": "qwen3-30b-a3b", "input_len": 2_041, "beam_width": 2},
]


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[Any, ...], Any]]:
    """Every latency-bound search floored_latency_search runs over every layout of every seeded offer: its
    arguments (with misses_from) and its answer."""
    calls: list[tuple[tuple[Any, ...], Any]] = []
    search = throughput_ceiling.latency_bound_point

    def recording(*args: Any) -> Any:
        calls.append((args, search(*args)))
        return calls[-1][1]

    monkeypatch.setattr(throughput_ceiling, "latency_bound_point", recording)
    shared_searches._SEARCHES.clear()
    for question in QUESTIONS:
        workload = InferenceWorkload.model_validate(question)
        model = SNAPSHOT.models[workload.model]
        for offer in SNAPSHOT.offers:
            gpu = SNAPSHOT.gpus[offer.gpu_id]
            machine = machine_of(offer, gpu)
            for count, tp, pp in configurations.single_node_layouts(machine, workload.max_gpus, model.layers):
                configurations.solve_on(gpu, machine, count, tp, pp, model, workload)
    return calls


def test_the_batch_a_search_starts_from_misses_the_limits_and_the_search_answers_as_from_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _searches(monkeypatch)
    bounded = 0
    for (ctx, eff, cap, limits, beams, spread, misses_from), (batch, point) in calls:
        if misses_from is None or not 1 < misses_from < cap:
            continue
        bounded += 1
        slack = loops.LatencySlack(ctx, eff, limits, beams, spread)
        assert slack(misses_from) > 0, (cap, misses_from)  # a bound: the limits are missed there
        assert loops.latency_bound_point(ctx, eff, cap, limits, beams, spread) == (batch, point)
    assert bounded > 100  # the range is tightened on most layouts
    assert any(args[-1] is None for args, _ in calls)  # speculative decoding and beams keep the cap's range


def _payloads(questions: list[dict[str, Any]]) -> str:
    rank._CACHE.clear()  # every ranking estimated afresh, not read from the last run's memo
    shared_searches._SEARCHES.clear()
    answers = [rank_payload("inference", InferenceWorkload.model_validate(q), SNAPSHOT, "/share") for q in questions]
    return json.dumps(answers, sort_keys=True)


def test_a_ranking_whose_searches_start_from_the_floor_equals_one_whose_searches_start_from_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floored = _payloads(QUESTIONS)
    monkeypatch.setattr(estimate, "floored_latency_search", loops.latency_bound_point)
    assert floored == _payloads(QUESTIONS)
