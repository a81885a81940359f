"""Ring context parallelism (CP) of the Megatron-class stacks, torchtitan and auto (frameworks.RING_CONTEXT_PARALLEL):
each sequence is cut into 2 x CP chunks, every rank holding two (Megatron-Core's load balancing for the causal mask),
and per layer and pass the K/V blocks go around the ring in CP - 1 steps, each sent while the attention of the block in
hand runs, after the step's P2P launch and handshake (ring_step_latency_s). What the attention does not hide is exposed
(ring_exposed_seconds).

Sources: Megatron-Core context-parallel docs and its AttnFuncWithCPAndKVP2P; Liu et al. 2023, "Ring Attention with
Blockwise Transformers". Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.training import BYTES_BF16
from app.scoring.hardware.machines import FABRIC_ALPHA_MS
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.step.flops import CAUSAL_SHARE, value_head_dim

# Sequences at least this long are searched with CP beside the layouts without it; a shorter one only where no layout
# without CP fits. From here on CP hides its ring and may beat recompute: at 16K tokens an 8B model's CP2 blocks (8K
# tokens) on NVLink H100s compute ~10x longer than they send. Below it CP saves memory a shorter sequence rarely needs
# (of the NeMo performance-summary runs in shared/validation, at 2K-8K tokens, one uses CP: Llama-3 70B at 8K, CP2), and
# the rule keeps the ranking's search, and its answers, as they were for every shorter question.
CONTEXT_PARALLEL_MIN_SEQ_LEN = 16_384

# Attention FLOPs of the backward over the forward: 4 of the step's 6 (flops.attention_flops_per_token counts 2
# forward + 4 backward, dQ, dK, dV and dP beside the recomputed scores).
RING_BACKWARD_FLOPS_PER_FORWARD = 2.0

# Blocks sent per ring step backward over forward: K/V forward; K/V and the dK/dV accumulators backward
# (Megatron-Core AttnFuncWithCPAndKVP2P.backward sends both around the ring).
RING_BACKWARD_SENDS_PER_FORWARD = 2.0

# Launch and handshake of one ring step's P2P send/recv (NCCL batch_isend_irecv) inside a node, over NVLink/xGMI or
# PCIe, paid before its bytes flow and hidden only by the block's attention: AIConfigurator's p2p_latency, 10 us
# (shared/research/inference_estimators.md §1.7), as pochenai's calibrated alpha_intra 0.01 ms (§1.9). Across nodes the
# ring pays hardware/machines.FABRIC_ALPHA_MS, the send between pipeline stages on another node (NCCL over IB/EFA).
RING_STEP_LATENCY_INTRA_NODE_S = 10e-6


@dataclass(frozen=True, slots=True)
class RingStep:
    """One ring step of one layer's forward for one micro-batch on one GPU: bytes sent and attention FLOPs run."""

    send_bytes: float
    attention_flops: float


def ring_step(model: ModelSpec, seq_len: int, tp: int, cp: int, micro_batch_seqs: int) -> RingStep:
    """A block is seq / CP tokens. It sends its K and V heads (the TP rank's share, a whole head at least: Megatron
    replicates K/V heads when TP exceeds them) in bf16, and its attention runs the score and AV matmuls of its query
    heads over the block's key-query pairs, half of them live under the causal mask with load-balanced chunks."""
    block = seq_len / cp
    width = model.head_dim + value_head_dim(model)  # K and V, as the score and AV matmuls are wide
    kv_heads = max(1.0, model.num_kv_heads / tp)
    send = block * kv_heads * width * BYTES_BF16 * micro_batch_seqs
    flops = 2.0 * width * CAUSAL_SHARE * block * block * (model.num_attention_heads / tp) * micro_batch_seqs
    return RingStep(send, flops)


def ring_passes(recompute: str) -> tuple[tuple[float, float], ...]:
    """(blocks sent, FLOPs) per ring step of each pass, relative to the forward's: the forward, the backward and,
    under full (and partial: on its recomputed layers, pass_weights) recompute, the forward run again."""
    forward = (1.0, 1.0)
    backward = (RING_BACKWARD_SENDS_PER_FORWARD, RING_BACKWARD_FLOPS_PER_FORWARD)
    return (forward, backward, forward) if recompute in ("full", "partial") else (forward, backward)


def pass_weights(recompute: str, recomputed_share: float) -> tuple[float, ...]:
    """Share of the layers each of ring_passes runs on: all, except partial recompute's second forward, which runs on
    its recomputed layers only."""
    if recompute == "partial":
        return (1.0, 1.0, recomputed_share)
    return (1.0, 1.0, 1.0) if recompute == "full" else (1.0, 1.0)


def ring_step_link(gpu: GpuSpec, group_gpus: int) -> str:
    """The links a TP x CP group's ring steps over, as its bandwidth is chosen (communication.collective_bandwidth_gbs):
    "scale-up" inside the domain, "fabric" beyond it (the ring steps together: its slowest hop sets the pace), "PCIe"
    on cards without a scale-up link."""
    if gpu.scaleup_domain_gpus > 1 and gpu.interconnect_gbs:
        return "scale-up" if group_gpus <= gpu.scaleup_domain_gpus else "fabric"
    return "PCIe"


def ring_step_latency_s(gpu: GpuSpec, group_gpus: int) -> float:
    """One ring step's send latency over its links (ring_step_link): the fabric's across nodes, a node's inside one."""
    if ring_step_link(gpu, group_gpus) == "fabric":
        return FABRIC_ALPHA_MS / 1e3
    return RING_STEP_LATENCY_INTRA_NODE_S


def exposed_per_layer_s(
    step: RingStep,
    recompute: str,
    bandwidth_gbs: float,
    attention_s_per_flop: float,
    latency_s: float,
    recomputed_share: float = 1.0,
) -> float:
    """Seconds one layer's ring leaves exposed per ring step, over its passes: max(0, latency + send - attention)
    each (the backward's K/V and dK/dV blocks priced as one send's latency); under partial recompute the second
    forward's weighted by the share of layers it runs on."""
    if recompute == "partial":
        weights = pass_weights(recompute, recomputed_share)
        return sum(
            weight
            * max(
                0.0,
                latency_s
                + sends * step.send_bytes / (bandwidth_gbs * 1e9)
                - flops * step.attention_flops * attention_s_per_flop,
            )
            for weight, (sends, flops) in zip(weights, ring_passes(recompute), strict=True)
        )
    return sum(
        max(
            0.0,
            latency_s
            + sends * step.send_bytes / (bandwidth_gbs * 1e9)
            - flops * step.attention_flops * attention_s_per_flop,
        )
        for sends, flops in ring_passes(recompute)
    )


def ring_exposed_seconds(
    model: ModelSpec,
    seq_len: int,
    tp: int,
    pp: int,
    cp: int,
    recompute: str,
    micro_batch_seqs: int,
    micro_batches: int,
    bandwidth_gbs: float,
    attention_s_per_flop: float,
    latency_s: float,
    recomputed_share: float = 1.0,
) -> float:
    """Exposed ring seconds per step on one GPU: per micro-batch and layer it runs, CP - 1 ring steps per pass."""
    if cp <= 1:
        return 0.0
    step = ring_step(model, seq_len, tp, cp, micro_batch_seqs)
    per_layer = exposed_per_layer_s(step, recompute, bandwidth_gbs, attention_s_per_flop, latency_s, recomputed_share)
    return micro_batches * model.layers / pp * (cp - 1) * per_layer
