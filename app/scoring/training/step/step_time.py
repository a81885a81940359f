"""Step time of a training layout: the compute phase at effective MFU, the pipeline bubble, exposed tensor-,
sequence- and data-parallel communication (communication.py) and an offloaded optimizer's time (step_parts, StepTime).

Formulas: shared/research/training_estimators.md §1.4, §6.4. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.activation_offload import activation_copy_seconds
from app.scoring.training.layouts.memory import (
    Layout,
    frozen_base_bytes_per_param,
    offloaded_away_bytes,
    recomputed_share,
)
from app.scoring.training.layouts.optimizer import (
    DEFAULT_RECIPE,
    StateRecipe,
    offload_time,
    state_recipe,
    weight_copy_seconds,
)
from app.scoring.training.step.communication import (
    attention_seconds_per_flop,
    collective_bandwidth_gbs,
    context_parallel_seconds,
    expert_all_to_all_seconds,
    sequence_parallel_seconds,
    tensor_parallel_bytes_per_token,
)
from app.scoring.training.step.expert_gemms import expert_gemm_floor_seconds
from app.scoring.training.step.flops import executed_flops_per_token, recompute_flops_per_param
from app.scoring.training.step.frameworks import RING_CONTEXT_PARALLEL, split_stack
from app.scoring.training.step.hybrid_traffic import dp_traffic_seconds
from app.scoring.training.step.mfu import attention_efficiency, effective_mfu, low_precision_speedup

if TYPE_CHECKING:
    from app.scoring.workload import TrainingWorkload


def qlora_dequant_seconds(
    e: TrainingEfficiency, gpu: GpuSpec, model: ModelSpec, layout: Layout, micro_batches: float
) -> float:
    """NF4 base weights are dequantised to BF16 before each GEMM: every pass (forward, backward, plus the
    recomputed forward under full recompute) reads 0.5 B and writes and re-reads 2 B per weight, per micro-batch,
    at HBM speed (QLoRA paper §2; bitsandbytes/torchao NF4 dequantise-then-matmul)."""
    passes = 3.0 if layout.recompute == "full" else 2.0 + recomputed_share(layout, model.layers)
    weights = model.params_b * 1e9 / (layout.tensor_parallel * layout.pipeline_parallel)
    bandwidth = max(gpu.memory_bandwidth_tbs, 0.1) * 1e12
    return passes * micro_batches * weights * e.qlora_dequant_bytes_per_param / bandwidth


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by part; mfu_eff is the compute-phase efficiency used."""

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    offload_s: float  # the optimizer's PCIe copies and CPU step, with its states offloaded (optimizer.offload_time)
    mfu_eff: float
    ep_comm_s: float = 0.0  # expert parallelism's exposed all-to-all (expert_all_to_all_seconds)
    expert_gemm_s: float = 0.0  # memory-bound expert GEMMs past the compute phase (expert_gemms.py)

    @property
    def total_s(self) -> float:
        return (
            self.compute_s
            + self.bubble_s
            + self.tp_comm_s
            + self.dp_comm_s
            + self.offload_s
            + self.ep_comm_s
            + self.expert_gemm_s
        )


def local_micro_batches(global_batch_seqs: int, replicas: int, micro_batch_seqs: int) -> int:
    """Micro-batches one data-parallel replica runs per optimizer step (gradient accumulation): its share of the
    global batch (the busiest replica's, busiest_replica_factor) in whole micro-batches."""
    return max(1, math.ceil(math.ceil(global_batch_seqs / replicas) / micro_batch_seqs))


def pipeline_chunks(e: TrainingEfficiency, layout: Layout, local_micro: int) -> float:
    """Virtual pipeline chunks per GPU the 1F1B schedule interleaves: the layout's (else the stack's default), but one
    where a replica's micro-batches per step are not a multiple of its PP degree. The interleaved schedule "requires
    the number of microbatches in a batch to be an integer multiple of the degree of pipeline parallelism"
    (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC'21,
    §2.2.2); without it the plain 1F1B bubble, (PP - 1) / micro-batches of the compute, stands. A replica with one
    micro-batch (MLPerf's Llama 2 70B LoRA: 8 sequences on 64 GPUs) runs its stages one after the other."""
    if local_micro % layout.pipeline_parallel:
        return 1.0
    return layout.pipeline_interleave or e.pp_interleave_default


