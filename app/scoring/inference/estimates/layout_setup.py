"""What a layout's solve reads before its search that no length, limit or load changes: the room its KV cache has
beside the weights, a token's KV per GPU and its serving context, kept by the layout (the GPU as wired, model, dtypes,
engine, TP, PP, fabric, data-parallel attention and expert parallelism) across rankings.

A ranking sizes ~140 layouts and the next one, whatever its lengths, sizes the same: each read three caches keyed by
7-10 arguments (the KV room, a sequence's KV at the ranking's lengths, which missed every ranking, and the context);
one lookup now serves all three, and a sequence's KV is the token's times kv_context_tokens, as
memory.kv_bytes_per_sequence_per_gpu works it out."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.memory import (
    GB,
    kv_bytes_per_token_per_gpu,
    kv_context_tokens,
    kv_room_for_weights_gb,
)
from app.scoring.specs import GpuSpec, ModelSpec

# Layouts by all they read, shared across rankings as build_context's contexts are (one entry a layout).
_LAYOUT_SETUP_CACHE_SIZE = 4096


class LayoutSetup(NamedTuple):
    kv_room_gb: float  # memory.kv_room_for_weights_gb: per GPU, beside the weights (<= 0: none)
    kv_bytes_per_token: float  # memory.kv_bytes_per_token_per_gpu
    ctx: InferenceContext

    def max_sequences(self, model: ModelSpec, context_tokens: float) -> int:
        """memory.max_sequences for this layout, from the same floats in the same order."""
        if self.kv_room_gb <= 0:
            return 0
        per_seq = self.kv_bytes_per_token * kv_context_tokens(model, max(context_tokens, 1.0))
        return int(math.floor(self.kv_room_gb * GB / per_seq))


@lru_cache(maxsize=_LAYOUT_SETUP_CACHE_SIZE)
def layout_setup(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    engine: str,
    tensor_parallel: int,
    pipeline_parallel: int,
    fabric_gbs: float,
    attention_dp: int,
    expert_parallel: int,
) -> LayoutSetup:
    """The layout's KV room, a token's KV per GPU and its context (build_context's, no techniques)."""
    tp, pp, dp = tensor_parallel, pipeline_parallel, attention_dp
    return LayoutSetup(
        kv_room_for_weights_gb(gpu, model, weight_dtype, tp, pp, dp, engine),
        kv_bytes_per_token_per_gpu(model, kv_dtype, tp, pp, dp),
        build_context(gpu, model, weight_dtype, kv_dtype, engine, tp, pp, fabric_gbs, dp, expert_parallel),
    )
