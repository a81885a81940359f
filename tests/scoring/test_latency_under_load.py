"""Latency under load: closed loops beyond the running batch queue, and matmuls run in the dtype the GPU has."""

import math
import random
import statistics
from dataclasses import replace

import pytest
from pydantic import ValidationError

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.hardware.dtypes import matmul_dtype
from app.scoring.inference.batching.loops import BATCH_RTOL, _log_root, closed_loop_point, open_loop_point
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.batching.queueing import md1_median_wait_ms, md1_wait_ms, prefill_share_of_step
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.steps import decode_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _nim_70b(**load) -> InferenceWorkload:
    """The NVIDIA NIM benchmark's question: Llama-3.3-70B FP8, 5,000 in / 500 out, TensorRT-LLM."""
    return InferenceWorkload(
        model="llama-3.3-70b", engine="trtllm", input_len=5000, output_len=500, weight_dtype="fp8", **load
    )


def _ctx():
    return build_context(GPUS["H100-SXM"], MODELS["llama-3.3-70b"], "fp8", "fp8", "trtllm", 2)


def test_closed_loop_within_the_running_batch_has_no_queue():
    point = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 50, 80, 5000, 500)
    assert point.batch == 50
    assert point.waiting == 0
    assert point.queue_ms == 0


def test_clients_beyond_the_running_batch_wait_and_throughput_stays_flat():
    full = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 80, 80, 5000, 500)
    over = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 160, 80, 5000, 500)
    much_over = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 240, 80, 5000, 500)
    assert over.batch == 80 and over.waiting == 80
    assert over.tokens_per_s == full.tokens_per_s
    assert over.tpot_ms == full.tpot_ms
    life_ms = full.ttft_ms + 499 * full.tpot_ms
    # 80 waiting clients at 80 running: one whole request life of queueing (Little's law)
    assert abs(over.queue_ms - life_ms) < 1e-6 * life_ms
    assert abs((much_over.ttft_ms - full.ttft_ms) - 2 * (over.ttft_ms - full.ttft_ms)) < 1e-6 * much_over.ttft_ms


def test_overloaded_concurrency_estimate_explains_the_queue():
    w = _nim_70b(scenario="concurrency", concurrency=250, kv_dtype="fp8")
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    assert est.feasible
    assert est.batch < 250
    assert any(a.startswith("overloaded:") for a in est.assumptions)
    queue = [t for t in est.terms if t.name == "queue wait for a slot"]
    assert queue and queue[0].value > 10_000  # tens of seconds: NIM measured 89 s at this load
    assert est.ttft_ms > queue[0].value


def test_low_precision_weights_run_native_only_where_the_gpu_has_the_peak():
    assert matmul_dtype(GPUS["B200"], "fp4") == ("fp4", None)
    assert matmul_dtype(GPUS["H100-SXM"], "fp8") == ("fp8", None)
    dtype, note = matmul_dtype(GPUS["H100-SXM"], "fp4")
    assert dtype == "bf16" and note and "dequantised" in note
    assert matmul_dtype(GPUS["A100-SXM-80GB"], "fp8")[0] == "bf16"
    ctx = build_context(GPUS["H100-SXM"], MODELS["gpt-oss-20b"], "fp4", "bf16", "vllm", 1)
    assert ctx.compute_dtype == "bf16"
    assert ctx.peak_tflops == GPUS["H100-SXM"].bf16_tflops


def test_open_loop_batch_rises_with_the_rate_and_throughput_equals_arrivals():
    ctx = _ctx()
    slow = open_loop_point(ctx, DEFAULT_EFFICIENCY, 0.2, 80, 5000, 500)
    fast = open_loop_point(ctx, DEFAULT_EFFICIENCY, 1.0, 80, 5000, 500)
    assert slow.batch < fast.batch <= 80
    assert slow.ttft_ms <= fast.ttft_ms and slow.tpot_ms <= fast.tpot_ms
    assert abs(fast.tokens_per_s - 1.0 * 500) < 1e-9
    assert slow.backlog_per_s == 0 and fast.backlog_per_s == 0


