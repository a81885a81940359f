"""Training estimate for one GPU type and count: layout that fits, memory, tokens/s, MFU, step time.

Method: shared/research/training_estimators.md §6 (FLOPs per token, ZeRO/TP/PP memory,
calibrated MFU with regime factors). Pure: no I/O; constants in app.scoring.efficiency.training.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.scoring.efficiency import training as eff
from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, Term
from app.scoring.moe_share import moe_layer_factor, moe_layer_share
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.flops import model_flops_per_token
from app.scoring.training.frameworks import DATA_PARALLEL_ONLY, FRAMEWORK_CLASS
from app.scoring.training.lora_adapters import lora_adapter_params, lora_note
from app.scoring.training.memory import (
    Layout,
    logits_bytes_per_element,
    memory_breakdown_gb,
    memory_needed_gb,
    runtime_reserve_gb,
    usable_gb,
)
from app.scoring.training.mfu import fp4_modelled_note, peak_tflops
from app.scoring.training.optimizer import OFFLOAD_NOTE, OPTIMIZER_NOTES, state_recipe
from app.scoring.training.step_time import StepTime, workload_step_time
from app.scoring.training.terms import training_terms
from app.scoring.workload import TrainingWorkload

RECOMPUTE_ORDER = ("none", "selective", "full")


@dataclass(frozen=True, slots=True)
class TrainingEstimate:
    gpu_id: str
    gpu_count: int
    layout: Layout | None
    layout_text: str
    fits: bool
    feasible: bool
    reason: str
    memory_per_gpu_gb: float
    memory_breakdown_gb: dict[str, float]
    tokens_per_s_per_gpu: float
    mfu: float
    step_time_s: float
    flops_per_token: float
    band: Band
    terms: list[Term] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)


def _layout_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency
) -> tuple[bool, dict[str, float]]:
    breakdown = memory_breakdown_gb(
        model, w.method, w.seq_len, layout, gpu_count, w.lora_rank, e, w.framework, state_recipe(w)
    )
    return memory_needed_gb(breakdown) <= usable_gb(gpu, gpu_count), breakdown


def layout_families(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, framework: str = "auto", method: str = "lora"
) -> list[tuple[int, int]]:
    """(TP, PP) pairs: TP inside the scale-up domain, PP across nodes, both dividing the count; only (1, 1) for a
    stack that splits by data parallelism alone (DATA_PARALLEL_ONLY) and for QLoRA (data_parallel_only_method)."""
    if framework in DATA_PARALLEL_ONLY or data_parallel_only_method(method):
        return [(1, 1)]
    domain = scaleup_domain(gpu)
    tps = [t for t in (1, 2, 4, 8) if t <= domain and gpu_count % t == 0 and model.num_attention_heads % t == 0]
    pairs = []
    for tp in tps:
        pp = 1
        while tp * pp <= gpu_count and pp <= model.layers:
            if gpu_count % (tp * pp) == 0:
                pairs.append((tp, pp))
            pp *= 2
    return pairs


def data_parallel_only_method(method: str) -> bool:
    """QLoRA runs data parallel or FSDP only: bitsandbytes/PEFT, Unsloth and torchtune have no tensor or pipeline
    parallelism over NF4 weights; FSDP shards them since bitsandbytes 0.43 (Answer.AI FSDP+QLoRA, 2024-03)."""
    return method == "qlora"


QLORA_NOTE = (
    "QLoRA: NF4 base weights dequantised to BF16 before each matmul; data parallel or FSDP only (bitsandbytes/PEFT, "
    "Unsloth and torchtune have no tensor or pipeline parallelism over NF4 weights), FSDP sharding the NF4 base "
    "(bitsandbytes 0.43, Answer.AI FSDP+QLoRA, 2024-03)"
)


def moe_note(model: ModelSpec, e: eff.TrainingEfficiency) -> str:
    """What a mixture of experts' estimate rests on (the matmul efficiency term shows the factor)."""
    layers = "on every layer"
    if model.moe_layers < model.layers:
        overall = moe_layer_factor(e.moe_factor, moe_layer_share(model))
        layers = (
            f"on its {model.moe_layers} MoE layers of {model.layers} and at 1 on the {model.dense_ffn_layers} dense "
            f"ones: {overall:.3g} over the model, as inference counts it"
        )
    return (
        f"MoE: FLOPs of the active parameters at {e.moe_factor:.3g} of a dense model's matmul efficiency (research "
        f"default from GPT-OSS-120B and DeepSeek-V3 BF16 rows) {layers}; the factor stands for token routing, grouped "
        "expert GEMMs and the expert-parallel all-to-all, none timed on its own; memory holds every expert, split with "
        "the other weights by ZeRO/FSDP, TP and PP (no expert parallelism)"
    )


