"""Predict one measured inference case (a row of inference_cases.csv) with the estimator."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from app.calibration.inference.run_conditions import run_conditions, stated_kv_dtype
from app.calibration.validation.cases import CasePrediction, UnreadableRow, cell_number
from app.calibration.validation.summary import make_prediction
from app.scoring.dtypes import KV_BYTES
from app.scoring.efficiency.inference import (
    DEFAULT_EFFICIENCY,
    DEFAULT_INPUT_LEN,
    DEFAULT_SINGLE_STREAM_INPUT_LEN,
    DEFAULT_SINGLE_STREAM_OUTPUT_LEN,
    ENGINE_MAX_BATCH,
    ENGINE_TOKEN_BUDGET,
    INPUT_CAP_SHARE,
    InferenceEfficiency,
)
from app.scoring.inference.batching.finite_run import MAX_RUN_REQUESTS, RUN_REQUESTS_DEFAULT, replay_run, replayable
from app.scoring.inference.batching.loops import closed_loop_point, latency_bound_point, open_loop_point
from app.scoring.inference.batching.operating_points import (
    CONTINUOUS_SCENARIOS,
    OperatingPoint,
    operating_point,
    token_budget_cap,
)
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.memory import GB, max_sequences, request_kv_tokens, usable_gb, weight_bytes
from app.scoring.workload import default_kv_dtype

ENGINES = ("trtllm", "vllm", "sglang", "llamacpp", "hf")
SCENARIOS = ("max_throughput", "latency_bound", "fixed_batch", "concurrency", "request_rate", "single_stream")
# MLPerf GPT-J (CNN/DailyMail summarisation) is generated with beam search, 4 beams (MLCommons rules).
PROTOCOL_BEAM_WIDTH: dict[str, int] = {"CNN/DailyMail": 4}
METRICS = ("output_tok_s_per_gpu", "ttft_ms", "tpot_ms", "decode_tok_s", "prefill_tok_s")
# Metrics of one model instance's requests: their rows' gpu_count is that instance's (the case files' README)
INSTANCE_METRICS = frozenset({"ttft_ms", "tpot_ms", "decode_tok_s", "prefill_tok_s"})


@dataclass(frozen=True, slots=True)
class CaseSetup:
    """Everything about a case that does not depend on the efficiency constants."""

    options: tuple[tuple[InferenceContext, int], ...]  # (context, largest batch) per candidate TP
    scenario: str
    metric: str
    statistic: str  # mean, median or p99 (the row's `statistic`; value and empty mean the mean)
    batch: float  # fixed batch / in-flight count; 0 = chosen by the estimator
    input_len: float
    output_len: float
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    notes: tuple[str, ...]
    beam_width: int = 1
    requests_per_s: float | None = None  # open-loop arrival rate (request_rate rows that state it)
    scheduler_steps: int = 1  # decode steps per scheduler call (vLLM V0 --num-scheduler-steps)
    poisson_arrivals: bool = False  # a request-rate row, also where it runs as a closed loop at its in-flight count
    token_budget: int | None = None  # the engine's tokens per iteration as stated (else its default)
    run_requests: int | None = None  # requests in a finite run, replayed step by step (finite_run.py) where it matters


# TensorRT-LLM rows ran its TensorRT engine flow (compiled prefill: no MoE prefill host time) unless their notes say
# "PyTorch backend" (trtllm-perf-v0.20): every public TensorRT-LLM row predates 1.0, whose default is that backend.
TRTLLM_PYTORCH_BACKEND = "pytorch backend"


def _compiled_prefill(row: dict, engine: str, ctx: InferenceContext) -> bool:
    if engine == "trtllm":
        return TRTLLM_PYTORCH_BACKEND not in (row.get("notes") or "").lower()
    return ctx.compiled_prefill


# vLLM's V1 engine, whose defaults depend on the GPU (efficiency.inference.engine_defaults), is its default from
# 0.8.0 (March 2025); rows dated before ran V0: 256 sequences whatever the GPU.
VLLM_V1_FROM = (2025, 3)


def _year_month(row: dict) -> tuple[int, int]:
    """The row's date as (year, month); an unreadable or empty date reads as recent (today's engine)."""
    match = re.match(r"(\d{4})-(\d{2})", row.get("date") or "")
    return (int(match.group(1)), int(match.group(2))) if match else (9999, 12)


STATISTICS = frozenset({"mean", "median", "p99", "value", ""})  # "value" and empty: a single number, read as the mean


def _statistic(row: dict) -> str:
    statistic = (row.get("statistic") or "").strip()
    return statistic if statistic in ("median", "p99") else "mean"


# The least value each numeric column may hold and whether it counts whole things (the case files' README): a cell
# outside these is unreadable and the row is not covered; an empty one means unknown.
CELL_RULES: dict[str, tuple[float, bool]] = {
    "gpu_count": (1, True),
    "tensor_parallel": (1, True),
    "pipeline_parallel": (1, True),
    "batch": (1, True),
    "input_len": (0, False),  # 0 = no prompt; a mean for variable-length datasets
    "output_len": (0, False),  # 0 = prompt processing only
    "concurrency": (1e-3, False),  # fractional where derived with Little's law
    "ttft_limit_ms": (1e-3, False),
    "tpot_limit_ms": (1e-3, False),
}


def _num(row: dict, key: str) -> float | None:
    least, whole = CELL_RULES[key]
    return cell_number(row, key, least=least, whole=whole)


def _fits(gpu, model, wdt: str, tp: int, pp: int, engine: str) -> bool:
    return weight_bytes(model, wdt) / GB < usable_gb(gpu, tp, engine) * tp * pp


def _parallelism(row: dict, gpu, model, wdt: str, engine: str) -> tuple[list[tuple[int, int]], str | None]:
    """Given (TP, PP), or every power-of-two TP that fits the system when the row does not say."""
    tp, pp = _num(row, "tensor_parallel"), _num(row, "pipeline_parallel")
    if tp:
        return [(int(tp), int(pp or 1))], None
    count = int(_num(row, "gpu_count") or 1)
    limit = max(gpu.scaleup_domain_gpus, 1)
    if row.get("metric") in INSTANCE_METRICS and count <= limit and _fits(gpu, model, wdt, count, 1, engine):
        # the README's exception (gpu_count the whole system of several replicas) gives only per-GPU throughput
        return [(count, 1)], f"TP unknown: a latency row is one instance (gpu_count = TP x PP), TP{count} assumed"
    tps = (t for t in (1, 2, 4, 8) if t <= min(count, limit) and count % t == 0)
    options = [(t, 1) for t in tps if _fits(gpu, model, wdt, t, 1, engine)]
    return options, "TP unknown: the power-of-two TP with the best per-GPU throughput is assumed"


def _beam_width(row: dict) -> tuple[int, str | None]:
    """Beam width of the published run: stated in the notes, else the benchmark protocol's rule."""
    notes = row.get("notes", "")
    match = re.search(r"beam (?:width|size|search)\D{0,4}(\d+)", notes, re.IGNORECASE)
    if match:
        return int(match.group(1)), None
    for marker, beams in PROTOCOL_BEAM_WIDTH.items():
        if marker in notes:
            return beams, f"{marker}: benchmark protocol decodes with beam search {beams}"
    return 1, None