@pytest.mark.parametrize("requests_per_s", [1e-5, 0.2, 1.0])
def test_the_open_loop_batch_is_where_completions_meet_the_rate_by_littles_law(requests_per_s):
    # A trickle keeps far below one request in flight; the search finds that batch too, to BATCH_RTOL.
    ctx = _ctx()
    point = open_loop_point(ctx, DEFAULT_EFFICIENCY, requests_per_s, 80, 5000, 500)
    life_s = (point.ttft_ms + 499 * point.tpot_ms) / 1e3
    assert point.batch == pytest.approx(requests_per_s * life_s, rel=2 * BATCH_RTOL)


@pytest.mark.parametrize(
    ("gap", "most_evaluations"),
    [
        (lambda x: math.log(x / 7.0), 6),  # a power law: linear in log x
        (lambda x: math.log(x / (1 + x / 300) / 7.4), 10),  # completions saturating toward the cap
        (lambda x: x - 7.0, 21),  # exponential in log x: the worst case, a bisection's count
    ],
)
def test_the_log_space_root_is_the_least_batch_that_keeps_up_to_the_tolerance(gap, most_evaluations):
    calls = []

    def counted(x):
        calls.append(x)
        return gap(x)

    root = _log_root(counted, 1e-6, 2048.0, BATCH_RTOL)
    assert gap(root) >= 0 and gap(root / (1 + BATCH_RTOL)) < 0  # the bracket's upper end, as tight as asked
    assert len(calls) <= most_evaluations  # a geometric bisection over the same span takes 20


def test_the_log_space_root_is_the_lower_end_when_that_already_keeps_up():
    assert _log_root(lambda x: 1.0, 3.0, 80.0, BATCH_RTOL) == 3.0


def test_open_loop_above_capacity_is_overloaded_with_a_growing_backlog():
    ctx = _ctx()
    saturated = closed_loop_point(ctx, DEFAULT_EFFICIENCY, 80, 80, 5000, 500)
    capacity_per_s = 80 / (saturated.ttft_ms + 499 * saturated.tpot_ms) * 1e3
    over = open_loop_point(ctx, DEFAULT_EFFICIENCY, capacity_per_s * 2, 80, 5000, 500)
    assert over.batch == 80
    assert abs(over.backlog_per_s - capacity_per_s) < 1e-6 * capacity_per_s
    assert over.backlog_per_s > 0


def test_an_overloaded_open_loop_is_not_an_option_and_says_how_far_behind_it_falls():
    """At 5 requests/s against ~1.8 of capacity the queue grows by ~190 a minute: a minute in, a new request waits
    ~100 s for a slot (finite_run.py's step-by-step replay of the same minute gives the same to a few per cent), so
    the configuration cannot serve the rate and is listed with the reason, never ranked with its queue left out."""
    import re

    from app.scoring.inference.batching.finite_run import replay_run

    w = _nim_70b(scenario="request_rate", requests_per_s=5)
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    assert not est.feasible
    found = re.search(
        r"keeps up with ([\d.]+) requests/s .* grows by ([\d,]+) requests a minute.* waits ([\d,]+) s", est.reason
    )
    assert found, est.reason
    capacity, growth, wait_s = (float(g.replace(",", "")) for g in found.groups())
    assert growth == pytest.approx((5 - capacity) * 60, rel=0.01)
    assert wait_s == pytest.approx(growth / capacity, rel=0.01)
    run = replay_run(_ctx(), DEFAULT_EFFICIENCY, 300, 5.0, 88, 5000, 500)
    assert run is not None
    assert run.ttfts_ms[-1] / 1e3 == pytest.approx(wait_s, rel=0.15)  # the last of the minute's arrivals
    keeps_up = estimate_inference(
        GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], _nim_70b(scenario="request_rate", requests_per_s=1)
    )
    assert keeps_up.feasible


def test_request_rate_scenario_needs_a_rate():
    with pytest.raises(ValidationError, match="requests_per_s"):
        InferenceWorkload(model="llama-3.1-8b", scenario="request_rate")


def test_a_lone_closed_loop_request_decodes_without_prefill_interference():
    alone = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 1, 80, 5000, 500)
    assert alone.step.flops == pytest.approx(
        closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 1, 80, 5000, 5000).step.flops, rel=0.2
    )
    pair = closed_loop_point(_ctx(), DEFAULT_EFFICIENCY, 2, 80, 5000, 500)
    assert pair.tpot_ms > alone.tpot_ms


