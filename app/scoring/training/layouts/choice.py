"""Which parallel layouts a training job may take on a GPU count, and the fastest that fits (choose_layout): (TP, PP)
families inside the scale-up domain, ZeRO stages, DeepSpeed-Ulysses degrees for a data-parallel-only stack, ring
context-parallel degrees for the stacks that run it (context_splits) and larger micro-batches, each split's recompute
levels tried cheapest first (first_fit), partial recompute at the fewest recomputed layers that fit (partial_fit).

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import replace

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import expert_degrees
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import (
    OP_LEVEL_SAC_STACKS,
    PARTIAL_RECOMPUTE_STACKS,
    Layout,
    fewest_fitting,
    memory_breakdown_gb,
    memory_needed_gb,
    partial_recompute_counts,
    usable_gb,
)
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.step.context_parallel import CONTEXT_PARALLEL_MIN_SEQ_LEN
from app.scoring.training.step.frameworks import (
    DATA_PARALLEL_ONLY,
    NO_MODEL_PARALLEL,
    RING_CONTEXT_PARALLEL,
    split_stack,
)
from app.scoring.training.step.mfu import peak_tflops
from app.scoring.training.step.step_time import StepTime, workload_step_time
from app.scoring.workload import TrainingWorkload

RECOMPUTE_ORDER = ("none", "selective", "full")

# Stacks that split a MoE's routed experts over EP ranks: Megatron-LM and NeMo (Megatron-Core
# expert_model_parallel_size), torchtitan (its expert_parallel_degree) and "auto", the tuned stack priced as one of
# them. HF Trainer, LLM Foundry's FSDP and plain PyTorch/torchtune train every expert on every rank.
EXPERT_PARALLEL_STACKS = frozenset({"megatron", "megatron-lm", "nemo", "torchtitan", "auto"})
PARTIAL_RECOMPUTE_ORDER = ("none", "selective", "partial", "full")


def recompute_levels(w: TrainingWorkload, sp: int = 1) -> tuple[str, ...]:
    """The recompute levels a layout search tries for the workload at sequence split `sp`, cheapest first: all of
    them, partial recompute only on the stacks that run it (memory.PARTIAL_RECOMPUTE_STACKS), except QLoRA on HF
    Trainer + PEFT, which checkpoints every layer whether or not memory needs it (peft's
    prepare_model_for_kbit_training defaults to use_gradient_checkpointing=True, as the QLoRA paper's qlora.py
    defaults to --gradient_checkpointing True): its backward recomputes the forward and dequantises the NF4 weights
    a third time. A sequence split auto takes as another stack runs it (frameworks.split_stack: QLoRA's
    DeepSpeed-Ulysses, HF's) recomputes as that stack does: HF's gradient checkpointing has no partial level."""
    stack = split_stack(w.framework, w.method) if sp > 1 else w.framework
    if w.framework in PARTIAL_RECOMPUTE_STACKS and stack in PARTIAL_RECOMPUTE_STACKS:
        return PARTIAL_RECOMPUTE_ORDER
    return whole_model_levels(w)


def whole_model_levels(w: TrainingWorkload) -> tuple[str, ...]:
    """recompute_levels without partial recompute: each recomputes every layer alike."""
    return ("full",) if w.method == "qlora" and w.framework in DATA_PARALLEL_ONLY else RECOMPUTE_ORDER


def layout_fits(
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
    stack with no tensor or pipeline parallelism (NO_MODEL_PARALLEL) and for QLoRA (data_parallel_only_method)."""
    if framework in NO_MODEL_PARALLEL or data_parallel_only_method(method):
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


def scaleup_domain(gpu: GpuSpec) -> int:
    """GPUs one TP or SP group may span at scale-up bandwidth: the scale-up domain, or an 8-GPU server for PCIe
    cards."""
    return gpu.scaleup_domain_gpus if gpu.scaleup_domain_gpus > 1 else eff.PCIE_SERVER_GPUS


def sequence_degrees(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, framework: str = "auto"
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """DeepSpeed-Ulysses degrees above 1 a data-parallel-only stack may use, as (inside the scale-up domain,
    beyond it): powers of two dividing the GPU count and the attention heads (Ulysses splits the heads over the
    SP ranks). None for other stacks: the Megatron-class ones and torchtitan split long sequences by ring context
    parallelism (context_degrees). Callers pass frameworks.split_stack (QLoRA under auto splits as hf)."""
    if framework not in DATA_PARALLEL_ONLY:
        return (), ()
    domain, degrees = scaleup_domain(gpu), []
    sp = 2
    while sp <= gpu_count:
        if gpu_count % sp == 0 and model.num_attention_heads % sp == 0:
            degrees.append(sp)
        sp *= 2
    return tuple(d for d in degrees if d <= domain), tuple(d for d in degrees if d > domain)


def context_degrees(gpu_count: int, tp: int, seq_len: int, framework: str) -> tuple[int, ...]:
    """Ring context-parallel degrees above 1 of a stack that runs it (RING_CONTEXT_PARALLEL), beside TP at PP 1:
    powers of two with TP x CP dividing the GPU count and the sequence cut into 2 x CP equal chunks (Megatron's
    load balancing for the causal mask requires it). Unlike Ulysses, CP does not split the heads."""
    if framework not in RING_CONTEXT_PARALLEL:
        return ()
    degrees, cp = [], 2
    while tp * cp <= gpu_count:
        if gpu_count % (tp * cp) == 0 and seq_len % (2 * cp) == 0:
            degrees.append(cp)
        cp *= 2
    return tuple(degrees)


def context_splits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, fits_without: bool
) -> list[tuple[int, int]]:
    """(TP, CP) splits a layout search tries after the others, TP then CP ascending: each TP of layout_families at
    PP 1 with each of its context_degrees. Offered from CONTEXT_PARALLEL_MIN_SEQ_LEN tokens, or where no layout
    without CP fits (`fits_without` false): shorter sequences gain little by it, and the ranking stays as fast as it
    was for them. Not for QLoRA, which runs data parallel only (data_parallel_only_method)."""
    if w.framework not in RING_CONTEXT_PARALLEL or data_parallel_only_method(w.method):
        return []
    if fits_without and w.seq_len < CONTEXT_PARALLEL_MIN_SEQ_LEN:
        return []
    tps = sorted({tp for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method) if pp == 1})
    return [(tp, cp) for tp in tps for cp in context_degrees(gpu_count, tp, w.seq_len, w.framework)]