# The offered rate as publications word it: "request rate 4 req/s", "--request-rate 4", "request_rate=4", "QPS 4". Only
# a number named as the rate: "achieved 16 req/s" and Little's-law arithmetic ("= 4 req/s x ...") are not the offer.
_RATE = re.compile(
    r"request[-_ ]rate(?: of)?\W{0,3}(\d+(?:\.\d+)?)(?!\w)|(?<!\w)(?:qps|rps)\W{0,3}(\d+(?:\.\d+)?)", re.IGNORECASE
)


def _request_rate(row: dict) -> float | None:
    """The offered open-loop rate, as the notes state it (_RATE)."""
    match = _RATE.search(row.get("notes", ""))
    return float(match.group(1) or match.group(2)) if match else None


# A serving benchmark's burst as publications word it: every request sent at t = 0 (vLLM's and SGLang's clients at
# --request-rate inf, Triton's "QPS = INF"). MLPerf Offline's "all samples issued at once" is its whole dataset: the
# steady state.
_BURST = re.compile(r"request[-_ ]rate\W{0,3}inf\b|\bqps\W{0,3}inf\b|requests issued at once", re.IGNORECASE)
# The run's size: "--num-prompts 1000", "500 requests", "5000 ShareGPT prompts"; not an in-flight count ("33 requests
# in flight") nor the warm-up a client discards ("10 warmup requests").
_RUN_SIZE = re.compile(
    r"num[-_]prompts\W{1,3}(\d[\d,]*)|\b(\d[\d,]*) (?:(?!warm)[A-Za-z-]+ )?(?:requests|prompts)\b(?! in flight)",
    re.IGNORECASE,
)


