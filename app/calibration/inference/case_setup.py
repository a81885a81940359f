"""One measured inference case (a row of inference_cases.csv) read into the estimator's setup (CaseSetup): the
GPU and model, engine, scenario, parallelism that fits, lengths, batch caps and the run's stated conditions.

A row that cannot be set up gets the reason as a string; validate_inference.py predicts a setup.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.calibration.inference.case_notes import (
    STATISTICS,
    VLLM_V1_FROM,
    _beam_width,
    _compiled_prefill,
    _lengths,
    _num,
    _request_rate,
    _run_requests,
    _scheduler_steps,
    _statistic,
    _year_month,
)
from app.calibration.inference.run_conditions import run_conditions, stated_kv_dtype
from app.calibration.validation.cases import UnreadableRow
from app.scoring.efficiency.inference import (
    ENGINE_MAX_BATCH,
    ENGINE_TOKEN_BUDGET,
)
from app.scoring.hardware.dtypes import KV_BYTES
from app.scoring.inference.batching.finite_run import MAX_RUN_REQUESTS, replayable
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.memory import (
    GB,
    head_split_reason,
    max_sequences,
    request_kv_tokens,
    stage_split_reason,
    usable_gb,
    weight_bytes,
)
from app.scoring.workload import default_kv_dtype

ENGINES = ("trtllm", "vllm", "sglang", "llamacpp", "hf")
SCENARIOS = ("max_throughput", "latency_bound", "fixed_batch", "concurrency", "request_rate", "single_stream")
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


def _fits(gpu, model, wdt: str, tp: int, pp: int, engine: str) -> bool:
    return weight_bytes(model, wdt) / GB < usable_gb(gpu, tp, engine) * tp * pp


def _parallelism(row: dict, gpu, model, wdt: str, engine: str) -> tuple[list[tuple[int, int]], str | None]:
    """Given (TP, PP), or every power-of-two TP that fits the system when the row does not say."""
    tp, pp = _num(row, "tensor_parallel"), _num(row, "pipeline_parallel")
    count = int(_num(row, "gpu_count") or 1)  # read even where TP is given: an unreadable cell is never skipped
    if tp:
        return [(int(tp), int(pp or 1))], None
    limit = max(gpu.scaleup_domain_gpus, 1)
    if row.get("metric") in INSTANCE_METRICS and count <= limit and _fits(gpu, model, wdt, count, 1, engine):
        # the README's exception (gpu_count the whole system of several replicas) gives only per-GPU throughput
        return [(count, 1)], f"TP unknown: a latency row is one instance (gpu_count = TP × PP), TP{count} assumed"
    tps = (t for t in (1, 2, 4, 8) if t <= min(count, limit) and count % t == 0)
    options = [(t, 1) for t in tps if _fits(gpu, model, wdt, t, 1, engine)]
    return options, "TP unknown: the power-of-two TP with the best per-GPU throughput is assumed"


def _layout_reason(row: dict, model, tp: int, pp: int) -> str | None:
    """Why a stated TP x PP cannot run this model on the row's GPUs (None = it can): the product's own checks, and
    gpu_count a whole number of TP x PP instances (the case files' README: one instance, or a system of several)."""
    count = int(_num(row, "gpu_count") or tp * pp)
    if count % (tp * pp):
        return f"tensor_parallel {tp} × pipeline_parallel {pp} does not divide gpu_count {count}"
    return stage_split_reason(model, pp) or head_split_reason(model, tp)


def _over_capacity_note(scenario: str, batch: float | None, cap: int, limit: str) -> list[str]:
    """A fixed batch larger than the engine runs at once runs in waves of what it takes: vLLM and TensorRT-LLM admit
    requests while cache blocks last and queue (or preempt and recompute) the rest, so the output rate is the full
    cache's rate; an engine's cap on running sequences (llama-server's slots, a stated max_num_seqs) queues the rest
    the same way. Argonne's 18 A100 rows over the KV capacity read +28 % without this, +5 % with it (in-sample, before
    the 2026-12-03 refit). `limit` names which bound `cap` is (_cap_words)."""
    if scenario != "fixed_batch" or not batch or batch <= cap:
        return []
    return [f"batch {batch:g} over {limit}: {cap} sequences run at a time, the rest wait for their turn"]


def _cap_words(engine: str, fit: int, engine_cap: int, stated: bool) -> str:
    """Which bound sets the sequences a case runs at once (min(fit, engine_cap)): the KV cache at the mean context,
    or the engine's cap on running sequences, stated in the row or the engine's default (llama-server's --parallel
    slots, vLLM's max_num_seqs, ...: efficiency/inference.engine_defaults)."""
    if fit <= engine_cap:
        return "the KV capacity"
    if stated:
        return f"the engine's stated batch cap ({engine_cap})"
    if engine == "llamacpp":
        return f"llama-server's {engine_cap} slots (its default --parallel {engine_cap}; the KV cache holds {fit})"
    return f"{engine}'s default cap of {engine_cap} running sequences (the KV cache holds {fit})"


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
    # an empty cell's default is said, as the training validator says its own ("precision empty: bf16 assumed")
    notes += [
        f"{column} empty: {value} assumed"
        for column, value in (("weight_dtype", wdt), ("engine", engine))
        if not row.get(column)
    ]
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
    if len(layouts) == 1 and (unsplittable := _layout_reason(row, model, *layouts[0])) is not None:
        return unsplittable
    if not layouts or not _fits(gpu, model, wdt, *layouts[0], engine):
        return "weights do not fit in the estimator's memory model"
    input_len, output_len, length_notes = _lengths(row, scenario)
    notes += length_notes
    if metric in ("tpot_ms", "decode_tok_s") and output_len <= 1:
        # the first token is the prefill's: a request that ends there has no decode step to time (the replay said 0)
        return f"{metric} of requests with output_len {output_len:g}: no token after the first, nothing to time"
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
    options, limits = [], []
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
            limits.append(_cap_words(engine, fit, engine_cap, stated=bool(stated[0].batch_cap)))
    if not options:
        held = request_kv_tokens(input_len, output_len, beams)
        return f"one request's KV cache at its mean size ({held:g} tokens) does not fit beside the weights"
    notes += list(stated[0].notes) + list(options[0][0].assumptions)
    notes += _over_capacity_note(scenario, batch, options[0][1], limits[0])
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
