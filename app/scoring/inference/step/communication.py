"""Communication time of one forward pass: the tensor-parallel all-reduces (a ring inside a node, hierarchical
across nodes) and the activations a pipeline stage hands to the next stage on another node."""

from __future__ import annotations

from app.scoring.efficiency.inference import LINK_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.dtypes import ACTIVATION_BYTES
from app.scoring.hardware.machines import FABRIC_ALPHA_MS
from app.scoring.inference.step.context import InferenceContext


def allreduce_call_ms(ctx: InferenceContext, eff: InferenceEfficiency, tokens: float) -> tuple[float, float]:
    """(latency, transfer) ms of one ring all-reduce of tokens x hidden activations: alpha, and 2(TP-1)/TP x bytes
    / link (across nodes: reduce-scatter/all-gather inside each node, all-reduce of 1/g of it across nodes)."""
    tp = ctx.tensor_parallel
    alpha = eff.allreduce_alpha_nvlink_ms if ctx.nvlink else eff.allreduce_alpha_pcie_ms
    payload = tokens * ctx.hidden_size * ACTIVATION_BYTES
    if ctx.tp_nodes > 1:
        nodes, local = ctx.tp_nodes, tp / ctx.tp_nodes
        inside = 2 * (local - 1) / local * payload / (ctx.link_gbs * 1e9 * LINK_EFFICIENCY)
        across = 2 * (nodes - 1) / nodes * payload / local / (ctx.tp_fabric_gbs * 1e9)
        return alpha + eff.allreduce_alpha_fabric_ms, (inside + across) * 1e3
    return alpha, 2 * (tp - 1) / tp * payload / (ctx.link_gbs * 1e9 * LINK_EFFICIENCY) * 1e3


def allreduce_ms(ctx: InferenceContext, eff: InferenceEfficiency, tokens: float) -> float:
    """Two ring all-reduces per layer (allreduce_call_ms), none at TP1."""
    if ctx.tensor_parallel <= 1:
        return 0.0
    latency, transfer = allreduce_call_ms(ctx, eff, tokens)
    return 2 * ctx.layers_per_stage * (latency + transfer)


def stage_send_ms(ctx: InferenceContext, tokens: float) -> float:
    """Activations handed to the next pipeline stage on another node: alpha + tokens x hidden / fabric.
    Zero inside one node (the send is tiny next to an all-reduce, and calibration has it in overheads)."""
    if ctx.pipeline_parallel <= 1 or ctx.fabric_gbs <= 0:
        return 0.0
    payload = tokens * ctx.hidden_size * ACTIVATION_BYTES
    return FABRIC_ALPHA_MS + payload / (ctx.fabric_gbs * 1e9) * 1e3