def _run_requests(row: dict, scenario: str) -> tuple[int | None, str | None]:
    """Requests in a finite run the validator replays (finite_run.py), with a note where assumed; None: none replayed.

    An offline burst as published ("all 500 requests issued at once", "request rate inf, 5000 prompts"), or an
    offline TTFT row (a serving benchmark at "request rate inf"); a request-rate row (replayed only where the model
    finds it overloaded). A count the notes do not state is the benchmark clients' default (RUN_REQUESTS_DEFAULT).
    Other offline rows (MLPerf Offline, the whole dataset at once) stay the steady state."""
    notes = row.get("notes", "")
    burst = _BURST.search(notes)
    if scenario == "max_throughput" and not burst and row.get("metric") != "ttft_ms":
        return None, None
    if scenario not in ("max_throughput", "request_rate"):
        return None, None
    stated = _RUN_SIZE.search(notes)
    if stated:
        return int((stated.group(1) or stated.group(2)).replace(",", "")), None
    return (
        RUN_REQUESTS_DEFAULT,
        f"requests in the run not stated: {RUN_REQUESTS_DEFAULT} assumed (--num-prompts default)",
    )


def _scheduler_steps(row: dict, engine: str) -> int:
    """vLLM V0's multi-step scheduling as stated ("--num-scheduler-steps 10"): the scheduler runs N decode steps per
    call and admits new requests only between calls (vLLM docs; removed in the V1 engine, so never in the product)."""
    match = re.search(r"--num-scheduler-steps (\d+)", row.get("notes", ""))
    return max(int(match.group(1)), 1) if match and engine == "vllm" else 1


def _over_capacity_note(scenario: str, batch: float | None, cap: int) -> list[str]:
    """A fixed batch larger than the KV cache holds (at the mean context) runs in waves of what fits: vLLM and
    TensorRT-LLM admit requests while cache blocks last and queue (or preempt and recompute) the rest, so the
    output rate is the full cache's rate. Argonne's 18 A100 rows over the capacity read +28 % without this, +5 % with
    it (in-sample, before the 2026-12-03 refit)."""
    if scenario != "fixed_batch" or not batch or batch <= cap:
        return []
    return [f"batch {batch:g} over the KV capacity: {cap} sequences run at a time, the rest wait for their turn"]


_INPUT_CAP = re.compile(r"input(?: and output each)? <=? ?([\d,]+) tokens")


