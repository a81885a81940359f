"""What an inference case row's cells and notes state about its run, read by general patterns: numeric cells
checked against the case files' rules, the statistic, beam width, offered request rate, run size, scheduler
steps, input/output lengths, and the engine era (vLLM V0/V1, TensorRT-LLM's engine or PyTorch backend).

case_setup.py builds a CaseSetup from these; the helpers stay underscored: they are the inference/ package's own.
"""

from __future__ import annotations

import re

from app.calibration.validation.cases import cell_number
from app.scoring.efficiency.inference import (
    DEFAULT_INPUT_LEN,
    DEFAULT_SINGLE_STREAM_INPUT_LEN,
    DEFAULT_SINGLE_STREAM_OUTPUT_LEN,
    INPUT_CAP_SHARE,
)
from app.scoring.inference.batching.finite_run import RUN_REQUESTS_DEFAULT
from app.scoring.inference.step.context import InferenceContext

# MLPerf GPT-J (CNN/DailyMail summarisation) is generated with beam search, 4 beams (MLCommons rules).
PROTOCOL_BEAM_WIDTH: dict[str, int] = {"CNN/DailyMail": 4}


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
