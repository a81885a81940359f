"""A layout whose throughput ceiling cannot reach the best layout found so far on its machine is not searched
(throughput_ceiling.py): every ceiling is at least what its layout serves, and a ranking with the skipping is byte for
byte the ranking without it."""

import json
from collections.abc import Iterator
from typing import Any

import pytest

from app.scoring.hardware.machines import machine_of
from app.scoring.inference.bands.limits import limit_multiples
from app.scoring.inference.batching.running_batch import batching_scenario, running_cap
from app.scoring.inference.estimates import configurations, estimate, shared_searches, throughput_ceiling
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.estimates.throughput_ceiling import (
    latency_bound_ceiling_per_s,
    max_throughput_ceiling_per_s,
    open_loop_tpot_floor_ms,
    request_rate_ceiling_per_s,
    tpot_floor_ms,
)
from app.scoring.inference.ranking import rank
from app.scoring.inference.step.pass_rates import pass_rates
from app.scoring.workload import InferenceWorkload
from app.service.rank.ranking import rank_payload
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
# latency-bound dense and MoE/MLA models (attention auto solves both ways), long and short prompts, tight limits, a
# sliding-window model, a quantised one, a request rate; input lengths make each workload this file's own
QUESTIONS: list[dict[str, Any]] = [
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2_011},
    {"model": "llama-3.1-8b", "input_len": 1_999},
    {"model": "llama-3.1-8b", "ttft_ms": 30_000, "tpot_ms": 400, "input_len": 1_013},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 2_003},
    {"model": "qwen2.5-72b", "weight_dtype": "int4", "input_len": 1_021},
    {"model": "gpt-oss-120b", "weight_dtype": "fp4", "input_len": 8_009, "output_len": 1_000},
    {"model": "llama-3.2-1b", "ttft_ms": 50, "tpot_ms": 5, "input_len": 1_019},
    {"model": "qwen3-30b-a3b", "scenario": "request_rate", "requests_per_s": 3.0, "input_len": 1_017},
    {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 0.5, "input_len": 2_017},
    # a fixed load on whole rented instances: a larger layout on the same bill wins on latency, so the skipping by
    # GPU count must count billed GPUs (configurations.billed_gpus), or it drops that winner
    {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20.0, "ttft_ms": 500, "input_len": 2_021},
    # long prompts, where the p99 TTFT limit binds the batch or refuses the layout; a prompt spread; SGLang
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 12_007},
    {"model": "llama-3.1-8b", "input_len": 16_001, "prompt_p99_over_mean": 2.0},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 9_001, "ttft_ms": 3_000},
    {"model": "qwen3-30b-a3b", "input_len": 8_011, "ttft_ms": 1_500, "prompt_p99_over_mean": 1.0},
    # max throughput: batch jobs whose share per replica is under the batch (one batch of its own size) or over it
    # (a drain), a deadline that needs many replicas, an MoE, a plain max-throughput load
    {"model": "llama-3.1-8b", "scenario": "max_throughput", "job_requests": 1_000_003, "job_deadline_hours": 1},
    {"model": "llama-3.1-70b", "scenario": "max_throughput", "job_requests": 37, "weight_dtype": "fp8"},
    {"model": "qwen3-30b-a3b", "scenario": "max_throughput", "job_requests": 20_011, "job_deadline_hours": 2},
    {"model": "deepseek-r1", "scenario": "max_throughput", "weight_dtype": "fp8", "input_len": 1_009},
    {"model": "llama-3.1-8b", "scenario": "max_throughput", "input_len": 8_017, "output_len": 300},
]
# the share by which a guard test scales every ceiling down, to show the test fails when a bound is broken
CEILING_SCALE = 1.0