def _lengths(row: dict, scenario: str) -> tuple[float, float, list[str]]:
    notes = []
    input_len, output_len = _num(row, "input_len"), _num(row, "output_len")
    if input_len is None:
        cap = _INPUT_CAP.search(row.get("notes", ""))
        if cap:
            cap_tokens = float(cap.group(1).replace(",", ""))
            input_len = cap_tokens * INPUT_CAP_SHARE
            notes.append(f"input_len unknown: {input_len:g} tokens assumed (half the stated cap, {cap_tokens:g})")
        else:
            input_len = DEFAULT_SINGLE_STREAM_INPUT_LEN if scenario == "single_stream" else DEFAULT_INPUT_LEN
            notes.append(f"input_len unknown: {input_len:g} tokens assumed")
    if output_len is None:
        output_len = DEFAULT_SINGLE_STREAM_OUTPUT_LEN
        notes.append(f"output_len unknown: {output_len:g} tokens assumed")
    return max(input_len, 1.0), max(output_len, 1.0), notes


def case_setup(row: dict, gpus: dict, models: dict) -> CaseSetup | str:
    """Build the efficiency-independent part of a case, or return why it is not covered (never raises)."""
    try:
        return _case_setup(row, gpus, models)
    except UnreadableRow as error:
        return f"unreadable row: {error}"


