"""Predict one measured inference case (a row of inference_cases.csv) with the estimator.

case_setup.py reads the row into a CaseSetup; here the setup's operating point (or its replayed finite run) gives
the metric the row measured, as a CasePrediction.
"""

from __future__ import annotations

from dataclasses import replace

from app.calibration.inference.case_setup import CaseSetup, case_setup
from app.calibration.validation.cases import CasePrediction
from app.calibration.validation.summary import make_prediction
from app.scoring.efficiency.inference import (
    DEFAULT_EFFICIENCY,
    InferenceEfficiency,
)
from app.scoring.inference.batching.finite_run import replay_run
from app.scoring.inference.batching.loops import closed_loop_point, latency_bound_point, open_loop_point
from app.scoring.inference.batching.operating_points import (
    CONTINUOUS_SCENARIOS,
    OperatingPoint,
    operating_point,
    token_budget_cap,
)
from app.scoring.inference.batching.queueing import request_life_ms
from app.scoring.inference.step.context import InferenceContext


def _point(setup: CaseSetup, ctx: InferenceContext, cap: int, eff: InferenceEfficiency) -> OperatingPoint | None:
    batch = setup.batch
    if setup.scenario in CONTINUOUS_SCENARIOS:  # the engine's step budget, as the product caps it (running_cap)
        budget = token_budget_cap(ctx, setup.input_len, setup.output_len, setup.beam_width, setup.token_budget)
        cap = cap if budget is None else min(cap, budget)
    if setup.scenario == "max_throughput":
        batch = cap
    elif setup.scenario == "latency_bound":
        ttft_limit, tpot_limit = setup.ttft_limit_ms, setup.tpot_limit_ms
        # case_setup keeps the latency_bound scenario only for rows that give both limits
        assert ttft_limit is not None and tpot_limit is not None
        batch, _ = latency_bound_point(
            ctx, eff, cap, (setup.input_len, setup.output_len, ttft_limit, tpot_limit), setup.beam_width
        )
        if batch < 1:
            return None
    elif setup.scenario == "request_rate":
        assert setup.requests_per_s is not None
        point = open_loop_point(
            ctx, eff, setup.requests_per_s, cap, setup.input_len, setup.output_len, setup.beam_width
        )
        if point.backlog_per_s <= 0 or not batch:
            return point
        # overloaded: the backlog depends on how long the run lasted; the row's in-flight count says it
        return closed_loop_point(ctx, eff, batch, cap, setup.input_len, setup.output_len, setup.beam_width)
    elif setup.scenario == "concurrency":
        return closed_loop_point(ctx, eff, max(batch, 1.0), cap, setup.input_len, setup.output_len, setup.beam_width)
    if setup.scenario == "fixed_batch":  # a batch over the KV capacity or engine cap runs `cap` at a time
        batch = min(batch, cap)
    return operating_point(
        ctx, eff, setup.scenario, max(batch, 1.0), setup.input_len, setup.output_len, setup.beam_width
    )


