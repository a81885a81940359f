"""One instance of each pool: a prefill-only instance and a decode-only instance, timed by the inference
estimator's own step functions (prefill_parts, decode_parts) with no prefill tokens in a decode step.

At limits_at band_high each instance meets its limit at the slow end of its latency band: the band of aggregated
serving in the same regime (results.band_regime, limits.limit_multiples: the ranking's own lookup), borrowed because no
publication measures disaggregated pools. The decode search meets the TPOT target ÷ the TPOT band's high ratio, the
prefill search (pairing.prefill_budget_ms) its TTFT budget ÷ the TTFT band's.

Pure arithmetic over an InferenceContext; pricing and pairing live in plan.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, LINK_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.machines import Machine, machine_gpu
from app.scoring.inference.bands.latency_bands import BandRegime
from app.scoring.inference.bands.limits import ON_ESTIMATE, limit_multiples
from app.scoring.inference.batching.operating_points import mean_context
from app.scoring.inference.batching.queueing import MAX_UTILISATION, md1_wait_ms
from app.scoring.inference.batching.running_batch import engine_batch_cap
from app.scoring.inference.estimates.estimate import expert_parallel_degree, tries_dp_attention
from app.scoring.inference.estimates.results import band_regime
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.memory import (
    GB,
    kv_bytes_per_sequence,
    kv_replicated_under_tp,
    max_sequences,
    request_kv_tokens,
    usable_gb,
    weight_bytes_per_gpu,
)
from app.scoring.inference.step.prefill import prefill_latency_ms, prefill_parts
from app.scoring.inference.step.steps import decode_parts
from app.scoring.inference.step.techniques import techniques_for
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload

# A prefill instance batches whole prompts up to its engine's step budget on its GPU (InferenceContext.
# prefill_pass_tokens: SGLang's chunked_prefill_size, vLLM V1's and TensorRT-LLM's max_num_batched_tokens, or the
# workload's); a longer prompt runs alone. An engine with no step budget (llama.cpp, HF) takes vLLM V1's 8,192 on a
# large GPU, the budget of the engines that serve disaggregated.
PREFILL_TOKEN_BUDGET = 8192


@dataclass(frozen=True, slots=True)
class PrefillPass:
    prompts: int  # prompts prefilled together in one pass
    pass_ms: float  # the instance's time on the pass (its M/D/1 service time)
    latency_ms: float | None = None  # to the last prompt's first token, where PP makes it longer than pass_ms

    @property
    def first_token_ms(self) -> float:
        return self.pass_ms if self.latency_ms is None else self.latency_ms


@dataclass(frozen=True, slots=True)
class PrefillInstance:
    """A prefill-only instance of `tensor_parallel` GPUs: its passes at each prompt batch that fits."""

    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    passes: tuple[PrefillPass, ...]
    link_gbs: float  # one-direction GB/s from a GPU to one peer in the node (KV to a decode instance on the same node)
    nvlink: bool
    attention_dp: int = 1  # > 1: data-parallel attention over the TP group (each GPU prefills its own prompts)
    band_regime: BandRegime | None = None  # what its latency bands are looked up by (None: on the estimate only)


@dataclass(frozen=True, slots=True)
class PrefillLoad:
    """A prefill instance at the utilisation that keeps TTFT inside its budget."""

    prompts: int
    pass_ms: float
    utilisation: float  # rho: share of time the instance is prefilling
    queue_ms: float  # M/D/1 wait before the pass
    capacity_rps: float  # requests/s one instance serves at that utilisation
    first_token_ms: float  # the pass's last prompt done (pass_ms, or more through pipeline stages)
    budget_ms: float = 0.0  # what the first token and the queue may take (pairing.prefill_budget_ms)
    own_scale: float = 1.0  # the first token's weight against the budget (prefill_load's own_scale)


@dataclass(frozen=True, slots=True)
class DecodeInstance:
    """A decode-only instance: the largest batch whose pure decode step meets the TPOT target."""

    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    batch: int
    max_batch: int  # sequences whose KV fits at the mean context
    step_ms: float
    tpot_target_ms: float
    capacity_rps: float  # batch / (output_len x step)
    link_gbs: float
    nvlink: bool
    attention_dp: int = 1  # > 1: data-parallel attention (each GPU keeps its own sequences' KV cache)
    band_regime: BandRegime | None = None  # what its latency bands are looked up by (None: on the estimate only)


def slow_end_multiples(instance: PrefillInstance | DecodeInstance, workload: InferenceWorkload) -> tuple[float, float]:
    """The TTFT and TPOT multiples the instance's limits are checked at (limits.limit_multiples of its regime): 1 on
    the estimate, the band's high ratio at limits_at band_high."""
    regime = instance.band_regime
    return ON_ESTIMATE if regime is None else limit_multiples(workload, regime)