def compute_seconds(
    e: TrainingEfficiency,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    seq_len: int,
    global_batch_seqs: int,
    recompute: str,
    peak: float,
    mfu: float,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    attention_slowdown: float = 1.0,
    attention_eff: float | None = None,
    framework: str = "auto",
    recomputed_share: float = 1.0,
    executed: tuple[float, float] | None = None,
) -> float:
    """Compute phase of one step: tokens per GPU × FLOPs per token (with recompute) at the effective MFU.
    `recomputed_share` is partial recompute's share of the layers run again (memory.recomputed_share). `executed`:
    executed_flops_per_token of these arguments, where the caller keeps it (the same at every GPU count).

    `attention_span` is the tokens a query attends over when it is shorter than the sequence (packed short
    documents with a per-document mask); `capacity_factor` > 1 pads routed-expert matmuls to the expert
    capacity (token-dropping MoE with dense expert matmuls computes capacity × tokens, dropless computes 1×).
    """
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    dense, attn = executed or executed_flops_per_token(
        e, model, method, seq_len, recompute, attention_span, capacity_factor, framework, recomputed_share
    )
    attn_eff = e.attn_efficiency if attention_eff is None else attention_eff
    return tokens_per_gpu * (dense + attn * attention_slowdown / attn_eff) / (peak * 1e12 * mfu)


def busiest_replica_factor(global_batch_seqs: int, replicas: int) -> float:
    """A data-parallel step waits for its busiest replica. Where the global batch does not split into a whole number
    of sequences per replica (512 over 24), some replicas run ceil(B / R) of them (PyTorch's DistributedSampler pads
    to that; Megatron-LM and torchtitan refuse the layout), so the step takes that share: ceil(B / R) x R / B of the
    even split's time (1 where it divides)."""
    return math.ceil(global_batch_seqs / replicas) * replicas / global_batch_seqs


def workload_step_time(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    peak: float,
    precision_class: str,
    adapters: float,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
) -> StepTime:
    """The step time of a training workload's method, framework, sequence length and global batch (step_parts)."""
    return StepTime(
        *step_parts(
            e,
            gpu,
            gpu_count,
            model,
            w.method,
            w.framework,
            w.seq_len,
            w.global_batch_seqs,
            layout,
            peak,
            precision_class,
            adapters,
            attention_span=attention_span,
            capacity_factor=capacity_factor,
            recipe=state_recipe(w),
        )
    )


