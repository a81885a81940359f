"""A training step's collectives: the per-GPU bandwidth a group is timed at (collective_bandwidth_gbs),
DeepSpeed-Ulysses all-to-alls, ring context parallelism's exposed K/V traffic, expert parallelism's all-to-all and the
data-parallel gradient and ZeRO-3 parameter traffic (dp_comm_bytes). step_time.step_parts adds them to the compute.

Formulas: shared/research/training_estimators.md §1.4, §6.4. Pure functions.
"""

from __future__ import annotations

from app.scoring.efficiency.training import BYTES_QLORA_BASE, TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.experts import all_expert_params, expert_data_parallel, expert_parallel
from app.scoring.training.layouts.memory import Layout, recomputed_share
from app.scoring.training.step.context_parallel import ring_exposed_seconds, ring_step_latency_s
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY, RING_CONTEXT_PARALLEL
from app.scoring.training.step.mfu import attention_efficiency, low_precision_speedup


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
    return tokens_per_gpu * ulysses_bytes_per_token(model, layout) / (collective_bandwidth_gbs(e, gpu, sp) * 1e9)


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
    bandwidth = collective_bandwidth_gbs(e, gpu, tp * cp)
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


def collective_bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, group_gpus: int) -> float:
    """Per-GPU collective bandwidth (one direction): scale-up link, scale-out NIC, or PCIe. A group smaller than a
    switchless mesh board (hardware/mesh.py) is still priced at the full listed bandwidth here, unlike inference: see
    the note in docs/ACCURACY.md (2026-12-05, mesh) for why it is held."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        if group_gpus <= gpu.scaleup_domain_gpus:
            return gpu.interconnect_gbs / 2 * e.nvlink_efficiency
        return e.scaleout_gbs_per_gpu_ampere if "ampere" in gpu.architecture.lower() else e.scaleout_gbs_per_gpu
    return e.pcie_gbs_per_gpu


def dp_bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, gpu_count: int, layout: Layout) -> float:
    """Per-GPU bandwidth of the data-parallel ring (dp_comm_bytes counts each GPU's ring volume): NCCL's rings run
    through a node's GPUs over NVLink and cross to the next node once per ring, one ring per NIC (rail), so the bytes
    leaving a node are one GPU's ring volume, not each of its GPUs'. The scaling book's GPU chapter prices FSDP across
    H100 nodes at the node's 400 GB/s egress (8 x 400 Gb/s; compute-bound above ~2,475 tokens a GPU, research
    training_estimators.md), not one 50 GB/s NIC. The DP ranks inside one node, its GPUs over the TP ranks placed
    there first (Megatron's tp-cp-ep-dp-pp order, torchtitan's mesh with TP innermost), each bring their own NIC: the
    ring runs at that many times a GPU's fabric share, up to the NVLink share the in-node hops reach. One DP rank a
    node (TP filling it) keeps one NIC's share; a DP group inside one node (the pipeline stages across nodes) runs
    over NVLink alone; a job inside one scale-up domain, or without NVLink, gets collective_bandwidth_gbs."""
    bandwidth = collective_bandwidth_gbs(e, gpu, gpu_count)
    rails = dp_rails_per_node(gpu, gpu_count, layout)
    if rails <= 1:
        return bandwidth
    if dp_inside_one_domain(gpu, gpu_count, layout):
        return collective_bandwidth_gbs(e, gpu, gpu.scaleup_domain_gpus)  # pipeline stages across nodes, DP inside
    return min(rails * bandwidth, (gpu.interconnect_gbs or 0.0) / 2 * e.nvlink_efficiency)


def dp_inside_one_domain(gpu: GpuSpec, gpu_count: int, layout: Layout) -> bool:
    """Whether a job across scale-up domains keeps each data-parallel group inside one (TP x DP fill at most a
    domain, the pipeline stages span them): its ring then runs over NVLink alone."""
    domain = gpu.scaleup_domain_gpus
    return gpu_count > domain > 1 and layout.data_parallel(gpu_count) * layout.tensor_parallel <= domain


def dp_rails_per_node(gpu: GpuSpec, gpu_count: int, layout: Layout) -> int:
    """A data-parallel group's ranks inside one scale-up domain where the job spans several (each with its NIC, so
    the NICs its rings cross nodes on); 1 where the job fits one domain or the GPU has no NVLink."""
    domain = gpu.scaleup_domain_gpus
    if domain <= 1 or not gpu.interconnect_gbs or gpu_count <= domain:
        return 1
    return min(layout.data_parallel(gpu_count), max(1, domain // max(1, layout.tensor_parallel)))


def tp_traffic_layers(model: ModelSpec, tp: int, ep: int) -> float:
    """Layers' worth of TP traffic one step pays: every layer's, but half of each MoE layer's where its routed experts
    run under expert parallelism beside attention TP and the model has no shared expert.

    Under TP with Megatron sequence parallelism (within TP; Megatron-Core requires it for MoE at TP > 1) a layer runs an
    all-gather and a reduce-scatter of bf16 hidden states around its attention and another pair around its MLP, each
    pair once forward and once backward: the 4 all-reduces' worth tensor_parallel_bytes_per_token counts. At expert-TP 1
    with EP folded over the TP x DP ranks (Megatron-Core MoE docs, "MoE Parallel Folding": --expert-tensor-parallel-size
    1) the routed experts are whole on each GPU and get their tokens from the Megatron-SP shard by the EP all-to-all
    (expert_all_to_all_seconds), and the alltoall token dispatcher all-gathers over the expert-TP group only, of size 1:
    the MoE layer's MLP pair is not run, its attention's is. A shared expert (Megatron-Core SharedExpertMLP, a TP-split
    column/row-parallel MLP beside the routed ones) gathers and reduce-scatters hidden states as a dense MLP does, the
    same bytes whatever its width, so a model with one (DeepSeek-V3, Llama 4 Maverick) still pays the whole pair in
    every layer; --moe-shared-expert-overlap can hide it behind the dispatch, but is off by default. Dense layers of a
    MoE model (DeepSeek-V3's first 3, Maverick's every second) pay all of theirs."""
    if tp > 1 and ep > 1 and model.is_moe and not model.num_shared_experts:
        return model.layers - model.moe_layers / 2
    return model.layers


def tensor_parallel_bytes_per_token(model: ModelSpec, tp: int, ep: int = 1) -> float:
    """Bytes one GPU sends per token of its share in a step's TP collectives: 4 all-reduces (2 forward, 2 backward;
    under Megatron sequence parallelism (within TP) an all-gather and a reduce-scatter each, the same volume) × 2 B ×
    hidden × ring 2 (TP - 1) / TP × tp_traffic_layers; 0 at TP 1."""
    if tp <= 1:
        return 0.0
    return tp_traffic_layers(model, tp, ep) * 16.0 * model.hidden_size * (tp - 1) / tp


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
    per-GPU bandwidth (the scale-up link within a node, the fabric beyond), times the share left exposed. Beside
    attention TP each GPU routes its sequence-parallel share of the tokens (Megatron-Core requires sequence
    parallelism for MoE with TP > 1), so tokens per GPU are the same global tokens / GPUs as at TP 1."""
    per_token = all_to_all_bytes_per_token(model, layout, capacity_factor)
    if not per_token:
        return 0.0
    bandwidth = all_to_all_bandwidth_gbs(e, gpu, expert_parallel(layout, model))
    return e.ep_a2a_exposed * tokens_per_gpu * per_token / (bandwidth * 1e9)