def max_utilisation(service_ms: float, budget_ms: float, latency_ms: float | None = None) -> float:
    """Largest rho with latency + M/D/1 wait <= budget: r = (budget - latency)/service = rho/(2(1-rho)) (the
    latency is the service time unless pipeline stages make a prompt's own pass longer than the instance's)."""
    r = (budget_ms - (service_ms if latency_ms is None else latency_ms)) / service_ms
    if r < 0:
        return 0.0
    return min(2 * r / (1 + 2 * r), MAX_UTILISATION)


def prefill_load(instance: PrefillInstance, budget_ms: float, own_scale: float = 1.0) -> PrefillLoad | None:
    """The prompt batch that serves the most requests/s with queue + pass inside `budget_ms` (None: none can).
    `own_scale` weighs the pass's first token against the budget: a question's prompt spread over the fitted
    p99 / mean ratio the budget was divided by (mean_ttft_budget_ms), 1 where it gives none."""
    best: PrefillLoad | None = None
    for p in instance.passes:
        rho = max_utilisation(p.pass_ms, budget_ms, p.first_token_ms * own_scale)
        if rho <= 0:
            continue
        capacity = rho * p.prompts / p.pass_ms * 1e3
        if best is None or capacity > best.capacity_rps:
            wait = md1_wait_ms(p.pass_ms, rho)
            best = PrefillLoad(p.prompts, p.pass_ms, rho, wait, capacity, p.first_token_ms, budget_ms, own_scale)
    return best


def kv_transfer_ms(model: ModelSpec, kv_dtype: str, input_len: float, gbs: float, alpha_ms: float) -> float:
    """One request's prompt KV cache from a prefill to a decode instance: alpha per layer + bytes / bandwidth
    (sliding-window layers send only the last window of the prompt, all the decode side keeps)."""
    if gbs <= 0:
        return float("inf")
    return model.layers * alpha_ms + kv_bytes_per_sequence(model, kv_dtype, input_len) / (gbs * GB) * 1e3


def attention_dp_degrees(
    gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload, tp: int, pp: int, pool: str
) -> tuple[int, ...]:
    """Data-parallel attention degrees an instance tries (1: attention split by heads).

    `dp` asks for it in both pools; `auto` tries it in the decode pool only, where TP would copy the KV cache
    onto every GPU (estimate.solve_inference's rule): that is where it buys room for more sequences, while a
    prefill instance holds a few prompts and would run each prompt's attention on one GPU. It needs a full copy
    of the attention weights on every GPU; where they do not fit, `dp` leaves no instance and `auto` keeps heads.
    """
    auto = workload.attention_parallel == "auto"
    if (
        tp <= 1
        or workload.attention_parallel == "tp"
        or not tries_dp_attention(workload)
        or (auto and not (pool == "decode" and kv_replicated_under_tp(model, tp)))
    ):
        return (1,)
    fits = weight_bytes_per_gpu(model, workload.weight_dtype, tp, pp, tp) <= usable_gb(gpu, tp, workload.engine) * GB
    if auto:
        return (1, tp) if fits else (1,)
    return (tp,) if fits else ()


def _context(
    gpu: GpuSpec, machine: Machine, model: ModelSpec, workload: InferenceWorkload, tp: int, pp: int, dp: int = 1
) -> InferenceContext:
    wdt, kvdt = workload.weight_dtype, workload.kv_dtype_effective
    ep = expert_parallel_degree(model, workload, tp)
    ctx = build_context(
        machine_gpu(gpu, machine), model, wdt, kvdt, workload.engine, tp, pp, attention_dp=dp, expert_parallel=ep
    )
    techniques = techniques_for(workload)
    return replace(ctx, techniques=techniques) if techniques.active else ctx


def layout_regime(
    gpu: GpuSpec, machine: Machine, model: ModelSpec, workload: InferenceWorkload, tp: int, pp: int = 1
) -> BandRegime:
    """The band regime of `tp` x `pp` GPUs of the machine: the lookup each pool's instance makes (results.band_regime
    of its context), for the aggregated layout's throughput band (close_call.py)."""
    return band_regime(gpu, model, workload, _context(gpu, machine, model, workload, tp, pp), pp)