def zero_stages(tp: int, pp: int, gpu_count: int) -> tuple[int, ...]:
    if gpu_count // (tp * pp) <= 1:
        return (0,)
    if pp > 1:
        return (1,)
    return (1, 3) if tp > 1 else (3,)


def _frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1, ep: int | None = None) -> bool:
    """The least memory this (TP, PP, SP, micro-batch, EP) can use: most sharding and full recompute."""
    frugal = Layout(
        max(zero_stages(tp, pp, gpu_count)), tp, pp, "full", micro, sequence_parallel=sp, expert_parallel=ep
    )
    return layout_fits(gpu, gpu_count, model, w, frugal, e)[0]


def first_fit(
    gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1, partial: bool = True, ep: int | None = None
) -> Layout | None:
    """The cheapest layout of this split that fits: recompute none → selective → partial → full, less sharding
    first; partial (the stacks of memory.PARTIAL_RECOMPUTE_STACKS, unless `partial` is false) at the fewest
    recomputed layers that fit. `ep`: the routed experts split over EP ranks (None: not split)."""
    if not _frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp, micro, ep):
        return None
    for recompute in recompute_levels(w, sp) if partial else whole_model_levels(w):
        for stage in zero_stages(tp, pp, gpu_count):
            if recompute == "partial":
                base = Layout(stage, tp, pp, "partial", micro, None, sp, expert_parallel=ep)
                found = partial_fit(gpu, gpu_count, model, w, e, base)
                if found is not None:
                    return found
                continue
            layout = Layout(stage, tp, pp, recompute, micro, sequence_parallel=sp, expert_parallel=ep)
            if layout_fits(gpu, gpu_count, model, w, layout, e)[0]:
                return layout
    return None