def _case_setup(row: dict, gpus: dict, models: dict) -> CaseSetup | str:
    gpu, model = gpus.get(row.get("gpu", "")), models.get(row.get("model", ""))
    if gpu is None or model is None:
        return f"unknown {'gpu' if gpu is None else 'model'} id"
    scenario, metric = row.get("scenario", ""), row.get("metric", "")
    if scenario not in SCENARIOS or metric not in METRICS:
        return f"scenario {scenario!r} / metric {metric!r} not modelled"
    if (statistic := (row.get("statistic") or "").strip()) not in STATISTICS:
        listed = ", ".join(sorted(STATISTICS - {""}))
        return f"statistic {statistic!r} not modelled (the case files' README lists {listed})"
    for column in ("weight_dtype", "kv_dtype"):
        if (dtype := row.get(column) or "") and dtype not in KV_BYTES:
            return f"{column} {dtype!r} not modelled (the case files' README lists {', '.join(KV_BYTES)})"
    wdt = row.get("weight_dtype") or "bf16"
    kv_stated = None if row.get("kv_dtype") else stated_kv_dtype(row.get("notes", ""))
    engine = row.get("engine") or "vllm"
    kvdt = row.get("kv_dtype") or kv_stated or default_kv_dtype(wdt, engine)
    notes = [f"KV cache {kv_stated} (stated in the notes)"] if kv_stated else []
    if engine not in ENGINES:
        notes.append(f"engine {engine!r} treated as the vllm class")
        engine = "vllm"
    if scenario == "max_throughput" and metric == "ttft_ms" and not replayable(engine):
        return "TTFT of an offline burst on a statically batching engine: not modelled"
    layouts, note = _parallelism(row, gpu, model, wdt, engine)
    notes += [note] if note else []
    if not layouts and _fits(gpu, model, wdt, int(_num(row, "gpu_count") or 1), 1, engine):
        # e.g. Llama-2-70B on a system of 8 PCIe-only L40S (MLPerf v4.1, NeuralMagic's vLLM reference runs): the
        # product would split it over one PCIe server, but assuming so here, at 3-5x their measurement, moves the cold
        # refit into a worse valley (loss 0.2245 against 0.2232 for the committed constants on the same 2,266 rows,
        # 2026-12-03): not covered until the inference fit restarts from several points as the training fit does
        return "TP unknown and the weights need a tensor-parallel group beyond the GPU's scale-up domain: not assumed"
    if not layouts or not _fits(gpu, model, wdt, *layouts[0], engine):
        return "weights do not fit in the estimator's memory model"
    input_len, output_len, length_notes = _lengths(row, scenario)
    notes += length_notes
    ttft_limit, tpot_limit = _num(row, "ttft_limit_ms"), _num(row, "tpot_limit_ms")
    if scenario == "latency_bound" and not (ttft_limit and tpot_limit):
        scenario = "max_throughput"
        notes.append("no TTFT/TPOT limits (end-to-end bound only): modelled as max_throughput")
    requests_per_s = _request_rate(row) if scenario == "request_rate" else None
    poisson = scenario == "request_rate"
    if scenario == "request_rate" and requests_per_s is None:
        scenario = "concurrency"
        notes.append("request rate not stated: modelled as a closed loop at the derived in-flight count")
    elif scenario == "request_rate" and _num(row, "output_len") is None and _num(row, "concurrency"):
        # the rate sets the running batch through each request's life, and an assumed output length would set
        # that life: the measured in-flight count (Little's law over the measured latency) is the better anchor
        scenario, requests_per_s = "concurrency", None
        notes.append("output_len unknown: modelled as a closed loop at the stated in-flight count, not the rate")
    batch = _num(row, "concurrency") if scenario in ("concurrency", "request_rate") else _num(row, "batch")
    if scenario == "single_stream":
        batch = 1.0
    beams, beam_note = _beam_width(row)
    notes += [beam_note] if beam_note else []
    run_requests, run_note = _run_requests(row, scenario) if replayable(engine) else (None, None)
    if run_requests is not None and run_requests > MAX_RUN_REQUESTS:
        if scenario == "max_throughput":
            return f"a burst of {run_requests:,} requests: beyond what the validator replays ({MAX_RUN_REQUESTS:,})"
        run_requests, run_note = None, None  # an open loop keeps its steady state
    burst = run_requests if scenario == "max_throughput" else None
    notes += [run_note + ("" if burst else ", replayed only if the rate is above capacity")] if run_note else []
    if burst:
        notes.append(f"a burst of {burst} requests, replayed step by step")
    stated = [run_conditions(row.get("notes", ""), model, tp * pp) for tp, pp in layouts]
    v0 = engine == "vllm" and _year_month(row) < VLLM_V1_FROM
    options = []
    for (tp, pp), conditions in zip(layouts, stated, strict=True):
        dp = tp if conditions.attention_dp and tp > 1 else 1
        fit = max_sequences(gpu, model, wdt, kvdt, request_kv_tokens(input_len, output_len, beams), tp, pp, dp, engine)
        ctx = build_context(
            gpu, model, wdt, kvdt, engine, tp, pp, attention_dp=dp, expert_parallel=conditions.expert_parallel
        )
        if conditions.techniques.active:
            ctx = replace(ctx, techniques=conditions.techniques)
        ctx = replace(ctx, compiled_prefill=_compiled_prefill(row, engine, ctx))
        if v0:  # vLLM V0 scheduled 256 sequences on any GPU; its step budget is read as V1's 8,192
            ctx = replace(
                ctx, default_batch_cap=ENGINE_MAX_BATCH["vllm"], default_token_budget=ENGINE_TOKEN_BUDGET["vllm"]
            )
        engine_cap = stated[0].batch_cap or ctx.default_batch_cap
        if fit >= 1:
            options.append((ctx, min(fit, engine_cap, burst or engine_cap)))
    if not options:
        held = request_kv_tokens(input_len, output_len, beams)
        return f"one request's KV cache at its mean size ({held:g} tokens) does not fit beside the weights"
    notes += list(stated[0].notes) + list(options[0][0].assumptions)
    notes += _over_capacity_note(scenario, batch, options[0][1])
    return CaseSetup(
        tuple(options),
        scenario,
        metric,
        _statistic(row),
        batch or 0.0,
        input_len,
        output_len,
        ttft_limit,
        tpot_limit,
        tuple(notes),
        beams,
        requests_per_s,
        _scheduler_steps(row, engine),
        poisson,
        stated[0].token_budget,
        run_requests,
    )


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
    if setup.scenario == "fixed_batch":  # a batch over the KV capacity runs `cap` at a time (_over_capacity_note)
        batch = min(batch, cap)
    return operating_point(
        ctx, eff, setup.scenario, max(batch, 1.0), setup.input_len, setup.output_len, setup.beam_width
    )


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