def step_parts(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    seq_len: int,
    global_batch_seqs: int,
    layout: Layout,
    peak: float,
    precision_class: str,
    adapters: float,
    mfu: float | None = None,
    compute_s: float | None = None,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    recipe: StateRecipe = DEFAULT_RECIPE,
) -> tuple[float, float, float, float, float, float, float, float]:
    """Compute at effective MFU, plus PP bubble, exposed TP and DP/FSDP communication, an offloaded optimizer's
    time, expert parallelism's all-to-all and what memory-bound expert GEMMs add (expert_gemms.py): StepTime's fields
    as a plain tuple (compute, bubble, TP, DP, offload seconds, MFU, EP all-to-all seconds, expert GEMM seconds), for
    sweeps.

    `mfu` (effective_mfu) and `compute_s` (compute_seconds) do not depend on the parallel split; a search over
    layouts may pass them in rather than have them recomputed."""
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    if mfu is None:
        mfu = effective_mfu(e, gpu, gpu_count, model, method, framework, precision_class)
    compute = compute_s
    if compute is None:
        compute = compute_seconds(
            e,
            gpu_count,
            model,
            method,
            seq_len,
            global_batch_seqs,
            layout.recompute,
            peak,
            mfu,
            attention_span,
            capacity_factor,
            low_precision_speedup(e, framework, precision_class, gpu),
            attention_efficiency(e, gpu, framework),
            framework,
            recomputed_share(layout, model.layers),
        )
    tp, pp, dp = layout.tensor_parallel, layout.pipeline_parallel, layout.data_parallel(gpu_count)
    replicas = layout.replicas(gpu_count)
    busiest = busiest_replica_factor(global_batch_seqs, replicas)
    compute *= busiest
    tokens_per_gpu *= busiest
    local_micro = local_micro_batches(global_batch_seqs, replicas, layout.micro_batch_seqs)
    if method == "qlora":
        compute += qlora_dequant_seconds(e, gpu, model, layout, local_micro)
    # the expert GEMMs' shape (expert_gemms.py) is compute time too: the pipeline bubble and the DP overlap see it
    expert_gemm = (
        expert_gemm_floor_seconds(
            gpu,
            model,
            layout,
            seq_len,
            precision_class,
            peak,
            mfu,
            local_micro,
            recompute_flops_per_param(e, model, layout.recompute, framework, recomputed_share(layout, model.layers)),
            capacity_factor,
            e,
        )
        if model.is_moe
        else 0.0
    )
    # Fixed per-step latency of the layers a GPU runs (kernel launches, optimizer, norm/clip syncs): visible when
    # strong scaling leaves each GPU little work per step.
    bubble = e.step_latency_s_per_layer * model.layers / pp
    if pp > 1:
        bubble += (compute + expert_gemm) * (pp - 1) / (pipeline_chunks(e, layout, local_micro) * local_micro)
    tp_comm = tensor_parallel_seconds(e, gpu, model, tp, tokens_per_gpu, layout.expert_parallel or 1)
    stack = split_stack(framework, method)  # whose sequence split the layout is
    tp_comm += sequence_parallel_seconds(e, gpu, model, layout, tokens_per_gpu, stack)
    if layout.sequence_parallel > 1 and stack in RING_CONTEXT_PARALLEL:
        per_flop = attention_seconds_per_flop(e, gpu, framework, precision_class, peak, mfu)
        tp_comm += context_parallel_seconds(e, gpu, model, layout, seq_len, local_micro, per_flop, framework)
    dp_comm = dp_exposed_seconds(
        e, gpu, gpu_count, model, method, layout, dp, adapters, local_micro, compute + expert_gemm
    )
    offload = offload_seconds(recipe, gpu, gpu_count, model, method, layout, adapters)
    copies = host_copy_seconds(e, gpu, gpu_count, model, method, framework, seq_len, layout, recipe, local_micro)
    if copies:  # on side streams beside the compute: exposed only beyond it
        offload += max(0.0, copies - (compute + expert_gemm))
    # a layout without an EP degree (every dense one) has no all-to-all: skip the calls in this hot loop
    ep_comm = (
        expert_all_to_all_seconds(e, gpu, model, layout, tokens_per_gpu, capacity_factor)
        if layout.expert_parallel
        else 0.0
    )
    return compute, bubble, tp_comm, dp_comm, offload, mfu, ep_comm, expert_gemm


def dp_exposed_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    layout: Layout,
    dp: int,
    adapters: float,
    micro: int,
    compute_s: float,
) -> float:
    """Data-parallel traffic (communication.dp_comm_bytes) past what the compute hides, micro-batch by micro-batch
    (exposed_by_micro_batch): each of a replica's `micro` micro-batches hides dp_overlap x its own compute; ZeRO-3's
    parameter gathers run in every micro-batch, and a share dp_last_micro_share of the once-per-step gradient
    reduction in the last one (the rest spread over all). At share 0 that is max(0, traffic - dp_overlap x compute)."""
    if dp <= 1:
        return 0.0
    total = dp_traffic_seconds(e, gpu, gpu_count, model, method, layout, dp, adapters, micro)
    if not e.dp_last_micro_share or micro <= 1:
        return max(0.0, total - e.dp_overlap * compute_s)
    # ZeRO-3's gathers grow with the micro-batches (dp_comm_bytes), the gradient reduction does not
    gathers = dp_traffic_seconds(e, gpu, gpu_count, model, method, layout, dp, adapters, micro + 1) - total
    once = max(0.0, total - micro * gathers)
    return exposed_by_micro_batch(gathers, once, e.dp_last_micro_share, micro, e.dp_overlap * compute_s / micro)