def sac_rival(gpu, gpu_count, model, w, e, layout: Layout, partial: bool = True) -> Layout | None:
    """Where `layout` is a first fit at op-level selective recompute (torchtitan's SAC runs about 37% of a block's
    matmuls again), the partial recompute first_fit would find were partial tried before it: recomputing fewer
    layers whole costs less than SAC, more costs more, and partial also gathers ZeRO-3 weights again, so which is
    faster depends on the split and both are timed. None elsewhere (Megatron-class selective recomputes ~0.2 N, below
    any partial recompute that fits where it does not)."""
    if (
        not partial
        or layout.recompute != "selective"
        or w.framework not in OP_LEVEL_SAC_STACKS & PARTIAL_RECOMPUTE_STACKS
    ):
        return None
    tp, pp, sp, micro = (
        layout.tensor_parallel,
        layout.pipeline_parallel,
        layout.sequence_parallel,
        layout.micro_batch_seqs,
    )
    for stage in zero_stages(tp, pp, gpu_count):
        found = partial_fit(gpu, gpu_count, model, w, e, Layout(stage, tp, pp, "partial", micro, None, sp))
        if found is not None:
            return found
    return None


def partial_fit(gpu, gpu_count, model, w, e, base: Layout) -> Layout | None:
    """`base` at partial recompute of the fewest layers per stage that fit (memory.fewest_fitting over
    partial_recompute_counts); None where even the most of them does not (full recompute may still)."""
    counts = partial_recompute_counts(w.framework, model.layers, base.pipeline_parallel)

    def fits(n: int) -> bool:
        return layout_fits(gpu, gpu_count, model, w, replace(base, recompute_layers=n), e)[0]

    n = fewest_fitting(counts, fits)
    return None if n is None else replace(base, recompute_layers=n)


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


def with_micro_batches(
    gpu, gpu_count, model, w, tp, pp, e, first: Layout, sp: int = 1, partial: bool = True
) -> list[Layout]:
    """A split's first fit, then its first fit at each larger micro-batch (larger_micro_batches), ascending, until one
    does not fit: what a user raising the micro-batch would try (at the first fit's EP degree)."""
    layouts = [first]
    for micro in larger_micro_batches(w, gpu_count, tp, pp, sp):
        bigger = first_fit(gpu, gpu_count, model, w, tp, pp, e, sp, micro, partial, first.expert_parallel)
        if bigger is None:
            break
        layouts.append(bigger)
    return layouts


def layout_timing(gpu, gpu_count, model, w, layout, e, span=None, capacity=1.0) -> tuple[StepTime, float, str, str]:
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
    partial: bool = True,
    expert_split: bool = True,
) -> Layout | None:
    """Fastest fitting layout: per TP degree, the first fit without PP and the smallest PP that fits. A
    data-parallel-only stack may also split the sequence: the first fit of each SP degree inside the scale-up domain
    (ascending), or beyond it if nothing else fits. A ring-CP stack tries each (TP, CP) of context_splits after its
    other splits. A first fit at torchtitan's op-level selective recompute is timed beside its partial rival
    (sac_rival). Ties keep the earlier layout. `partial` false leaves partial recompute out (the validation cases
    state how their runs recomputed, and none recomputed some layers only). A MoE then tries expert parallelism
    (expert_candidates) after every other split, unless `expert_split` is false (the validator reads its runs as the
    fitted constants were read, without EP)."""
    best, best_s = None, float("inf")
    done: set[tuple[int, bool]] = set()
    candidates: list[Layout] = []
    for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method):
        key = (tp, pp > 1)
        if key in done:
            continue
        layout = first_fit(gpu, gpu_count, model, w, tp, pp, e, partial=partial)
        if layout is None:
            continue
        done.add(key)
        candidates.extend(with_micro_batches(gpu, gpu_count, model, w, tp, pp, e, layout, partial=partial))
    # Ulysses inside the scale-up domain beside the other splits (a long sequence may run faster split than
    # recomputed); beyond it only for a sequence that fits no other way (its all-to-all then crosses the fabric).
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    for degrees in (inside, beyond):
        if degrees is beyond and candidates:
            break
        for sp in degrees:
            layout = first_fit(gpu, gpu_count, model, w, 1, 1, e, sp, partial=partial)
            if layout is not None:
                candidates.extend(with_micro_batches(gpu, gpu_count, model, w, 1, 1, e, layout, sp, partial))
    for tp, cp in context_splits(gpu, gpu_count, model, w, bool(candidates)):
        layout = first_fit(gpu, gpu_count, model, w, tp, 1, e, cp, partial=partial)
        if layout is not None:
            candidates.extend(with_micro_batches(gpu, gpu_count, model, w, tp, 1, e, layout, cp, partial))
    for first in candidates:
        for layout in (first, sac_rival(gpu, gpu_count, model, w, e, first, partial)):
            if layout is None:
                continue
            seconds = layout_timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
            if seconds < best_s:
                best, best_s = layout, seconds
    for layout in expert_candidates(gpu, gpu_count, model, w, e, partial) if expert_split else ():
        seconds = layout_timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
        if seconds < best_s:
            best, best_s = layout, seconds
    return best


