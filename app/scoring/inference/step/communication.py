"""Communication time of one forward pass: the tensor-parallel all-reduces (a ring inside a node, hierarchical
across nodes) and the activations a pipeline stage hands to the next stage on another node."""

from __future__ import annotations

from app.scoring.efficiency.inference import LINK_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.dtypes import ACTIVATION_BYTES
from app.scoring.hardware.machines import FABRIC_ALPHA_MS
from app.scoring.inference.step.context import InferenceContext

# Engines whose data-parallel attention gathers the hidden states before the MLP and reduce-scatters them after
# (allreduce_ms's `gathered`), read in their code: SGLang. vLLM's and TensorRT-LLM's are priced as two all-reduces.
GATHER_SCATTER_ENGINES: tuple[str, ...] = ("sglang",)


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


def allreduce_ms(
    ctx: InferenceContext, eff: InferenceEfficiency, tokens: float, gathered: float | None = None
) -> float:
    """Two ring all-reduces per layer (allreduce_call_ms), none at TP1.

    `gathered` (SGLang's data-parallel attention, a pass without prompt tokens): the hidden states of `gathered`
    tokens, every rank's padded to the busiest one's, all-gathered before the MLP/experts and reduce-scattered after
    (SGLang 0.5.7 layers/dp_attention.py: DpPaddingMode.MAX_LEN, the default in its CUDA graphs, all_gather_into_tensor
    then dp_reduce_scatter_tensor in place of the MLP's all-reduce; attention itself needs none). Two calls a layer,
    whose ring bytes, (TP - 1) / TP of the payload each, add to one all-reduce's 2 (TP - 1) / TP."""
    if ctx.tensor_parallel <= 1:
        return 0.0
    if gathered is None:
        latency, transfer = allreduce_call_ms(ctx, eff, tokens)
        return 2 * ctx.layers_per_stage * (latency + transfer)
    latency, transfer = allreduce_call_ms(ctx, eff, gathered)
    return ctx.layers_per_stage * (2 * latency + transfer)


def gathered_tokens(
    ctx: InferenceContext, attending: float, tokens_per_seq: float, prefill_tokens: float
) -> float | None:
    """The tokens SGLang's data-parallel attention all-gathers before the MLP in a pass (allreduce_ms's `gathered`):
    the busiest rank's decode tokens x dp (`attending`, attending_seqs); None where the pass is priced as two
    all-reduces of its tokens: attention by heads, another engine, or prompt tokens in the pass (an extend batch:
    DpPaddingMode.SUM_LEN, a gather by all-reduce of every rank's tokens, then the MLP's own all-reduce)."""
    if ctx.attention_dp <= 1 or ctx.engine not in GATHER_SCATTER_ENGINES or prefill_tokens > 0:
        return None
    return attending * tokens_per_seq


def stage_send_ms(ctx: InferenceContext, tokens: float) -> float:
    """Activations handed to the next pipeline stage on another node: alpha + tokens x hidden / fabric.
    Zero inside one node (the send is tiny next to an all-reduce, and calibration has it in overheads)."""
    if ctx.pipeline_parallel <= 1 or ctx.fabric_gbs <= 0:
        return 0.0
    payload = tokens * ctx.hidden_size * ACTIVATION_BYTES
    return FABRIC_ALPHA_MS + payload / (ctx.fabric_gbs * 1e9) * 1e3
