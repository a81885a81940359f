"""Checks of a model's LoRA-relevant layout facts (MLA sizes, fused experts), shared by the catalog's model rows
(app.models) and a question's custom model (workload.ModelArchitecture): one rule, one message."""

from __future__ import annotations


def nope_completes_head_dim(nope: int, head_dim: int | None, rope: int) -> int:
    """MLA's query/key head is its no-position part plus its rotary part: qk_nope_head_dim + qk_rope_head_dim is
    the head_dim."""
    if nope and head_dim and nope + rope != head_dim:
        raise ValueError(
            f"qk_nope_head_dim {nope} + qk_rope_head_dim {rope} is {nope + rope}, not head_dim {head_dim}: the two "
            f"must add up to the head_dim, {head_dim}"
        )
    return nope


def fused_needs_experts(fused: bool, num_experts: int | None) -> bool:
    """Fused experts (or router) are a MoE's: a dense model has none to fuse."""
    if fused and not num_experts:
        raise ValueError("fused experts need routed experts (num_experts > 0)")
    return fused
