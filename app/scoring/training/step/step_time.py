"""Step time of a training layout: the compute phase at effective MFU, the pipeline bubble, exposed tensor-,
sequence- and data-parallel communication and an offloaded optimizer's time (step_parts, StepTime).

Formulas: shared/research/training_estimators.md §1.4, §6.4. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.scoring.efficiency.training import BYTES_QLORA_BASE, TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import all_expert_params, expert_data_parallel, expert_parallel
from app.scoring.training.layouts.memory import Layout, recomputed_share
from app.scoring.training.layouts.optimizer import DEFAULT_RECIPE, StateRecipe, offload_time, state_recipe
from app.scoring.training.step.context_parallel import ring_exposed_seconds, ring_step_latency_s
from app.scoring.training.step.flops import executed_flops_per_token
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY, RING_CONTEXT_PARALLEL, split_stack
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


def sequence_parallel_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    model: ModelSpec,
    layout: Layout,
    tokens_per_gpu: float,
    framework: str,
) -> float:
    """DeepSpeed-Ulysses all-to-alls (the data-parallel-only stacks): per layer, q, k, v and the attention output
    change hands forward and again backward (Jacobs et al. 2023, §3), each GPU sending (sp-1)/sp of its bf16 share;
    they sit on the critical path between the projections and attention, so none of it is hidden. A recomputed layer
    runs its forward again in the backward, all-to-alls included (activation checkpointing reruns the layer's forward
    function, and Ulysses' all-to-alls are inside it): ulysses_passes. Megatron's context parallelism passes K/V
    blocks around a ring while the attention of the previous block runs (Megatron-Core context-parallel docs): priced
    apart, context_parallel_seconds."""
    sp = layout.sequence_parallel
    if sp <= 1 or framework not in DATA_PARALLEL_ONLY:
        return 0.0
    return tokens_per_gpu * ulysses_bytes_per_token(model, layout) / (_bandwidth_gbs(e, gpu, sp) * 1e9)


def ulysses_passes(layout: Layout, layers: int) -> float:
    """Times per step each layer's Ulysses all-to-alls run: forward and backward, plus the recomputed forward on the
    share of layers recomputed (full recompute: 3)."""
    return 2.0 + recomputed_share(layout, layers)


def ulysses_bytes_per_token(model: ModelSpec, layout: Layout) -> float:
    """Bytes one GPU sends per token of its share in a step's Ulysses all-to-alls: passes × bf16 × (q + k + v +
    attention output widths) × (SP - 1) / SP × layers."""
    sp = layout.sequence_parallel
    q_dim, kv_dim = model.num_attention_heads * model.head_dim, model.num_kv_heads * model.head_dim
    passes = ulysses_passes(layout, model.layers)
    return model.layers * passes * 2.0 * (2 * q_dim + 2 * kv_dim) * (sp - 1) / sp


def context_parallel_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    model: ModelSpec,
    layout: Layout,
    seq_len: int,
    micro_batches: int,
    attention_s_per_flop: float,
    framework: str,
) -> float:
    """Ring context parallelism's exposed K/V traffic (the stacks of RING_CONTEXT_PARALLEL; context_parallel.py), over
    the TP x CP group's bandwidth and per-step latency: CP ranks beyond the scale-up domain cross the fabric."""
    cp = layout.sequence_parallel
    if cp <= 1 or framework not in RING_CONTEXT_PARALLEL:
        return 0.0
    tp, pp = layout.tensor_parallel, layout.pipeline_parallel
    bandwidth = _bandwidth_gbs(e, gpu, tp * cp)
    return ring_exposed_seconds(
        model,
        seq_len,
        tp,
        pp,
        cp,
        layout.recompute,
        layout.micro_batch_seqs,
        micro_batches,
        bandwidth,
        attention_s_per_flop,
        ring_step_latency_s(gpu, tp * cp),
        recomputed_share(layout, model.layers),
    )


def attention_seconds_per_flop(
    e: TrainingEfficiency, gpu: GpuSpec, framework: str, precision_class: str, peak: float, mfu: float
) -> float:
    """Seconds one attention FLOP takes in the compute phase (compute_seconds): at the effective MFU, slowed by the
    attention kernels' efficiency and by running in BF16 where the step's peak is a lower precision's."""
    slowdown = low_precision_speedup(e, framework, precision_class, gpu)
    return slowdown / attention_efficiency(e, gpu, framework) / (max(peak, 1e-9) * 1e12 * mfu)


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

    @property
    def total_s(self) -> float:
        return self.compute_s + self.bubble_s + self.tp_comm_s + self.dp_comm_s + self.offload_s + self.ep_comm_s


