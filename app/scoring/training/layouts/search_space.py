"""What a training layout search may try on a GPU count: (TP, PP) families inside the scale-up domain
(layout_families), ZeRO stages, DeepSpeed-Ulysses degrees for a data-parallel-only stack (sequence_degrees), ring
context-parallel degrees for the stacks that run it (context_splits), larger micro-batches, and each split's recompute
levels, cheapest first (recompute_levels). The search over them is fit_search.py and choice.py.

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

import math

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.memory import PARTIAL_RECOMPUTE_STACKS
from app.scoring.training.step.context_parallel import CONTEXT_PARALLEL_MIN_SEQ_LEN
from app.scoring.training.step.frameworks import (
    DATA_PARALLEL_ONLY,
    NO_MODEL_PARALLEL,
    RING_CONTEXT_PARALLEL,
    split_stack,
)
from app.scoring.workload import TrainingWorkload

RECOMPUTE_ORDER = ("none", "selective", "full")

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


def widest_context_splits(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> list[tuple[int, int]]:
    """Per TP, its largest CP degree of context_splits (as where nothing fits without CP): memory falls as CP grows
    (activations and logits divide by it, the states do not grow), so it is that TP's most frugal CP split."""
    widest: dict[int, int] = {}
    for tp, cp in context_splits(gpu, gpu_count, model, w, False):
        widest[tp] = max(cp, widest.get(tp, 1))
    return list(widest.items())


def zero_stages(tp: int, pp: int, gpu_count: int) -> tuple[int, ...]:
    if gpu_count // (tp * pp) <= 1:
        return (0,)
    if pp > 1:
        return (1,)
    return (1, 3) if tp > 1 else (3,)


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
