"""A finite run replayed step by step: `requests` requests arriving evenly at a rate, or all at once (a burst, as
benchmark clients send them at "request rate inf"), through an engine with `slots` running sequences.

The steady-state operating points (operating_points.py) describe an engine whose load neither grows nor ends. A
finite run does both: a burst of N prompts is prefilled a step budget at a time, so the k-th prompt's first token
waits for the k - 1 prompts ahead of it, and an open loop above capacity builds a queue that only the run's end
stops. Its mean TTFT depends on N, which the steady state cannot see (TensorRT-LLM v0.14 serving tables: 500
requests issued at once, TTFT 1.7-9.2 s where a running step takes 20-550 ms).

The replay follows the engines' schedulers:
- TensorRT-LLM and vLLM V1 (budget: engine_defaults) put every running sequence's decode token in each step and fill
  the rest of the step's token budget with queued prompt tokens, in arrival order, a chunk at a time;
- SGLang (PREFILL_FIRST_ENGINES) runs queued prompts as prefill batches of their own, a chunk of
  its chunked_prefill_size (ctx.prefill_chunk_tokens) at a time, before it decodes again;
- a request takes a slot when it arrives and one is free (KV cache, the engine's batch cap), else when the earliest
  running request completes; its first token comes with the step that finishes its prompt.
Each step is timed by decode_parts with the decodes and the prompt tokens it carries: the estimator's own step.
Lengths are the row's means, the same for every request. Engines that batch statically (llama.cpp, HF) are not
replayed (None).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from app.scoring.efficiency.inference import (
    ENGINE_TOKEN_BUDGET,
    PREFILL_FIRST_ENGINES,
    InferenceEfficiency,
)
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.steps import decode_parts, prefill_attention_flops

# A replay stops here: a run this long is not a benchmark the estimator is asked about, and the step loop is bounded.
MAX_RUN_REQUESTS = 100_000
MAX_RUN_STEPS = 2_000_000
# A decode-only jump runs past completions while the batch stays within this share of its size, timing those steps
# at its size: the step time moves less than the share (decode steps grow sublinearly with the batch).
BATCH_DRIFT = 0.02
# Requests a serving benchmark sends where a row does not say: vLLM's benchmark_serving.py and SGLang's
# bench_serving.py both default --num-prompts to 1000.
RUN_REQUESTS_DEFAULT = 1000


@dataclass(frozen=True, slots=True)
class RunReplay:
    """What a client of the run measures: per-request TTFT (ms, sorted), mean TPOT and the run's length."""

    ttfts_ms: tuple[float, ...]
    mean_tpot_ms: float
    makespan_ms: float  # first arrival to last completion
    output_tokens: float
    peak_running: int

    @property
    def mean_ttft_ms(self) -> float:
        return sum(self.ttfts_ms) / len(self.ttfts_ms)

    def ttft_quantile_ms(self, q: float) -> float:
        """The q-quantile of the requests' TTFTs (nearest rank)."""
        ranked = self.ttfts_ms
        return ranked[min(max(math.ceil(q * len(ranked)) - 1, 0), len(ranked) - 1)]

    @property
    def output_tok_s(self) -> float:
        """Output tokens per second over the run, as a benchmark client divides them (whole instance)."""
        return self.output_tokens / self.makespan_ms * 1e3 if self.makespan_ms > 0 else 0.0


def replayable(engine: str) -> bool:
    return engine in ENGINE_TOKEN_BUDGET or engine in PREFILL_FIRST_ENGINES


class _Step:
    """Step times of one run, memoised by (decoding sequences, prompt tokens): a run repeats the same few steps."""

    def __init__(self, ctx: InferenceContext, eff: InferenceEfficiency, context: float, input_len: float, beams: int):
        self.ctx, self.eff, self.context, self.input_len, self.beams = ctx, eff, context, input_len, beams
        self.seen: dict[tuple[int, float], float] = {}

    def ms(self, decoding: int, prompt_tokens: float) -> float:
        key = (decoding, prompt_tokens)
        if key not in self.seen:
            prompts = prompt_tokens / self.input_len
            self.seen[key] = decode_parts(
                self.ctx,
                self.eff,
                decoding * self.beams,
                self.context,
                prompt_tokens * self.ctx.techniques.uncached_share,
                prefill_attention_flops(self.ctx, prompts, self.input_len),
                1.0 if prompt_tokens else 0.0,  # one eager prefill pass in the step (the MoE host time per layer)
                prompts,
            ).total_ms
        return self.seen[key]