def _bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, group_gpus: int) -> float:
    """Per-GPU collective bandwidth (one direction): scale-up link, scale-out NIC, or PCIe. A group smaller than a
    switchless mesh board (hardware/mesh.py) is still priced at the full listed bandwidth here, unlike inference: see
    the note in docs/ACCURACY.md (2026-12-05, mesh) for why it is held."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        if group_gpus <= gpu.scaleup_domain_gpus:
            return gpu.interconnect_gbs / 2 * e.nvlink_efficiency
        return e.scaleout_gbs_per_gpu_ampere if "ampere" in gpu.architecture.lower() else e.scaleout_gbs_per_gpu
    return e.pcie_gbs_per_gpu


# Public names for the terms, which state the bandwidth each collective was timed at and the bytes it moved.
collective_bandwidth_gbs = _bandwidth_gbs


def local_micro_batches(global_batch_seqs: int, replicas: int, micro_batch_seqs: int) -> int:
    """Micro-batches one data-parallel replica runs per optimizer step (gradient accumulation): its share of the
    global batch (the busiest replica's, busiest_replica_factor) in whole micro-batches."""
    return max(1, math.ceil(math.ceil(global_batch_seqs / replicas) / micro_batch_seqs))


def all_to_all_passes(layout: Layout, layers: int) -> float:
    """All-to-all rounds per MoE layer and micro-batch: dispatch and combine forward, their gradients backward (4),
    plus the forward's two again for each recomputed layer."""
    return 4.0 + 2.0 * recomputed_share(layout, layers)


def all_to_all_bytes_per_token(model: ModelSpec, layout: Layout, capacity_factor: float = 1.0) -> float:
    """Bytes one GPU sends per token it routes over a step: MoE layers × passes × top-k copies × hidden × 2 B (bf16)
    × (EP - 1) / EP (the share bound for experts on other GPUs, routing spread evenly) × the capacity factor (a
    token-dropping path sends its expert buffers padded to capacity; a dropless one the routed tokens alone)."""
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return 0.0
    copies = model.experts_per_token * model.hidden_size * 2.0 * (ep - 1) / ep * max(1.0, capacity_factor)
    return model.moe_layers * all_to_all_passes(layout, model.layers) * copies


def expert_all_to_all_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    model: ModelSpec,
    layout: Layout,
    tokens_per_gpu: float,
    capacity_factor: float = 1.0,
) -> float:
    """Expert parallelism's exposed all-to-all: tokens per GPU × all_to_all_bytes_per_token over the EP group's
    per-GPU bandwidth (the scale-up link within a node, the fabric beyond), times the share left exposed."""
    per_token = all_to_all_bytes_per_token(model, layout, capacity_factor)
    if not per_token:
        return 0.0
    bandwidth = _bandwidth_gbs(e, gpu, expert_parallel(layout, model))
    return e.ep_a2a_exposed * tokens_per_gpu * per_token / (bandwidth * 1e9)


def _dp_comm_bytes(
    model: ModelSpec, method: str, layout: Layout, dp: int, adapters: float, micro_batches: int = 1
) -> float:
    """Per-GPU gradient (and ZeRO-3 parameter) traffic per step, ring all-reduce volume.

    ZeRO-3/FSDP FULL_SHARD frees each layer's gathered weights after use, so every micro-batch gathers them again
    forward and backward (ZeRO paper §7.2.2: 2Ψ of parameter all-gathers per forward-backward pass; FSDP
    FULL_SHARD reshards after forward and backward): the gathers scale with the micro-batches, the gradient
    reduction happens once per step. Under expert parallelism a GPU's own experts (num_experts / EP of them) are
    reduced and gathered over the DP / EP ranks holding the same experts (Megatron-Core's expert-data-parallel
    group), the other weights over every data-parallel rank."""
    if dp <= 1:
        return 0.0
    split = layout.tensor_parallel * layout.pipeline_parallel
    ep = expert_parallel(layout, model)
    if ep <= 1:
        return _dp_volume(model.params_b * 1e9, adapters, split, method, layout, dp, micro_batches)
    experts = all_expert_params(model)
    dense = _dp_volume(model.params_b * 1e9 - experts, adapters, split, method, layout, dp, micro_batches)
    # a GPU's own experts, whole (no TP inside one), over the DP / EP ranks that hold the same ones
    edp = expert_data_parallel(dp, ep)
    return dense + _dp_volume(experts / ep, 0.0, layout.pipeline_parallel, method, layout, edp, micro_batches)