def _ceiling_per_s(solved: Solution) -> float | None:
    """The ceiling estimate._solve compares, from what the solution holds."""
    w, ctx, eff = solved.workload, solved.ctx, solved.efficiency
    if w.scenario == "request_rate":
        return request_rate_ceiling_per_s(w) * CEILING_SCALE
    lengths = (w.input_len, w.output_len, w.beam_width)
    if w.scenario == "max_throughput":
        assert batching_scenario(w) == "max_throughput"  # continuous batching: the engines these questions run
        # the batch the scenario runs (estimate._batch_for): a job's plan keeps it, or runs a smaller share
        batch = min(solved.max_batch, running_cap(ctx, w), w.job_requests or solved.max_batch)
        ceiling = max_throughput_ceiling_per_s(ctx, eff, batch, lengths)
        return None if ceiling is None else ceiling * CEILING_SCALE
    multiples = limit_multiples(w, solved.band_regime)
    target_ms, ttft_limit_ms = eff.slo_tpot_utilisation * w.tpot_limit_ms / multiples[1], w.ttft_ms / multiples[0]
    cap = min(solved.max_batch, running_cap(ctx, w))
    ceiling = latency_bound_ceiling_per_s(ctx, eff, cap, lengths, target_ms, ttft_limit_ms, w.prompt_p99_over_mean)
    return None if ceiling is None else ceiling * CEILING_SCALE


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: f"{q['model']}-{q.get('scenario', 'latency')}")
def test_no_layout_serves_more_than_its_ceiling(question: dict[str, Any]) -> None:
    workload = InferenceWorkload.model_validate(question)
    model = SNAPSHOT.models[workload.model]
    checked = 0
    for offer in SNAPSHOT.offers:
        gpu = SNAPSHOT.gpus[offer.gpu_id]
        machine = machine_of(offer, gpu)
        for layouts in (configurations.single_node_layouts, configurations.multi_node_layouts):
            for count, tp, pp in layouts(machine, workload.max_gpus, model.layers):
                solved = configurations.solve_on(gpu, machine, count, tp, pp, model, workload)
                if not isinstance(solved, Solution):
                    continue
                ceiling = _ceiling_per_s(solved)
                assert ceiling is not None and ceiling >= solved.point.tokens_per_s, (offer.provider_id, count, tp, pp)
                checked += 1
    assert checked > 20


OPEN_LOOPS = [q for q in QUESTIONS if q.get("scenario") == "request_rate"]


def _solved_layouts(workload: InferenceWorkload, offers: Any) -> Iterator[tuple[tuple, Solution]]:
    """Every single-node layout of each offer's machine that solves, with where it is (provider, count, TP, PP)."""
    model = SNAPSHOT.models[workload.model]
    for offer in offers:
        gpu = SNAPSHOT.gpus[offer.gpu_id]
        machine = machine_of(offer, gpu)
        for count, tp, pp in configurations.single_node_layouts(machine, workload.max_gpus, model.layers):
            solved = configurations.solve_on(gpu, machine, count, tp, pp, model, workload)
            if isinstance(solved, Solution):
                yield (offer.provider_id, count, tp, pp), solved