def replay_run(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    requests: int,
    requests_per_s: float | None,
    slots: int,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
    budget: int | None = None,
) -> RunReplay | None:
    """Replay `requests` requests (all at t = 0 when `requests_per_s` is None) through `slots` running sequences.

    `budget`: the engine's tokens per step where stated (else its default). None where the engine is not
    replayed or the run is beyond MAX_RUN_REQUESTS / MAX_RUN_STEPS."""
    if not replayable(ctx.engine) or not 1 <= requests <= MAX_RUN_REQUESTS or slots < 1:
        return None
    prefill_first = ctx.engine in PREFILL_FIRST_ENGINES
    step_tokens = float(ctx.prefill_pass_tokens(budget) or 0)
    step = _Step(ctx, eff, input_len + output_len / 2, input_len, beam_width)
    per_step = ctx.techniques.tokens_per_step  # tokens each decoding sequence advances per step
    decode_steps = math.ceil(max(output_len - 1.0, 0.0) / per_step)  # after the first token
    gap_ms = 1e3 / requests_per_s if requests_per_s else 0.0

    t = 0.0
    done_steps = 0  # decode steps run so far: a decoding request finishes when this reaches its mark
    arrived = 0  # requests that have taken a slot
    prompts: deque[list[float]] = deque()  # [arrival ms, prompt tokens left] of slotted requests, in order
    decoding: deque[tuple[int, float]] = deque()  # (step mark it finishes at, first-token ms), in finishing order
    ttfts: list[float] = []
    tpot_sum, completed, peak = 0.0, 0, 0
    queued = 0.0  # prompt tokens not yet prefilled
    for _ in range(MAX_RUN_STEPS):
        while arrived < requests and arrived * gap_ms <= t and len(prompts) + len(decoding) < slots:
            prompts.append([arrived * gap_ms, input_len])
            queued += input_len
            arrived += 1
        peak = max(peak, len(prompts) + len(decoding))
        if not prompts and not decoding:
            if arrived == requests:
                break
            t = arrived * gap_ms  # idle until the next arrival
            continue
        if prompts:
            running = 0 if prefill_first else len(decoding)
            chunk = min(max(step_tokens - running * beam_width, 0.0), queued)
            ms = step.ms(running, chunk)
            start_ms = t
            t += ms
            done_steps += 1 if running else 0
            start_steps = done_steps - 1  # whatever finishes in this step finishes at its end
            queued -= chunk
            while chunk > 1e-9 and prompts:
                head = prompts[0]
                used = min(chunk, head[1])
                head[1] -= used
                chunk -= used
                if head[1] <= 1e-9:
                    prompts.popleft()
                    ttfts.append(t - head[0])
                    decoding.append((done_steps + decode_steps, t))
        else:
            # decode only: jump to the next arrival that finds a free slot, or past the completions that leave the
            # batch within BATCH_DRIFT of its size (their steps timed at its size, each completion at its own step)
            d = len(decoding)
            n = decoding[min(int(BATCH_DRIFT * d), d - 1)][0] - done_steps
            ms = step.ms(d, 0.0)
            if arrived < requests and d < slots:
                n = min(n, max(math.ceil((arrived * gap_ms - t) / ms), 1))
            n = max(n, 1)
            start_ms, start_steps = t, done_steps
            t += n * ms
            done_steps += n
        while decoding and decoding[0][0] <= done_steps:
            mark, first_ms = decoding.popleft()
            finish_ms = start_ms + (mark - start_steps) * ms
            tpot_sum += (finish_ms - first_ms) / (output_len - 1.0) if decode_steps else 0.0
            completed += 1
    else:
        return None
    return RunReplay(
        tuple(sorted(ttfts)),
        tpot_sum / completed if completed else 0.0,
        t,
        requests * output_len,
        peak,
    )