def wave_wait_ms(point: OperatingPoint, requests: float, output_len: float) -> float:
    """A fixed batch over what the engine runs at once (the KV capacity or its batch cap: _over_capacity_note) runs
    in waves of `point.batch`: the k-th wave's requests wait for k whole waves (first token, then their decode)
    before their prefill. The mean wait over the `requests` (0 at or below the capacity): without it a 64-request
    batch's TTFT was its first wave's, below what 64 prompts' FLOPs take on the GPU (found by bounds28's physics
    grid)."""
    wave = max(int(point.batch), 1)
    if requests <= wave:
        return 0.0
    whole = int(requests)
    waves_waited = sum(i // wave for i in range(whole)) / whole
    return waves_waited * request_life_ms(point.ttft_ms, point.tpot_ms, output_len)


def _per_gpu(point: OperatingPoint | None, ctx: InferenceContext) -> float:
    return point.tokens_per_s / (ctx.tensor_parallel * ctx.pipeline_parallel) if point else 0.0


REPLAYED_METRICS = ("output_tok_s_per_gpu", "ttft_ms", "tpot_ms")


def predict_run(setup: CaseSetup, eff: InferenceEfficiency, requests_per_s: float | None) -> float | None:
    """The metric from a replay of the run (a burst where `requests_per_s` is None): tokens/s over the run, the
    requests' TTFT statistic, their mean TPOT. Of the candidate layouts, the one with the most tokens/s per GPU."""
    assert setup.run_requests is not None
    best, best_rate = None, -1.0
    for ctx, cap in setup.options:
        run = replay_run(
            ctx,
            eff,
            setup.run_requests,
            requests_per_s,
            cap,
            setup.input_len,
            setup.output_len,
            setup.beam_width,
            setup.token_budget,
        )
        gpus = ctx.tensor_parallel * ctx.pipeline_parallel
        if run is not None and run.output_tok_s / gpus > best_rate:
            best, best_rate = run, run.output_tok_s / gpus
    if best is None:
        return None
    if setup.metric == "output_tok_s_per_gpu":
        return best_rate
    if setup.metric == "ttft_ms":
        quantile = {"median": 0.5, "p99": 0.99}.get(setup.statistic)
        return best.ttft_quantile_ms(quantile) if quantile else best.mean_ttft_ms
    if setup.metric == "tpot_ms":
        return best.mean_tpot_ms * (eff.p99_over_mean if setup.statistic == "p99" else 1.0)
    return None


def predict_setup(setup: CaseSetup, eff: InferenceEfficiency = DEFAULT_EFFICIENCY) -> float | None:
    """The predicted value of the case's metric (None when the operating point does not exist)."""
    if setup.scenario == "max_throughput" and setup.run_requests and setup.metric in REPLAYED_METRICS:
        return predict_run(setup, eff, None)
    candidates = [(_point(setup, ctx, cap, eff), ctx) for ctx, cap in setup.options]
    point, ctx = max(candidates, key=lambda pc: _per_gpu(*pc))
    if point is None:
        return None
    if point.backlog_per_s > 0 and setup.run_requests and setup.metric in REPLAYED_METRICS:
        # an open loop above capacity with no in-flight count stated: its queue is the run's, replayed
        return predict_run(setup, eff, setup.requests_per_s)
    if setup.poisson_arrivals and not point.poisson_arrivals:
        point = replace(point, poisson_arrivals=True)
    p99 = setup.statistic == "p99"
    if setup.metric == "output_tok_s_per_gpu":
        return _per_gpu(point, ctx)
    if setup.metric == "ttft_ms":
        # multi-step scheduling: a request waits for the scheduler call, (N - 1) / 2 more steps on average
        # (uniform over the call's steps: its median is that mean too)
        admission_ms = (setup.scheduler_steps - 1) / 2 * point.tpot_ms if point.batch > 1 else 0.0
        if setup.scenario == "fixed_batch":
            admission_ms += wave_wait_ms(point, setup.batch, setup.output_len)
        if setup.statistic == "median":
            return point.ttft_median_ms + admission_ms
        return (point.ttft_ms + admission_ms) * (eff.p99_ttft_over_mean if p99 else 1.0)
    if setup.metric == "tpot_ms":  # a median TPOT is the mean: every running request shares the same steps
        return point.tpot_ms * (eff.p99_over_mean if p99 else 1.0)
    if setup.metric == "decode_tok_s":
        return 1e3 / point.tpot_ms
    return setup.input_len / point.prefill.total_ms * 1e3  # prefill_tok_s


def predict_inference_case(
    row: dict,
    gpus: dict,
    models: dict,
    eff: InferenceEfficiency = DEFAULT_EFFICIENCY,
) -> CasePrediction:
    """Predict one row: anything unmodelled or unreadable comes back covered=False with the reason; an estimator
    error raises (reported as an uncovered row, it would hide a broken estimator under the coverage floor)."""
    setup = case_setup(row, gpus, models)
    if isinstance(setup, str):
        return make_prediction(row, None, setup)
    value = predict_setup(setup, eff)
    if value is None:
        return make_prediction(row, None, "no batch meets the latency limits in the model")
    return make_prediction(row, value, "; ".join(setup.notes) or "modelled")