@pytest.mark.parametrize("question", OPEN_LOOPS, ids=lambda q: f"{q['model']}-{q['requests_per_s']}")
def test_no_open_loop_layout_steps_faster_than_its_tpot_floor(question: dict[str, Any]) -> None:
    """The floor a request rate's layouts on one bill are skipped by (configurations._solve_tier) is under the TPOT
    of every layout solved, on every offer's machine."""
    workload = InferenceWorkload.model_validate(question)
    checked = 0
    for where, solved in _solved_layouts(workload, SNAPSHOT.offers):
        floor = tpot_floor_ms(solved.ctx, solved.efficiency, workload.input_len, workload.output_len)
        if floor is not None:
            assert floor <= solved.point.tpot_ms, where
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("question", OPEN_LOOPS, ids=lambda q: f"{q['model']}-{q['requests_per_s']}")
def test_no_open_loop_layout_steps_faster_than_the_floor_its_rate_forces(question: dict[str, Any]) -> None:
    """open_loop_tpot_floor_ms (the running batch Little's law forces at the rate, and the step there) is under the
    TPOT of every open-loop layout solved, at or above tpot_floor_ms, and above it where requests queue up: a floor
    scaled up by 2% fails here (the step floor meets the point's own step where the fixed point reaches its batch)."""
    workload = InferenceWorkload.model_validate(question)
    checked, raised, tightest = 0, 0, 0.0
    lengths, rate = (workload.input_len, workload.output_len), workload.requests_per_s or 1.0
    for where, solved in _solved_layouts(workload, SNAPSHOT.offers):
        floor = open_loop_tpot_floor_ms(solved.ctx, solved.efficiency, *lengths, rate, solved.max_batch)
        light = tpot_floor_ms(solved.ctx, solved.efficiency, *lengths)
        if floor is None:
            assert light is None
            continue
        assert light is not None and light <= floor <= solved.point.tpot_ms, where
        checked += 1
        raised += floor > light
        tightest = max(tightest, floor / solved.point.tpot_ms)
    assert checked > 20
    assert raised > 0
    assert tightest > 0.98


@pytest.mark.parametrize(
    "question",
    [QUESTIONS[0], QUESTIONS[3], QUESTIONS[5], QUESTIONS[7], QUESTIONS[8]],
    ids=("70b", "deepseek-r1", "gpt-oss-sliding", "qwen3-moe-rate", "8b-rate"),
)
def test_the_tpot_floor_is_the_step_floors_light_load_to_the_last_bit(question: dict[str, Any]) -> None:
    """tpot_floor_ms computes _StepFloor.light_load_ms alone (its other terms unread): the same float on every
    layout of every third offer, over pipeline stages, MoE routed experts, MLA and a sliding
    window, so the request rate's skipping is unchanged."""
    workload = InferenceWorkload.model_validate(question)
    checked = 0
    for where, solved in _solved_layouts(workload, SNAPSHOT.offers[::3]):
        ctx, eff, lengths = solved.ctx, solved.efficiency, (workload.input_len, workload.output_len)
        light = throughput_ceiling._light_load_ms(ctx, pass_rates(ctx, eff), *lengths)
        floor = throughput_ceiling._StepFloor.of(ctx, eff, *lengths)
        assert light == floor.light_load_ms, where
        checked += 1
    assert checked > 10


def _payloads(questions: list[dict[str, Any]]) -> str:
    rank._CACHE.clear()  # every ranking estimated afresh, not read from the last run's memo
    shared_searches._SEARCHES.clear()
    answers = [rank_payload("inference", InferenceWorkload.model_validate(q), SNAPSHOT, "/share") for q in questions]
    return json.dumps(answers, sort_keys=True)


def test_a_ranking_that_skips_outclassed_layouts_equals_one_that_solves_them_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped: list[int] = []
    solve = configurations._solve_supplied  # each layout a tier solves (solve_on_unless_outclassed's body)

    def counting(*args: Any) -> object:
        found = solve(*args)
        skipped.append(found is None)
        return found

    loses = configurations._loses_on_tpot  # a layout on the best's bill, skipped before its solve's set-up

    def counting_losses(*args: Any) -> bool:
        lost = loses(*args)
        skipped.append(lost)
        return lost

    monkeypatch.setattr(configurations, "_solve_supplied", counting)
    monkeypatch.setattr(configurations, "_loses_on_tpot", counting_losses)
    pruned = _payloads(QUESTIONS)
    assert sum(skipped) > 50  # the skipping is tried, and saves searches
    skipped.clear()
    _payloads(OPEN_LOOPS)
    assert sum(skipped) > 5  # a request rate's layouts on one bill are skipped by their TPOT floor too
    monkeypatch.setattr(estimate, "latency_bound_ceiling_per_s", lambda *args: None)
    monkeypatch.setattr(estimate, "max_throughput_ceiling_per_s", lambda *args: None)
    monkeypatch.setattr(configurations, "_outclassed_by_count", lambda *args: False)
    monkeypatch.setattr(configurations, "_loses_on_tpot", lambda *args: False)
    monkeypatch.setattr(estimate, "no_load_meets_ttft", lambda *args: False)
    monkeypatch.setattr(estimate, "tpot_floor_ms", lambda *args: None)
    monkeypatch.setattr(estimate, "open_loop_tpot_floor_ms", lambda *args: None)
    skipped.clear()
    every_layout = _payloads(QUESTIONS)
    assert not any(skipped)
    assert pruned == every_layout