def scaleup_domain(gpu: GpuSpec) -> int:
    """GPUs one TP or SP group may span at scale-up bandwidth: the scale-up domain, or an 8-GPU server for PCIe
    cards."""
    return gpu.scaleup_domain_gpus if gpu.scaleup_domain_gpus > 1 else eff.PCIE_SERVER_GPUS


def sequence_degrees(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, framework: str = "auto"
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """DeepSpeed-Ulysses degrees above 1 a data-parallel-only stack may use, as (inside the scale-up domain,
    beyond it): powers of two dividing the GPU count and the attention heads (Ulysses splits the heads over the
    SP ranks). None for other stacks: Megatron-class ones split long sequences by TP/PP/CP, not modelled here."""
    if framework not in DATA_PARALLEL_ONLY:
        return (), ()
    domain, degrees = scaleup_domain(gpu), []
    sp = 2
    while sp <= gpu_count:
        if gpu_count % sp == 0 and model.num_attention_heads % sp == 0:
            degrees.append(sp)
        sp *= 2
    return tuple(d for d in degrees if d <= domain), tuple(d for d in degrees if d > domain)


def zero_stages(tp: int, pp: int, gpu_count: int) -> tuple[int, ...]:
    if gpu_count // (tp * pp) <= 1:
        return (0,)
    if pp > 1:
        return (1,)
    return (1, 3) if tp > 1 else (3,)


def _frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1) -> bool:
    """The least memory this (TP, PP, SP, micro-batch) can use: most sharding and full recompute."""
    frugal = Layout(max(zero_stages(tp, pp, gpu_count)), tp, pp, "full", micro, sequence_parallel=sp)
    return _layout_fits(gpu, gpu_count, model, w, frugal, e)[0]


def first_fit(gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1) -> Layout | None:
    """The cheapest layout of this split that fits: recompute none → selective → full, less sharding first."""
    if not _frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp, micro):
        return None
    for recompute in RECOMPUTE_ORDER:
        for stage in zero_stages(tp, pp, gpu_count):
            layout = Layout(stage, tp, pp, recompute, micro, sequence_parallel=sp)
            if _layout_fits(gpu, gpu_count, model, w, layout, e)[0]:
                return layout
    return None