def _dp_volume(
    weights: float, adapters: float, split: int, method: str, layout: Layout, dp: int, micro_batches: int
) -> float:
    """Ring traffic of one GPU's TP × PP `split` share of `weights` (and of LoRA's `adapters`) over `dp` ranks."""
    if dp <= 1:
        return 0.0
    ring = (dp - 1) / dp
    full = method in ("pretrain", "full_ft")
    grads = 2.0 * (weights if full else adapters) / split
    volume = 2 * ring * grads  # reduce-scatter + all-gather of bf16 grads
    if layout.zero_stage >= 3:  # QLoRA's FSDP gathers the NF4 storage (bitsandbytes quant_storage), not bf16
        base = (2.0 if full or method == "lora" else BYTES_QLORA_BASE) * weights / split
        # param all-gathers fwd + bwd per micro-batch; for trained weights the gradients' all-gather above stands in
        # for one of them (ZeRO-3: 1.5x DP's volume at one micro-batch)
        volume += ring * base * (2 * micro_batches - (1 if full else 0))
    return volume


dp_comm_bytes = _dp_comm_bytes


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
) -> float:
    """Compute phase of one step: tokens per GPU × FLOPs per token (with recompute) at the effective MFU.
    `recomputed_share` is partial recompute's share of the layers run again (memory.recomputed_share).

    `attention_span` is the tokens a query attends over when it is shorter than the sequence (packed short
    documents with a per-document mask); `capacity_factor` > 1 pads routed-expert matmuls to the expert
    capacity (token-dropping MoE with dense expert matmuls computes capacity × tokens, dropless computes 1×).
    """
    tokens_per_gpu = global_batch_seqs * seq_len / gpu_count
    dense, attn = executed_flops_per_token(
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
) -> tuple[float, float, float, float, float, float, float]:
    """Compute at effective MFU, plus PP bubble, exposed TP and DP/FSDP communication, an offloaded optimizer's
    time and expert parallelism's all-to-all: StepTime's fields as a plain tuple (compute, bubble, TP, DP, offload
    seconds, MFU, EP all-to-all seconds), for sweeps.

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
    # Fixed per-step latency of the layers a GPU runs (kernel launches, optimizer, norm/clip syncs): visible when
    # strong scaling leaves each GPU little work per step.
    bubble = e.step_latency_s_per_layer * model.layers / pp
    if pp > 1:
        chunks = layout.pipeline_interleave or e.pp_interleave_default
        bubble += compute * (pp - 1) / (chunks * local_micro)
    tp_comm = 0.0
    if tp > 1:
        per_token = model.layers * 16.0 * model.hidden_size * (tp - 1) / tp  # 4 all-reduces × 2·h bytes × ring 2(t-1)/t
        tp_comm = e.tp_comm_exposed * tokens_per_gpu * tp * per_token / (_bandwidth_gbs(e, gpu, tp) * 1e9)
    stack = split_stack(framework, method)  # whose sequence split the layout is
    tp_comm += sequence_parallel_seconds(e, gpu, model, layout, tokens_per_gpu, stack)
    if layout.sequence_parallel > 1 and stack in RING_CONTEXT_PARALLEL:
        per_flop = attention_seconds_per_flop(e, gpu, framework, precision_class, peak, mfu)
        tp_comm += context_parallel_seconds(e, gpu, model, layout, seq_len, local_micro, per_flop, framework)
    dp_bytes = _dp_comm_bytes(model, method, layout, dp, adapters, local_micro)
    dp_raw = dp_bytes / (_bandwidth_gbs(e, gpu, gpu_count) * 1e9)
    dp_comm = max(0.0, dp_raw - e.dp_overlap * compute)
    offload = offload_seconds(recipe, gpu, gpu_count, model, method, layout, adapters)
    ep_comm = expert_all_to_all_seconds(e, gpu, model, layout, tokens_per_gpu, capacity_factor)
    return compute, bubble, tp_comm, dp_comm, offload, mfu, ep_comm


def offload_seconds(
    recipe: StateRecipe, gpu: GpuSpec, gpu_count: int, model: ModelSpec, method: str, layout: Layout, adapters: float
) -> float:
    """optimizer.offload_time of the trained parameters in one GPU's optimizer shard (0 unless offloaded)."""
    if not recipe.on_cpu:
        return 0.0
    return offload_time(recipe, gpu, gpu_count, trained_per_gpu(model, method, layout, gpu_count, adapters)).total_s


def trained_per_gpu(model: ModelSpec, method: str, layout: Layout, gpu_count: int, adapters: float) -> float:
    """Trained parameters in one GPU's optimizer shard: every weight or the adapters, over TP x PP x DP."""
    trained = model.params_b * 1e9 if method in ("pretrain", "full_ft") else adapters
    return trained / (layout.tensor_parallel * layout.pipeline_parallel * layout.data_parallel(gpu_count))