def all_to_all_bandwidth_gbs(e: TrainingEfficiency, gpu: GpuSpec, ep: int) -> float:
    """Per-GPU bandwidth (one direction) of an EP all-to-all over `ep` GPUs: inside the scale-up domain the NVLink
    share an all-to-all kernel measures (ep_a2a_nvlink_efficiency, DeepEP), not the all-reduce's; beyond it, or
    without NVLink, what collective_bandwidth_gbs gives any collective (the fabric, or PCIe)."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs and ep <= gpu.scaleup_domain_gpus:
        return gpu.interconnect_gbs / 2 * e.ep_a2a_nvlink_efficiency
    return collective_bandwidth_gbs(e, gpu, ep)


def dp_comm_bytes(
    model: ModelSpec, method: str, layout: Layout, dp: int, adapters: float, micro_batches: int = 1
) -> float:
    """Per-GPU gradient (and ZeRO-3 parameter) traffic per step, ring all-reduce volume.

    ZeRO-3/FSDP FULL_SHARD frees each layer's gathered weights after use, so every micro-batch gathers them again
    forward and backward (ZeRO paper §7.2.2: 2Ψ of parameter all-gathers per forward-backward pass; FSDP
    FULL_SHARD reshards after forward and backward): the gathers scale with the micro-batches, the gradient
    reduction happens once per step. Under expert parallelism a GPU's own experts (num_experts / EP of them) are
    reduced and gathered over the TP × DP / EP ranks holding the same experts (Megatron-Core's expert-data-parallel
    group; DP / EP at TP 1), the other weights over every data-parallel rank."""
    if dp <= 1:
        return 0.0
    split = layout.tensor_parallel * layout.pipeline_parallel
    ep = expert_parallel(layout, model) if layout.expert_parallel else 1  # no call for a layout without EP
    if ep <= 1:
        return _dp_volume(model.params_b * 1e9, adapters, split, method, layout, dp, micro_batches)
    experts = all_expert_params(model)
    dense = _dp_volume(model.params_b * 1e9 - experts, adapters, split, method, layout, dp, micro_batches)
    # a GPU's own experts, whole (no TP inside one), over the TP × DP / EP ranks that hold the same ones
    edp = expert_data_parallel(dp, ep, layout.tensor_parallel)
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