def test_prefix_cache_terms_compare_an_open_loop_with_the_same_loop_without_the_cache():
    w = _nim_70b(scenario="request_rate", requests_per_s=0.5, prefix_cache_hit=0.5)
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    plain = estimate_inference(
        GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w.model_copy(update={"prefix_cache_hit": None})
    )
    assert est.feasible and plain.feasible
    assert est.ttft_ms < plain.ttft_ms
    assert any("prefix" in t.name for t in est.terms)


def test_request_rate_below_one_in_twelve_days_is_refused():
    with pytest.raises(ValidationError, match="requests_per_s"):
        _nim_70b(scenario="request_rate", requests_per_s=5e-324)
    w = _nim_70b(scenario="request_rate", requests_per_s=1e-6)
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    assert est.feasible and 0 < est.band.low <= est.output_tokens_per_s <= est.band.high


@pytest.mark.parametrize("ttft_limit_ms", [300, 1000, 3000])
def test_p99_latencies_are_reported_and_are_what_the_limits_bound(ttft_limit_ms):
    """A latency-bound answer reports mean and p99 TTFT/TPOT; its p99 TTFT meets the TTFT limit, its TPOT the TPOT
    limit, and at a tight TTFT limit the p99 sits on it (the limit is what bounds the batch)."""
    w = _nim_70b(scenario="latency_bound", ttft_ms=ttft_limit_ms, tpot_ms=60, kv_dtype="fp8")
    w = w.model_copy(update={"input_len": 1000, "output_len": 300})
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    assert est.feasible
    assert est.ttft_p99_ms == pytest.approx(est.ttft_ms * DEFAULT_EFFICIENCY.p99_ttft_over_mean)
    assert est.tpot_p99_ms == pytest.approx(est.tpot_ms * DEFAULT_EFFICIENCY.p99_over_mean)
    assert est.ttft_p99_ms <= ttft_limit_ms * (1 + 1e-9)
    assert est.tpot_p99_ms <= 60
    if ttft_limit_ms == 300:  # the TTFT limit binds: the batch grows until its p99 reaches it
        assert est.ttft_p99_ms == pytest.approx(ttft_limit_ms, rel=0.05)
    names = {t.name: t.value for t in est.terms}
    assert names["TTFT p99"] == pytest.approx(est.ttft_p99_ms) and names["TPOT p99"] == pytest.approx(est.tpot_p99_ms)


def test_the_prefill_queue_is_as_busy_as_the_prefills_share_of_each_mixed_step():
    """Mixtral FP8 on one H100 at 256 running requests: one prompt's stand-alone prefill is memory-bound (all
    experts read for 512 tokens), so arrivals x stand-alone prefill exceed capacity; inside a mixed step the
    prompts share the weight read with the decode batch, and the queue is only as busy as their share of it."""
    ctx = build_context(GPUS["H100-SXM"], MODELS["mixtral-8x7b"], "fp8", "fp8", "trtllm", 1)
    ctx = replace(ctx, compiled_prefill=True)  # TensorRT-LLM's TensorRT engine flow: no MoE prefill host time
    point = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", 256, 512, 146)
    decode_only = decode_parts(ctx, DEFAULT_EFFICIENCY, 256, 512 + 146 / 2)
    share = prefill_share_of_step(point.step.total_ms, decode_only.total_ms)
    arrivals_per_ms = 255 / (146 * point.step.total_ms)
    assert arrivals_per_ms * point.prefill.total_ms > 1.0 > 0.5 > share > 0.1
    prefill = point.prefill.total_ms
    wait = DEFAULT_EFFICIENCY.ttft_wait_steps * point.step.total_ms
    assert point.ttft_ms == pytest.approx(prefill * (1 + share / (2 * (1 - share))) + wait)
    lighter = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", 64, 512, 146)
    assert lighter.ttft_ms < point.ttft_ms  # fewer prompts per step: a less busy queue and shorter steps