@pytest.mark.parametrize(
    "question",
    [
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2_027},
        {"model": "llama-3.1-8b", "input_len": 16_003, "prompt_p99_over_mean": 2.0, "limits_at": "band_high"},
        {"model": "qwen3-30b-a3b", "input_len": 8_021, "ttft_ms": 1_500, "beam_width": 2},
    ],
    ids=("70b", "8b-spread-band-high", "moe-beams"),
)
def test_a_layout_refused_before_its_search_is_refused_by_it_in_the_same_words(
    monkeypatch: pytest.MonkeyPatch, question: dict[str, Any]
) -> None:
    # no_load_meets_ttft refuses a layout whose own prefill misses the p99 TTFT limit without searching it: the
    # search (the check turned off) refuses every such layout too, with the same words and footprint
    workload = InferenceWorkload.model_validate(question)
    model = SNAPSHOT.models[workload.model]
    layouts = []
    for offer in SNAPSHOT.offers:
        gpu = SNAPSHOT.gpus[offer.gpu_id]
        machine = machine_of(offer, gpu)
        for count, tp, pp in configurations.single_node_layouts(machine, workload.max_gpus, model.layers):
            layouts.append((gpu, machine, count, tp, pp))
    refused_early: list[bool] = []
    check = estimate.no_load_meets_ttft

    def counting(*args: Any) -> bool:
        refused_early.append(check(*args))
        return refused_early[-1]

    monkeypatch.setattr(estimate, "no_load_meets_ttft", counting)
    early = [configurations.solve_on(*layout[:5], model, workload) for layout in layouts]
    assert sum(refused_early) > 10
    monkeypatch.setattr(estimate, "no_load_meets_ttft", lambda *args: False)
    monkeypatch.setattr(estimate, "tpot_floor_ms", lambda *args: None)
    monkeypatch.setattr(estimate, "open_loop_tpot_floor_ms", lambda *args: None)
    searched = [configurations.solve_on(*layout[:5], model, workload) for layout in layouts]
    for a, b in zip(early, searched, strict=True):
        assert type(a) is type(b)
        if not isinstance(a, Solution):
            assert (a.reason, a.memory_gb, a.misses_limits, a.feasible) == (
                b.reason,
                b.memory_gb,
                b.misses_limits,
                b.feasible,
            )


def test_a_layouts_ceilings_and_floored_search_share_one_largest_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The R1 ranking's layouts that pass their ceilings (data-parallel attention since dpattn) read the largest batch
    their step floor allows three times (the TPOT ceiling, the TTFT ceiling where its limit leaves the target as it
    is, the floored search): shared_search answers it once per equal arguments, and the ranking is the same."""
    calls: list[tuple[Any, ...]] = []
    largest = throughput_ceiling._largest_batch

    def counting(floor: Any, cap: float, target_ms: float) -> float:
        calls.append((repr(floor), cap, target_ms))
        return largest(floor, cap, target_ms)

    question = [{**QUESTIONS[3], "input_len": 2_029}]
    expected = _payloads(question)
    monkeypatch.setattr(throughput_ceiling, "_largest_batch", counting)
    assert _payloads(question) == expected
    assert len(calls) > 10
    assert len(set(calls)) == len(calls), "a largest batch was worked out twice for the same floor, cap and target"