def larger_micro_batches(w: TrainingWorkload, gpu_count: int, tp: int, pp: int, sp: int = 1) -> tuple[int, ...]:
    """Micro-batches above 1 sequence worth trying for a split: powers of two up to one replica's share of the global
    batch, where fewer micro-batches save time: ZeRO-3/FSDP gathers the weights again in every micro-batch and QLoRA
    dequantises them in every one. A pipeline wants many micro-batches (its bubble), and a split that shards no
    weights gains nothing (compute is priced per token, not per micro-batch), so neither tries any."""
    stages = zero_stages(tp, pp, gpu_count)
    if pp > 1 or (w.method != "qlora" and 3 not in stages):
        return ()
    local = math.ceil(w.global_batch_seqs / max(1, gpu_count // (tp * pp) // sp))
    return tuple(2**k for k in range(1, local.bit_length()) if 2**k <= local)


def with_micro_batches(gpu, gpu_count, model, w, tp, pp, e, first: Layout, sp: int = 1) -> list[Layout]:
    """A split's first fit, then its first fit at each larger micro-batch (larger_micro_batches), ascending, until one
    does not fit: what a user raising the micro-batch would try."""
    layouts = [first]
    for micro in larger_micro_batches(w, gpu_count, tp, pp, sp):
        bigger = first_fit(gpu, gpu_count, model, w, tp, pp, e, sp, micro)
        if bigger is None:
            break
        layouts.append(bigger)
    return layouts


def _timing(gpu, gpu_count, model, w, layout, e, span=None, capacity=1.0) -> tuple[StepTime, float, str, str]:
    peak, pclass, note = peak_tflops(gpu, w.precision)
    adapters = lora_adapter_params(model, w.lora_rank)
    st = workload_step_time(e, gpu, gpu_count, model, w, layout, peak or 0.0, pclass, adapters, span, capacity)
    return st, peak or 0.0, pclass, note


def choose_layout(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
) -> Layout | None:
    """Fastest fitting layout: per TP degree, the first fit without PP and the smallest PP that fits. A
    data-parallel-only stack may also split the sequence: the first fit of each SP degree inside the scale-up domain
    (ascending), or beyond it if nothing else fits. Ties keep the earlier layout."""
    best, best_s = None, float("inf")
    done: set[tuple[int, bool]] = set()
    candidates: list[Layout] = []
    for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method):
        key = (tp, pp > 1)
        if key in done:
            continue
        layout = first_fit(gpu, gpu_count, model, w, tp, pp, e)
        if layout is None:
            continue
        done.add(key)
        candidates.extend(with_micro_batches(gpu, gpu_count, model, w, tp, pp, e, layout))
    # Ulysses inside the scale-up domain beside the other splits (a long sequence may run faster split than
    # recomputed); beyond it only for a sequence that fits no other way (its all-to-all then crosses the fabric).
    inside, beyond = sequence_degrees(gpu, gpu_count, model, w.framework)
    for degrees in (inside, beyond):
        if degrees is beyond and candidates:
            break
        for sp in degrees:
            layout = first_fit(gpu, gpu_count, model, w, 1, 1, e, sp)
            if layout is not None:
                candidates.extend(with_micro_batches(gpu, gpu_count, model, w, 1, 1, e, layout, sp))
    for layout in candidates:
        seconds = _timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
        if seconds < best_s:
            best, best_s = layout, seconds
    return best


def fits_at(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
) -> bool:
    """Some layout of the workload's stack fits with its most frugal settings (for a data-parallel-only stack,
    at the largest SP degree)."""
    if any(
        _frugal_fits(gpu, gpu_count, model, w, tp, pp, e)
        for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method)
    ):
        return True
    inside, beyond = sequence_degrees(gpu, gpu_count, model, w.framework)
    degrees = inside + beyond  # memory falls as SP grows: the largest is the most frugal
    return bool(degrees) and _frugal_fits(gpu, gpu_count, model, w, 1, 1, e, max(degrees))


def min_gpus_to_fit(gpu: GpuSpec, model: ModelSpec, workload: TrainingWorkload, limit: int = 65_536) -> int | None:
    """Fewest GPUs (1, 2, 4, then powers of two) on which some layout fits; None if none up to limit."""
    n = 1
    while n <= limit:
        if fits_at(gpu, n, model, workload):
            return n
        n *= 2
    return None


def _band(gpu: GpuSpec, precision_class: str, w: TrainingWorkload, value: float) -> tuple[Band, str]:
    """p10-p90 of leave-one-source-out residuals of tokens/s in the regime (framework, vendor, the precision the
    GPU runs, method), and the evidence it rests on."""
    framework = "megatron-lm" if w.framework == "megatron" else w.framework
    precision = "bf16" if precision_class == "16" else precision_class
    low, high, evidence = band_ratio("tokens_s_per_gpu", framework, gpu.vendor, precision, w.method)
    return Band.around(value, low, high), evidence


def slow_end_hours_ratio(gpu: GpuSpec, w: TrainingWorkload) -> float:
    """A run's hours at the slow end of its tokens/s band per hour on the estimate (tok/s ÷ band low): the band is the
    regime's (_band), the same at every GPU count, so a count search can check a deadline there before timing."""
    return 1 / _band(gpu, peak_tflops(gpu, w.precision)[1], w, 1.0)[0].low