def test_sglang_runs_a_waiting_prompt_before_the_next_decode_step_so_it_waits_half_a_step():
    """SGLang's scheduler prefills waiting prompts in a batch of their own (mixed batches only with
    --enable-mixed-chunk): a new request waits for the forward pass in flight, not for a step that also decodes
    the batch, as TensorRT-LLM's and vLLM V1's mixed batches make it (ttft_wait_steps)."""
    points = {}
    for engine in ("sglang", "trtllm"):
        ctx = build_context(GPUS["A100-SXM-80GB"], MODELS["llama-3.1-8b"], "bf16", "bf16", engine, 1)
        points[engine] = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", 16, 512, 256)
    for engine, steps in (("sglang", 0.5), ("trtllm", DEFAULT_EFFICIENCY.ttft_wait_steps)):
        p = points[engine]
        assert p.ttft_ms == pytest.approx(p.prefill.total_ms + p.prefill_queue_ms + steps * p.step.total_ms)
    alone = build_context(GPUS["A100-SXM-80GB"], MODELS["llama-3.1-8b"], "bf16", "bf16", "sglang", 1)
    lone = operating_point(alone, DEFAULT_EFFICIENCY, "concurrency", 1, 512, 256)
    assert lone.ttft_ms == pytest.approx(lone.prefill.total_ms)  # nothing running: no step to wait for


def _simulated_md1_waits(rho: float, customers: int = 200_000) -> list[float]:
    """Waits of a simulated M/D/1 queue with unit service (Lindley's recursion), warm-up dropped."""
    rng, wait, waits = random.Random(7), 0.0, []
    for _ in range(customers):
        waits.append(wait)
        wait = max(wait + 1.0 - rng.expovariate(rho), 0.0)
    return waits[10_000:]


@pytest.mark.parametrize("rho", [0.3, 0.55, 0.7, 0.9])
def test_the_md1_mean_and_median_wait_match_a_simulated_queue(rho):
    """The mean (Pollaczek-Khinchine) and the median (Erlang's exact distribution) against a simulation; below
    rho = 1/2 most arrivals find the queue empty, so the median wait is none."""
    waits = _simulated_md1_waits(rho)
    assert md1_wait_ms(10.0, rho) == pytest.approx(10.0 * statistics.fmean(waits), rel=0.05)
    simulated_median = statistics.median(waits)
    if rho <= 0.5:
        assert simulated_median == 0.0 and md1_median_wait_ms(10.0, rho) == 0.0
    else:
        assert md1_median_wait_ms(10.0, rho) == pytest.approx(10.0 * simulated_median, rel=0.06)
        assert 0 < md1_median_wait_ms(10.0, rho) < md1_wait_ms(10.0, rho)


def test_median_ttft_is_the_mean_with_the_prefill_queue_at_its_median_under_poisson_arrivals():
    """Long prompts and short answers keep the prefill queue busy. Under Poisson arrivals (an open loop, an
    MLPerf-style server) the median TTFT is the mean less the mean queue wait plus its median; a quiet queue
    (rho <= 1/2) leaves the median with no queue. A closed loop's arrivals are its clients' departures: the
    median is the mean there."""
    ctx = _ctx()
    busy = operating_point(ctx, DEFAULT_EFFICIENCY, "latency_bound", 32, 5000, 100)
    assert busy.poisson_arrivals and busy.prefill_utilisation > 0.5
    median_wait = md1_median_wait_ms(busy.prefill.total_ms, busy.prefill_utilisation)
    assert busy.ttft_median_ms == pytest.approx(busy.ttft_ms - busy.prefill_queue_ms + median_wait)
    assert busy.ttft_ms - busy.prefill_queue_ms < busy.ttft_median_ms < 0.9 * busy.ttft_ms
    quiet = open_loop_point(ctx, DEFAULT_EFFICIENCY, 1.0, 200, 5000, 100)
    assert quiet.poisson_arrivals and 0 < quiet.prefill_utilisation <= 0.5 and quiet.prefill_queue_ms > 0
    assert quiet.ttft_median_ms == pytest.approx(quiet.ttft_ms - quiet.prefill_queue_ms)
    closed = operating_point(ctx, DEFAULT_EFFICIENCY, "concurrency", 32, 5000, 100)
    assert not closed.poisson_arrivals and closed.prefill_queue_ms > 0 and closed.ttft_median_ms == closed.ttft_ms


def test_the_estimate_reports_the_median_ttft_in_its_numbers_and_terms():
    w = _nim_70b(scenario="request_rate", requests_per_s=2.0).model_copy(update={"output_len": 100})
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w)
    assert est.feasible and est.ttft_median_ms < est.ttft_ms < est.ttft_p99_ms
    names = {t.name: t.value for t in est.terms}
    assert names["TTFT median"] == pytest.approx(est.ttft_median_ms)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(103.0, "103 s"), (119.6, "120 s"), (1_571.0, "26 min"), (9_000.0, "2.5 h"), (21_677_148.0, "251 days")],
)
def test_an_overload_wait_reads_in_the_unit_a_person_uses(seconds: float, text: str):
    from app.scoring.explain import duration_text

    assert duration_text(seconds) == text