def prefill_instance(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    tp: int,
    pp: int = 1,
    eff: InferenceEfficiency = DEFAULT_EFFICIENCY,
) -> PrefillInstance | None:
    """Passes of 1, 2, 4 … prompts up to the token budget whose KV fits (None: not even one prompt fits)."""
    wired = machine_gpu(gpu, machine)
    degrees = attention_dp_degrees(wired, model, workload, tp, pp, "prefill")  # one degree in the prefill pool
    if not degrees:
        return None
    dp = degrees[0]
    wdt, kvdt = workload.weight_dtype, workload.kv_dtype_effective
    fits = max_sequences(wired, model, wdt, kvdt, workload.input_len, tp, pp, dp, workload.engine)
    if fits < 1:
        return None
    ctx = _context(gpu, machine, model, workload, tp, pp, dp)
    budget = ctx.prefill_pass_tokens(workload.max_num_batched_tokens) or PREFILL_TOKEN_BUDGET
    most = max(1, min(fits, budget // workload.input_len))
    passes, n = [], 1
    while n <= most:
        pass_ms = prefill_parts(ctx, eff, n, workload.input_len).total_ms
        latency = prefill_latency_ms(ctx, eff, n, workload.input_len) if pp > 1 else None
        passes.append(PrefillPass(n, pass_ms, latency))
        n *= 2
    link = ctx.peer_link_gbs * LINK_EFFICIENCY  # each GPU hands its KV to one peer
    regime = band_regime(gpu, model, workload, ctx, pp)
    return PrefillInstance(gpu.id, tp * pp, tp, pp, tuple(passes), link, ctx.nvlink, dp, regime)


def decode_instance(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    tp: int,
    pp: int = 1,
    eff: InferenceEfficiency = DEFAULT_EFFICIENCY,
) -> DecodeInstance | None:
    """Largest batch (memory, engine cap) whose decode step, with no prefill in it, stays under the
    same TPOT target as aggregated serving: slo_tpot_utilisation x the p99 limit, ÷ the TPOT band's high ratio at
    limits_at band_high (None: not even one). Where
    data-parallel attention is tried too, the layout that serves more requests/s is kept (heads on ties)."""
    tried = [
        _decode_at(gpu, machine, model, workload, tp, pp, eff, dp)
        for dp in attention_dp_degrees(machine_gpu(gpu, machine), model, workload, tp, pp, "decode")
    ]
    found = [d for d in tried if d is not None]
    return max(found, key=lambda d: d.capacity_rps) if found else None


def _decode_at(
    gpu: GpuSpec,
    machine: Machine,
    model: ModelSpec,
    workload: InferenceWorkload,
    tp: int,
    pp: int,
    eff: InferenceEfficiency,
    dp: int,
) -> DecodeInstance | None:
    wdt, kvdt = workload.weight_dtype, workload.kv_dtype_effective
    context = mean_context(workload)
    held = request_kv_tokens(workload.input_len, workload.output_len, workload.beam_width)
    fits = max_sequences(machine_gpu(gpu, machine), model, wdt, kvdt, held, tp, pp, dp, workload.engine)
    ctx = _context(gpu, machine, model, workload, tp, pp, dp)
    cap = min(fits, engine_batch_cap(workload, ctx))
    if cap < 1:
        return None
    regime = band_regime(gpu, model, workload, ctx, pp)
    # at the band's slow end the step times the TPOT band's high ratio meets the target (1 on the estimate)
    target = eff.slo_tpot_utilisation * workload.tpot_limit_ms / limit_multiples(workload, regime)[1]

    def step(batch: int) -> float:
        return decode_parts(ctx, eff, batch * workload.beam_width, context).total_ms

    if step(1) > target:
        return None
    low, high = 1, cap
    if step(cap) <= target:
        low = cap
    while high - low > 1:  # the step never shortens as the batch grows
        mid = (low + high) // 2
        low, high = (mid, high) if step(mid) <= target else (low, mid)
    step_ms = step(low)
    capacity = low / (workload.output_len * step_ms) * 1e3
    link = ctx.peer_link_gbs * LINK_EFFICIENCY  # each GPU hands its KV to one peer
    return DecodeInstance(gpu.id, tp * pp, tp, pp, low, fits, step_ms, target, capacity, link, ctx.nvlink, dp, regime)