def _reason_no_fit(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> tuple[str, dict[str, float]]:
    families = layout_families(gpu, gpu_count, model, w.framework, w.method)
    tp = max(t for t, _ in families)
    pp = max(p for t, p in families if t == tp)
    stage = 3 if gpu_count > 1 and pp == 1 else (1 if gpu_count > 1 else 0)
    inside, beyond = sequence_degrees(gpu, gpu_count, model, w.framework)
    frugal = Layout(stage, tp, pp, "full", 1, sequence_parallel=max(inside + beyond, default=1))
    breakdown = memory_breakdown_gb(
        model, w.method, w.seq_len, frugal, gpu_count, w.lora_rank, e, w.framework, state_recipe(w)
    )
    total_states = breakdown["model_states"] * gpu_count if stage >= 1 or tp * pp > 1 else breakdown["model_states"]
    need = memory_needed_gb(breakdown)
    text = (
        f"needs {total_states:,.0f} GB of model states for {w.method.replace('_', ' ')}; "
        f"{gpu_count}×{gpu.id} with {frugal.describe(gpu_count)} needs {need:,.0f} GB per GPU "
        f"but gives {usable_gb(gpu, gpu_count):,.0f} GB usable of {gpu.memory_gb:,.0f} GB each"
    )
    frugal_settings = settings_that_fit(gpu, gpu_count, model, w, e)
    if frugal_settings:
        text += f"; it fits with {frugal_settings}"
    return text, breakdown


# Settings that need less memory for the same run, least invasive first: 8-bit Adam moments (6 B a trained param
# where mixed-precision AdamW holds 16), a fused or chunked loss (half the logits' peak; torchtune's, in the
# `pytorch` class), both, then optimizer states and gradients in host memory (ZeRO-Offload; slower steps).
FRUGAL_SETTINGS: tuple[tuple[dict[str, str], str], ...] = (
    ({"optimizer": "adamw_8bit"}, "optimizer adamw_8bit"),
    ({"framework": "pytorch"}, "a fused or chunked loss (framework pytorch: torchtune)"),
    (
        {"optimizer": "adamw_8bit", "framework": "pytorch"},
        "optimizer adamw_8bit and a fused or chunked loss (framework pytorch: torchtune)",
    ),
    ({"offload": "cpu"}, "optimizer states in host memory (offload cpu)"),
)


def settings_that_fit(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> str:
    """The first of FRUGAL_SETTINGS, each a change the workload has not made, that makes the run fit on these GPUs
    ('' when none does)."""
    for update, words in FRUGAL_SETTINGS:
        if all(getattr(w, name) == value for name, value in update.items()):
            continue  # already so: no advice
        if any(getattr(w, name) != default for name, default in _DEFAULTS.items() if name in update):
            continue  # the user chose another setting there: leave their stack alone
        if fits_at(gpu, gpu_count, model, w.model_copy(update=update), e):
            return words
    return ""


_DEFAULTS = {"optimizer": "adamw", "framework": "auto", "offload": "none"}


def loss_memory_note(framework: str) -> str:
    """What the logits' memory assumes of the stack's loss (memory.logits_bytes_per_element)."""
    per_element = logits_bytes_per_element(framework)
    if framework in eff.FUSED_LOSS_FRAMEWORKS:
        return f"fused or chunked loss: logits peak at {per_element:g} B per token and vocabulary entry"
    return (
        f"unfused loss (HF Trainer, torchtitan, plain PyTorch): logits peak at {per_element:g} B per token and "
        f"vocabulary entry in its backward pass; a fused or chunked loss (Liger, torchtune) needs about half"
    )


def _assumptions(gpu: GpuSpec, model: ModelSpec, w: TrainingWorkload, note: str) -> list[str]:
    out = ["flash attention; bf16 activations; " + OPTIMIZER_NOTES[w.optimizer]]
    if state_recipe(w).on_cpu:
        out.append(OFFLOAD_NOTE)
    if note:
        out.append(note.strip("; "))
    if FRAMEWORK_CLASS.get(w.framework) is None:
        out.append("framework auto: a tuned FSDP/Megatron-class stack, 0.9 of Megatron efficiency")
    if w.method in ("lora", "qlora"):
        out.append(lora_note(model, w.lora_rank))
    if data_parallel_only_method(w.method):
        out.append(QLORA_NOTE)
    if model.is_moe:
        out.append(moe_note(model, eff.DEFAULT_TRAINING_EFFICIENCY))
    out.append(loss_memory_note(w.framework))
    if w.precision == "fp4" and not note:
        out.append(fp4_modelled_note(eff.DEFAULT_TRAINING_EFFICIENCY))
    return out


def estimate_training(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: TrainingWorkload,
    layout: Layout | None = None,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
) -> TrainingEstimate:
    """Estimate one configuration; `layout` pins the split, else the fastest fitting one is chosen.

    `attention_span` and `capacity_factor` describe how the run executes (see step_time.compute_seconds).
    """
    w = workload
    flops = model_flops_per_token(model, w.method, w.seq_len)
    peak, pclass, note = peak_tflops(gpu, w.precision)
    chosen = layout or choose_layout(gpu, gpu_count, model, w, e, attention_span, capacity_factor)
    if peak is None or chosen is None:
        reason = f"{gpu.id} has no published compute peak" if peak is None else ""
        breakdown: dict[str, float] = {}
        if chosen is None:
            reason, breakdown = _reason_no_fit(gpu, gpu_count, model, w, e)
        needed_gb = memory_needed_gb(breakdown) + runtime_reserve_gb(gpu_count) if breakdown else 0.0
        assumptions = _assumptions(gpu, model, w, note)
        return unsized_estimate(gpu.id, gpu_count, reason, flops, needed_gb, breakdown, assumptions)
    fits, breakdown = _layout_fits(gpu, gpu_count, model, w, chosen, e)
    st = _timing(gpu, gpu_count, model, w, chosen, e, attention_span, capacity_factor)[0]
    step_s = st.total_s
    tokens_s = w.global_batch_seqs * w.seq_len / step_s / gpu_count
    mfu = min(1.0, tokens_s * flops / (peak * 1e12))
    reason = (
        ""
        if fits
        else (
            f"{chosen.describe(gpu_count)} needs {memory_needed_gb(breakdown):,.0f} GB per GPU; "
            f"{gpu.id} gives {usable_gb(gpu, gpu_count):,.0f} GB usable"
        )
    )
    band, evidence = _band(gpu, pclass, w, tokens_s)
    return TrainingEstimate(
        gpu.id,
        gpu_count,
        chosen,
        chosen.describe(gpu_count),
        fits,
        fits,
        reason,
        memory_needed_gb(breakdown) + runtime_reserve_gb(gpu_count),
        breakdown,
        tokens_s,
        mfu,
        step_s,
        flops,
        band,
        training_terms(
            gpu,
            gpu_count,
            model,
            w,
            chosen,
            st,
            peak,
            pclass,
            breakdown,
            flops,
            mfu,
            e,
            attention_span,
            capacity_factor,
        ),
        [*_assumptions(gpu, model, w, note), evidence],
    )


def unsized_estimate(
    gpu_id: str,
    gpu_count: int,
    reason: str,
    flops_per_token: float,
    memory_per_gpu_gb: float = 0.0,
    memory_breakdown_gb: dict[str, float] | None = None,
    assumptions: list[str] | None = None,
) -> TrainingEstimate:
    """An estimate with no layout sized and nothing timed (no peak, no fit, or an offer that cannot supply the count),
    with the reason and, where a layout was tried, the memory it would need."""
    return TrainingEstimate(
        gpu_id,
        gpu_count,
        None,
        "",
        False,
        False,
        reason,
        memory_per_gpu_gb,
        memory_breakdown_gb or {},
        0.0,
        0.0,
        float("inf"),
        flops_per_token,
        Band(0.0, 0.0),
        [],
        assumptions or [],
    )


def unrented_estimate(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, reason: str
) -> TrainingEstimate:
    """An estimate the offer cannot supply at all (no layout sized, nothing timed), with the reason."""
    return unsized_estimate(gpu.id, gpu_count, reason, model_flops_per_token(model, w.method, w.seq_len))


def step_seconds(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
) -> float:
    """Step time only (no terms), for ranking sweeps."""
    return _timing(gpu, gpu_count, model, w, layout, e)[0].total_s