def test_a_fixed_load_that_misses_the_limits_says_so_and_latency_bound_never_does():
    """A request rate (or client count, or batch) is estimated as it runs; where it misses the latency limits its
    assumptions say so, so a row is never read as meeting them: live traffic is ranked after the rows that meet
    them (over_limits), a fixed batch only reports it. latency_bound picks a batch that meets them."""
    from app.catalog.spec_files import load_gpu_specs, load_model_specs
    from app.scoring.inference.estimates.estimate import estimate_inference
    from app.scoring.workload import InferenceWorkload

    gpu, model = load_gpu_specs()["H100-SXM"], load_model_specs()["llama-3.1-70b"]
    loaded = InferenceWorkload(model="llama-3.1-70b", scenario="concurrency", concurrency=200, tpot_ms=20)
    est = estimate_inference(gpu, 8, model, loaded)
    assert est.feasible and est.tpot_p99_ms > 20 and est.over_limits.startswith("TPOT p99")
    notes = [a for a in est.assumptions if "limit" in a and "ranked after every configuration" in a]
    assert notes and notes[0].startswith("TPOT p99") and "at a fixed client count" in notes[0]
    batch = estimate_inference(gpu, 8, model, loaded.model_copy(update={"scenario": "fixed_batch", "batch": 200}))
    assert batch.feasible and batch.tpot_p99_ms > 20 and not batch.over_limits
    assert any("at a fixed batch the limits are reported, not applied" in a for a in batch.assumptions)
    bound = estimate_inference(gpu, 8, model, loaded.model_copy(update={"scenario": "latency_bound", "tpot_ms": 50}))
    assert bound.feasible and not bound.over_limits
    assert not any("reported, not applied" in a or "ranked after" in a for a in bound.assumptions)


def test_a_given_prompt_spread_scales_the_own_prefill_and_the_fitted_ratio_the_waits():
    """With a prompt spread, p99 TTFT = own prefill x spread + waits x the fitted ratio: a lone request has no waits,
    and under load the waits (queue, running steps) keep the ratio the public p99 rows fit."""
    ratio = DEFAULT_EFFICIENCY.p99_ttft_over_mean
    busy = _nim_70b(scenario="concurrency", concurrency=40, kv_dtype="fp8", prompt_p99_over_mean=1.0)
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], busy)
    terms = {t.name: t.value for t in est.terms}
    waits = terms["TTFT: prefill queue"] + terms["TTFT: running steps' wait"]
    assert waits > 0 and est.ttft_p99_ms == pytest.approx(est.ttft_ms - waits + waits * ratio)
    assert terms["TTFT p99"] == est.ttft_p99_ms
    plain = estimate_inference(
        GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], busy.model_copy(update={"prompt_p99_over_mean": None})
    )
    assert plain.ttft_p99_ms == pytest.approx(plain.ttft_ms * ratio) and est.ttft_p99_ms < plain.ttft_p99_ms


def test_an_overloaded_rate_names_the_capacity_of_the_layout_that_serves_the_most():
    """DeepSeek-R1 on 8xH200 (SGLang, attention auto) serves 7.5 requests/s with data-parallel attention; above
    that, the refusal's "at most" is that layout's, not the split-by-heads one's (before: 'keeps up with 3.64
    requests/s at most (batch 441), not 8' while 6 and 7.5 requests/s were served)."""
    import re

    def at(rate: float):
        w = InferenceWorkload(
            model="deepseek-r1", weight_dtype="fp8", engine="sglang", input_len=1000, output_len=1000,
            ttft_ms=3000, tpot_ms=150, scenario="request_rate", requests_per_s=rate,
        )  # fmt: skip
        return estimate_inference(GPUS["H200"], 8, MODELS["deepseek-r1"], w)

    served = at(7.5)
    assert served.feasible and served.attention_parallel == "dp"
    refused = at(8)
    found = re.search(r"keeps up with ([\d.]+) requests/s at most", refused.reason)
    assert not refused.feasible and found, refused.reason
    assert 7.5 <= float(found.group(1)) < 8
    assert refused.attention_parallel == "dp"
