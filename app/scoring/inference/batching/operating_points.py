"""Operating points: TTFT, TPOT and throughput of a running batch under each batching mode and load.

Static and continuous batching at a given running batch (`operating_point`), with the waits of queueing.py in its
TTFT; where an open loop, a closed loop or latency limits settle the batch is loops.py. `estimate` picks the batch;
the validator calls these directly.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.batching.queueing import (
    MAX_UTILISATION,
    batched_pass_ms,
    loaded_ttft_ms,
    md1_median_wait_ms,
    md1_wait_ms,
    prefill_utilisation,
    request_life_ms,
    running_steps_wait_ms,
)
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.pass_rates import pass_rates
from app.scoring.inference.step.prefill import prefill_latency_ms, prefill_parts
from app.scoring.inference.step.steps import (
    StepParts,
    decode_parts,
    forward_parts,
    mixed_step_parts,
    one_prompt_batch,
    prompts_per_step,
)
from app.scoring.records import hot_record
from app.scoring.workload import InferenceWorkload


@hot_record
class OperatingPoint:
    """Timing of a chosen batch: what the estimate and the validator both need."""

    batch: float
    ttft_ms: float
    tpot_ms: float
    tokens_per_s: float  # whole instance, output tokens
    step: StepParts
    prefill: StepParts
    queue_ms: float = 0.0  # closed loop beyond the running batch: wait for a free slot (in ttft_ms)
    waiting: float = 0.0  # requests queued for a slot (concurrency - running batch)
    backlog_per_s: float = 0.0  # open loop above capacity: requests added to the queue each second
    prefill_queue_ms: float = 0.0  # mean M/D/1 wait of a prompt for the prefills ahead of it (in ttft_ms)
    prefill_utilisation: float = 0.0  # that queue's rho: the share of each step its prompts take
    poisson_arrivals: bool = False  # open loops and MLPerf-style servers; a closed loop's arrivals are departures
    first_prefill_ms: float = 0.0  # a request's own prompt through every pipeline stage in turn (in ttft_ms)
    step_wait_ms: float = 0.0  # under continuous batching: the running steps a new request waits for (in ttft_ms)
    ttft_prompts: float = 1.0  # prompts whose prefill the first token waits for: static batching's whole batch
    # above one prompt a step on an MoE model: the other prompts' work in the prefill pass a prompt shares with them
    # (queueing.batched_pass_ms; in ttft_ms)
    batched_prefill_ms: float = 0.0
    pass_prompts: float = 1.0  # prompts each step's prefill pass carries there (batched_prefill_ms: n - 1 others')
    # continuous batching at batch 1: the decodes alone (prefill_utilisation's reference), one request's decode step,
    # which a lone request's point (single_stream) reuses; None at any other batch (the step would only be held),
    # except on a batch job's point, whose drain starts from it (operating_point's keep_decode_only)
    decode_only: StepParts | None = None

    @property
    def own_prefill_ms(self) -> float:
        """The prefill the first token waits for (its own prompt; static batching's whole batch): TTFT's waits apart."""
        return self.ttft_ms - self.prefill_queue_ms - self.step_wait_ms - self.queue_ms - self.batched_prefill_ms

    def ttft_p99_ms(self, p99_over_mean: float, prompt_p99_over_mean: float | None = None) -> float:
        """p99 TTFT: the mean x the fitted p99 / mean ratio (p99_ttft_over_mean). A question that gives its prompt
        spread (p99 prompt / mean, 1 = one length) has its own prefill scaled by that instead, its waits by the ratio:
        a lone request of one prompt length then has its mean as its p99."""
        if prompt_p99_over_mean is None:
            return self.ttft_ms * p99_over_mean
        return self.own_prefill_ms * prompt_p99_over_mean + (self.ttft_ms - self.own_prefill_ms) * p99_over_mean

    @property
    def ttft_median_ms(self) -> float:
        """Median TTFT. Under Poisson arrivals, the mean with the M/D/1 wait replaced by its median; the other
        parts are symmetric or fixed (the running step's residual is uniform, a slot wait the same for every
        queued request). A closed loop's arrivals are the departures of its own clients, which stagger rather
        than bunch: the model has no distribution for that wait, and gives the mean."""
        if not self.poisson_arrivals:
            return self.ttft_ms
        median_wait_ms = md1_median_wait_ms(self.prefill.total_ms, self.prefill_utilisation)
        return self.ttft_ms - self.prefill_queue_ms + median_wait_ms


def mean_context(workload: InferenceWorkload) -> float:
    return workload.input_len + workload.output_len / 2


CONTINUOUS_SCENARIOS = ("latency_bound", "max_throughput", "concurrency", "request_rate")


def token_budget_cap(
    ctx: InferenceContext, input_len: float, output_len: float, beam_width: int = 1, budget: int | None = None
) -> int | None:
    """Largest running batch the engine's per-iteration token budget (`budget`, else its default) sustains (None:
    the engine schedules no such budget: SGLang, llama.cpp, HF).

    In the continuous-batching steady state each step carries every running sequence's decode tokens (beams x the
    tokens a speculative step verifies) and the prompts of the requests arriving meanwhile, batch x input x
    tokens advanced per step / output; pipeline stages each take one micro-batch of batch / stages."""
    default = ctx.default_token_budget
    if default is None:
        return None
    budget = budget or default
    t = ctx.techniques
    verified = t.spec_draft_tokens + 1 if t.speculative else 1
    per_sequence = beam_width * verified + input_len * t.uncached_share * t.tokens_per_step / max(output_len, 1.0)
    return max(int(budget * ctx.pipeline_parallel / per_sequence), 1)


def first_prefill_ms(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, one: StepParts) -> float:
    """A request's own prompt as its first token waits for it: `one` (prefill_parts of one prompt) without PP; with
    it, the stages in turn (prefill_latency_ms), where `one` stays the time a stage is busy with it."""
    return one.total_ms if ctx.pipeline_parallel == 1 else prefill_latency_ms(ctx, eff, 1, input_len)


def operating_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    scenario: str,
    batch: float,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
    prefill_one: StepParts | None = None,
    first_ms: float | None = None,
    decode_one: StepParts | None = None,
    keep_decode_only: bool = False,
) -> OperatingPoint:
    """TTFT, TPOT and instance output tok/s at `batch` requests under the scenario's batching mode.

    `prefill_one` (one request's prefill, the M/D/1 queue's service) and `first_ms` (its latency through the
    pipeline stages) do not depend on the batch: searches pass them in once. `decode_one`, one request's decode
    step (a batch-1 point's decode_only), spares single_stream timing it again. `keep_decode_only`: the point keeps
    its decode-only step at any batch (a batch job's drain starts from it: batch_job.full_drain_s).

    Above one prompt a step, where an MoE step pays its prefill host time once, the prompts share a pass (bulk
    service, queueing.batched_pass_ms): the M/D/1 queue keeps the utilisation of the batch whose step carries one
    prompt (one_prompt_batch), and the TTFT adds the other prompts' work in the shared pass; the step (TPOT) stays
    as it is."""
    prefill_one = prefill_one or prefill_parts(ctx, eff, 1, input_len)
    first_ms = first_ms if first_ms is not None else first_prefill_ms(ctx, eff, input_len, prefill_one)
    if scenario == "fixed_batch":  # static batching: the whole batch prefills, then decodes together
        prefill = prefill_parts(ctx, eff, batch, input_len)
        step = decode_parts(ctx, eff, batch * beam_width, input_len + output_len / 2)
        first_token_ms = prefill.total_ms
        if ctx.pipeline_parallel > 1:  # the batch's micro-batches fill the pipeline before its last prompt is done
            first_token_ms = prefill_latency_ms(ctx, eff, batch, input_len)
        total_ms = request_life_ms(first_token_ms, step.total_ms, output_len)
        tokens_per_s = batch * output_len / total_ms * 1e3
        return OperatingPoint(
            batch,
            first_token_ms,
            step.total_ms,
            tokens_per_s,
            step,
            prefill,
            first_prefill_ms=first_ms,
            ttft_prompts=batch,
        )
    if scenario == "single_stream":
        step = decode_one or decode_parts(ctx, eff, beam_width, input_len + output_len / 2)
        total_ms = request_life_ms(first_ms, step.total_ms, output_len)
        tokens_per_s = output_len / total_ms * 1e3
        return OperatingPoint(1, first_ms, step.total_ms, tokens_per_s, step, prefill_one, first_prefill_ms=first_ms)
    closed = scenario == "concurrency"  # a closed loop's request does not wait for itself: batch - 1 others
    step = mixed_step_parts(ctx, eff, batch, input_len, output_len, beam_width, others_only=closed)
    step_ms, service_ms = step.total_ms, prefill_one.total_ms
    # max(a, b) and min(a, b) on this path (an open loop's search times ~280 points a ranking) are written out as
    # `b if a < b else a` and `b if a > b else a`: what the builtins return, the first argument on a tie and a NaN
    # where they do, without a call each (~60 ns against ~10 ns; found by speed23)
    others_at = batch - 1.0
    others = (0.0 if others_at < 0.0 else others_at) if closed else batch
    decode_only = step if closed and batch <= 1 else _decode_only(ctx, eff, batch, input_len, output_len, beam_width)
    prompts = prompts_per_step(ctx, batch, output_len, closed)
    batched_ms = 0.0
    if prompts > 1.0 and pass_rates(ctx, eff).moe_prefill_ms > 0:  # MoE prompts share a pass: bulk service
        at = one_prompt_batch(ctx, output_len, closed)
        at_step = mixed_step_parts(ctx, eff, at, input_len, output_len, beam_width, others_only=closed)
        at_decode = _decode_only(ctx, eff, at, input_len, output_len, beam_width)
        share = prefill_utilisation(at_step.total_ms, at_decode.total_ms, at, service_ms, first_ms, output_len)
        batched_ms = batched_pass_ms(step_ms - decode_only.total_ms, _moe_host_ms(step), prompts)
    else:
        # prefill_utilisation(step_ms, decode_only.total_ms, batch, service_ms, first_ms, output_len) written out, the
        # same operations on the same floats (a search times a few hundred points a ranking; guard:
        # test_operating_point_written_out, whose reference calls it)
        decode_only_ms = decode_only.total_ms
        steps_after = output_len - 1
        life_ms = first_ms + (0 if steps_after < 0 else steps_after) * decode_only_ms
        alone = batch * service_ms / (1e-9 if life_ms < 1e-9 else life_ms)
        prefill_ms = step_ms - decode_only_ms
        of_step = (0.0 if prefill_ms < 0.0 else prefill_ms) / (1e-9 if step_ms < 1e-9 else step_ms)
        share = alone if alone < of_step else of_step
    queue_ms = md1_wait_ms(service_ms, share)
    wait_ms = running_steps_wait_ms(step_ms * step.tokens_per_step, others, eff, ctx.engine)  # a step's wall time
    ttft = loaded_ttft_ms(first_ms, queue_ms, wait_ms, batched_ms)
    if closed:  # closed loop (an open loop too, timed as one): Little's law over one request's life
        tokens_per_s = batch * output_len / request_life_ms(ttft, step_ms, output_len) * 1e3
        # ...but never more than the running sequences' one token a step: with one output token a request's life is
        # its TTFT, which can be shorter than the step carrying the others' prompts (sglang, 107 prompts of 512
        # tokens a step on an A100: 52 tok/s/GPU, above the 47 its FLOPs allow; found by bounds28's physics grid)
        carried = batch / step_ms * 1e3
        tokens_per_s = carried if carried < tokens_per_s else tokens_per_s  # min(tokens_per_s, carried)
    else:
        tokens_per_s = batch / step_ms * 1e3
    # by position, OperatingPoint's field order (its keywords took ~0.2 us of a point's ~7): the slot queue, waiting and
    # backlog 0; the M/D/1 queue and its rho; MLPerf's Poisson queries under latency limits; the first prefill, the
    # running steps' wait, the prompts the first token waits for (its own), the batched pass and its prompts; the
    # decodes alone kept where a lone request reuses them (batch 1) or a batch job's drain does (keep_decode_only)
    return OperatingPoint(
        batch,
        ttft,
        step_ms,
        tokens_per_s,
        step,
        prefill_one,
        0.0,
        0.0,
        0.0,
        queue_ms,
        MAX_UTILISATION if share > MAX_UTILISATION else share,
        scenario == "latency_bound",
        first_ms,
        wait_ms,
        1.0,
        batched_ms,
        max(prompts, 1.0) if batched_ms else 1.0,
        decode_only if batch == 1 or keep_decode_only else None,
    )


def _decode_only(
    ctx: InferenceContext, eff: InferenceEfficiency, batch: float, input_len: float, output_len: float, beam_width: int
) -> StepParts:
    """The step's decodes without its prefills, timed as the step (mixed_step_parts). A closed loop at batch <= 1
    needs no second pass: its step prefills the prompts of max(batch - 1, 0) = 0 others, so mixed_step_parts passes
    decode_parts exactly these arguments with 0.0 for every prefill one (0.0 x anything finite), the defaults here;
    operating_point then keeps the step itself (an open loop's trickle probes, ~17 % of its points, each save one)."""
    seqs = (1.0 if batch < 1.0 else batch) * beam_width  # max(batch, 1.0) written out
    if ctx.techniques.speculative:
        return decode_parts(ctx, eff, seqs, input_len + output_len / 2)
    return forward_parts(ctx, eff, seqs, input_len + output_len / 2)  # decode_parts' pass alone, as mixed_step_parts


def _moe_host_ms(step: StepParts) -> float:
    """The eager MoE prefill host time in a step's total_ms (which counts each pipeline stage's pass and divides by
    the tokens a step yields)."""
    detail = step.breakdown
    return detail.moe_host_ms * step.pipeline_stages / step.tokens_per_step if detail is not None else 0.0