def exposed_by_micro_batch(gathers_s: float, once_s: float, last_share: float, micro: int, hidden_s: float) -> float:
    """Exposed seconds where each of `micro` micro-batches hides `hidden_s` of traffic: in each, its parameter
    gathers (`gathers_s`) and an even part of the gradient reduction not held back (`once_s` x (1 - last_share) /
    micro); the last one also the `last_share` of it held back to its backward pass."""
    spread = gathers_s + once_s * (1.0 - last_share) / micro
    return (micro - 1) * max(0.0, spread - hidden_s) + max(0.0, spread + once_s * last_share - hidden_s)


def tensor_parallel_seconds(
    e: TrainingEfficiency, gpu: GpuSpec, model: ModelSpec, tp: int, tokens_per_gpu: float, ep: int = 1
) -> float:
    """Exposed TP all-reduces: tp_comm_exposed × tokens per GPU × TP × per-token bytes
    (communication.tensor_parallel_bytes_per_token: a MoE layer's routed experts under EP `ep` beside TP pay none) /
    the TP group's bandwidth, 0 at TP 1; grows with tokens per GPU (a lower bound at the even split's tokens:
    GpuTimer's expert floor)."""
    if tp <= 1:
        return 0.0
    per_token = tensor_parallel_bytes_per_token(model, tp, ep)
    return e.tp_comm_exposed * tokens_per_gpu * tp * per_token / (collective_bandwidth_gbs(e, gpu, tp) * 1e9)


def offload_seconds(
    recipe: StateRecipe, gpu: GpuSpec, gpu_count: int, model: ModelSpec, method: str, layout: Layout, adapters: float
) -> float:
    """optimizer.offload_time of the trained parameters in one GPU's optimizer shard (0 unless offloaded)."""
    if not recipe.on_cpu:
        return 0.0
    trained = trained_per_gpu(model, method, layout, gpu_count, adapters)
    return offload_time(recipe, gpu, gpu_count, trained, layout.zero_stage).total_s


def host_copy_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    framework: str,
    seq_len: int,
    layout: Layout,
    recipe: StateRecipe,
    micro_batches: int,
) -> float:
    """PCIe seconds a step copies between host and GPU beside its compute: offloaded activations
    (activation_offload.activation_copy_seconds) and, under FSDP's CPU offload, the weight shard copied up before
    each use (optimizer.weight_copy_seconds); 0 with neither."""
    copies = 0.0
    if recipe.activations_offloaded:
        moved = offloaded_away_bytes(model, seq_len, layout, e, framework, method, recipe)
        copies += activation_copy_seconds(gpu, moved, micro_batches)
    if recipe.weights_leave(layout.zero_stage):
        copies += weight_copy_seconds(gpu, weight_shard_bytes(model, method, layout, gpu_count), micro_batches)
    return copies


def weight_shard_bytes(model: ModelSpec, method: str, layout: Layout, gpu_count: int) -> float:
    """Bytes of weights one GPU's FSDP shard holds (bf16; a QLoRA base in NF4), over TP x PP x DP."""
    split = layout.tensor_parallel * layout.pipeline_parallel * layout.shard_ranks(gpu_count)
    return model.params_b * 1e9 * frozen_base_bytes_per_param(method) / split


def trained_per_gpu(model: ModelSpec, method: str, layout: Layout, gpu_count: int, adapters: float) -> float:
    """Trained parameters in one GPU's optimizer shard: every weight or the adapters, over TP x PP x DP."""
    trained = model.params_b * 1e9 if method in ("pretrain", "full_ft") else adapters
    return trained / (layout.tensor_parallel * layout.pipeline_parallel * layout.shard_ranks(gpu_count))