def expert_splits(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[tuple[int, int]]:
    """(PP, EP) splits of a MoE a layout search tries, EP then PP ascending: at TP 1 (experts stay whole, and the
    attention beside them runs data parallel, as DeepSeek-V3 trained: TP1 PP16 EP64, its report §3.2), each PP of
    layout_families with each EP degree of experts.expert_degrees over its data-parallel ranks. Only on the stacks
    that run EP (EXPERT_PARALLEL_STACKS), and not for QLoRA (data parallel only)."""
    if not model.is_moe or w.framework not in EXPERT_PARALLEL_STACKS or data_parallel_only_method(w.method):
        return []
    pps = [pp for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method) if tp == 1]
    splits = [(pp, ep) for pp in pps for ep in expert_degrees(model, gpu_count // pp)]
    return sorted(splits, key=lambda split: (split[1], split[0]))


def expert_candidates(gpu, gpu_count, model, w, e, partial: bool = True) -> list[Layout]:
    """Per EP degree of expert_splits (ascending), the first fit without PP and at the smallest PP that fits, each
    with its larger micro-batches (with_micro_batches): the EP layouts choose_layout times after the others."""
    found: list[Layout] = []
    done: set[tuple[int, bool]] = set()
    for pp, ep in expert_splits(gpu, gpu_count, model, w):
        if (ep, pp > 1) in done:
            continue
        layout = first_fit(gpu, gpu_count, model, w, 1, pp, e, partial=partial, ep=ep)
        if layout is not None:
            done.add((ep, pp > 1))
            found.extend(with_micro_batches(gpu, gpu_count, model, w, 1, pp, e, layout, partial=partial))
    return found


def fits_at(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
) -> bool:
    """Some layout of the workload's stack fits with its most frugal settings (for a data-parallel-only stack,
    at the largest SP degree; for a ring-CP stack, at some TP's largest CP degree)."""
    if any(
        _frugal_fits(gpu, gpu_count, model, w, tp, pp, e)
        for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method)
    ):
        return True
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    degrees = inside + beyond  # memory falls as SP grows: the largest is the most frugal
    if degrees and _frugal_fits(gpu, gpu_count, model, w, 1, 1, e, max(degrees)):
        return True
    if any(
        _frugal_fits(gpu, gpu_count, model, w, tp, 1, e, cp)
        for tp, cp in widest_context_splits(gpu, gpu_count, model, w)
    ):
        return True
    return expert_split_fits(gpu, gpu_count, model, w, e)


def expert_split_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> bool:
    """Some PP's largest EP degree of expert_splits fits at its most frugal: memory falls as EP grows (each GPU holds
    fewer experts' states, nothing grows), so it is that PP's most frugal EP split."""
    widest: dict[int, int] = {}
    for pp, ep in expert_splits(gpu, gpu_count, model, w):
        widest[pp] = max(ep, widest.get(pp, 1))
    return any(_frugal_fits(gpu, gpu_count, model, w, 1, pp, e, ep=ep) for pp, ep in widest.items())


def widest_context_splits(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[tuple[int, int]]:
    """Per TP, its largest CP degree of context_splits (as where nothing fits without CP): memory falls as CP grows
    (activations and logits divide by it, the states do not grow), so it is that TP's most frugal CP split."""
    widest: dict[int, int] = {}
    for tp, cp in context_splits(gpu, gpu_count, model, w, False):
        widest[tp] = max(cp, widest.get(tp, 1))
    return list(widest.items())


def min_gpus_to_fit(gpu: GpuSpec, model: ModelSpec, workload: TrainingWorkload, limit: int = 65_536) -> int | None:
    """Fewest GPUs (1, 2, 4, then powers of two) on which some layout fits; None if none up to limit."""
    n = 1
    while n <= limit:
        if fits_at(gpu, n, model, workload):
            return n
        n *= 2
    return None
