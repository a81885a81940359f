"""Memory model: weight bytes, KV bytes per token and per sequence, usable memory and the batch that fits.

Sliding-window attention (ModelSpec.sliding_window / sliding_layers): a sliding layer caches and attends
to only the last `sliding_window` tokens, so a sequence of c tokens holds full layers x c + sliding
layers x min(c, window) tokens of KV; `kv_context_tokens` is that count per layer, averaged.
"""

from __future__ import annotations

import math
from functools import lru_cache

from app.scoring.efficiency.inference import (
    KV_SHARE_OF_FREE,
    RUNTIME_RESERVE_GB,
    TP_RESERVE_GB,
    USABLE_MEMORY_FRACTION,
)
from app.scoring.hardware.dtypes import KV_BYTES, WEIGHT_BYTES
from app.scoring.specs import GpuSpec, ModelSpec, card_gb

GB = 1e9


def weight_bytes(model: ModelSpec, weight_dtype: str) -> float:
    """All parameters (every expert of an MoE) times bytes per weight, scales included."""
    return model.params_b * 1e9 * WEIGHT_BYTES[weight_dtype]


def kv_bytes_per_token(model: ModelSpec, kv_dtype: str) -> float:
    """KV cache per cached token for the whole model: K and V for every layer (MLA: one latent + rope key).
    Exact per token up to the sliding window; for a sequence use kv_bytes_per_sequence(_per_gpu)."""
    if model.attention == "mla":
        return model.layers * (model.kv_lora_rank + model.qk_rope_head_dim) * KV_BYTES[kv_dtype]
    return 2 * model.layers * model.num_kv_heads * model.head_dim * KV_BYTES[kv_dtype]


def kv_replicated_under_tp(model: ModelSpec, tensor_parallel: int) -> bool:
    """Whether splitting attention heads over TP copies the KV cache onto every rank: MLA's one latent per
    token, or fewer KV heads than ranks. Data-parallel attention (attention_dp) keeps one copy instead."""
    return tensor_parallel > 1 and (model.attention == "mla" or model.num_kv_heads < tensor_parallel)


def head_split_reason(model: ModelSpec, tensor_parallel: int) -> str | None:
    """Why attention cannot be split by heads over this TP (None = it can). As vLLM, SGLang and TensorRT-LLM
    split it: TP divides the query heads, and the KV heads or is a multiple of them (each KV head copied)."""
    tp, heads, kv_heads = tensor_parallel, model.num_attention_heads, model.num_kv_heads
    if tp <= 1:
        return None
    if heads % tp:
        return f"tensor parallel {tp} does not divide the model's {heads} attention heads"
    if model.attention != "mla" and (kv_heads % tp if kv_heads >= tp else tp % kv_heads):
        return f"tensor parallel {tp} neither divides the model's {kv_heads} KV heads nor is a multiple of them"
    return None


def stage_split_reason(model: ModelSpec, pipeline_parallel: int) -> str | None:
    """Why the layers cannot be split over this many pipeline stages (None = they can): a stage holds whole layers,
    so more stages than layers would leave some with none (vLLM refuses it at start-up)."""
    if pipeline_parallel > model.layers:
        return f"pipeline parallel {pipeline_parallel} is more than the model's {model.layers} layers"
    return None


def routed_share(model: ModelSpec) -> float:
    """k / E: the share of routed experts one token passes through (0 for dense models)."""
    if model.is_moe and model.num_experts > model.experts_per_token > 0:
        return model.experts_per_token / model.num_experts
    return 0.0


def routed_expert_params(model: ModelSpec) -> float:
    """Weights of all routed experts: the inactive parameters are the routed experts a token skips, (1 - k/E) of
    them, so all routed experts = (total - active) / (1 - k/E)."""
    share = routed_share(model)
    if share <= 0:
        return 0.0
    return max(model.params_b - model.active_params_b, 0.0) * 1e9 / (1 - share)


def attention_params(model: ModelSpec) -> float:
    """Attention weights (projections) of the whole model, the part data-parallel attention replicates.

    GQA/MHA: q, k, v and o projections per layer. MLA (whose low-rank shapes the catalog does not keep): what
    remains of the always-active weights after the shared experts of the MoE layers, the dense layers' gated MLPs
    and the (untied) embeddings (DeepSeek-V3: 10.9 B against 11.4 B of attention, about 4 % low; before the dense
    layers' MLPs were counted apart, 12.0 B)."""
    q_dim, kv_dim = model.num_attention_heads * model.head_dim, model.num_kv_heads * model.head_dim
    if model.attention != "mla":
        return float(model.layers * model.hidden_size * (2 * q_dim + 2 * kv_dim))
    routed = routed_expert_params(model)
    shared = model.moe_layers * model.num_shared_experts * 3 * model.hidden_size * model.moe_intermediate_size
    dense_mlps = model.dense_ffn_layers * 3 * model.hidden_size * model.intermediate_size
    embeddings = 2 * model.vocab_size * model.hidden_size
    return max(model.params_b * 1e9 - routed - shared - dense_mlps - embeddings, 0.0)


def weight_bytes_per_gpu(
    model: ModelSpec, weight_dtype: str, tensor_parallel: int, pipeline_parallel: int = 1, attention_dp: int = 1
) -> float:
    """Weights one GPU holds: all of them split over TP x PP, except that data-parallel attention keeps a full
    copy of its stage's attention weights on every rank."""
    total = weight_bytes(model, weight_dtype)
    shards = tensor_parallel * pipeline_parallel
    if attention_dp <= 1:
        return total / shards
    attention = min(attention_params(model) * WEIGHT_BYTES[weight_dtype], total)
    return (total - attention) / shards + attention / pipeline_parallel


def whole_weight_bytes_per_gpu(
    model: ModelSpec, weight_dtype: str, pipeline_parallel: int = 1, attention_dp: int = 1
) -> float:
    """The part of weight_bytes_per_gpu held whole (unsplit) on every GPU: data-parallel attention's copy of its
    stage's attention weights; 0 under tensor-parallel attention, where every weight is a 1/TP shard."""
    if attention_dp <= 1:
        return 0.0
    total = weight_bytes(model, weight_dtype)
    return min(attention_params(model) * WEIGHT_BYTES[weight_dtype], total) / pipeline_parallel


def kv_bytes_per_token_per_gpu(
    model: ModelSpec,
    kv_dtype: str,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
) -> float:
    """Per-GPU share: KV heads split over TP (replicated once TP > kv heads), layers over PP; with
    data-parallel attention over `attention_dp` ranks each rank holds its own requests' KV (a 1/dp share)."""
    total = kv_bytes_per_token(model, kv_dtype)
    if attention_dp > 1:
        return total / (pipeline_parallel * attention_dp)
    if model.attention == "mla":
        return total / pipeline_parallel  # the latent is replicated on every TP rank
    heads_per_gpu = max(model.num_kv_heads / tensor_parallel, 1.0)
    return total * heads_per_gpu / model.num_kv_heads / pipeline_parallel


def sliding_share(model: ModelSpec) -> float:
    """Share of the layers that use a sliding window (0 when the model has none)."""
    if model.sliding_window <= 0 or model.layers <= 0:
        return 0.0
    return min(max(model.sliding_layers, 0), model.layers) / model.layers


def attended_tokens(context_tokens: float, sliding_window: float, share: float) -> float:
    """Context tokens the average layer caches and attends to: full layers c, sliding layers min(c, window),
    i.e. (full x c + sliding x min(c, window)) / layers, with `share` = sliding layers / layers."""
    if sliding_window <= 0 or share <= 0:
        return context_tokens
    return context_tokens - share * max(context_tokens - sliding_window, 0.0)


def prefill_attended_tokens(prompt_tokens: float, sliding_window: float, share: float) -> float:
    """The second n of the n x n (times 1/2, the causal triangle) attention pairs of prefilling n tokens,
    averaged over the layers: a sliding layer drops the (n - window)^2 pairs more than a window apart."""
    if sliding_window <= 0 or share <= 0 or prompt_tokens <= sliding_window:
        return prompt_tokens
    return prompt_tokens - share * (prompt_tokens - sliding_window) ** 2 / prompt_tokens


def kv_context_tokens(model: ModelSpec, context_tokens: float) -> float:
    """Tokens of KV one sequence of `context_tokens` holds per layer, averaged over the layers."""
    return attended_tokens(context_tokens, model.sliding_window, sliding_share(model))


def request_kv_tokens(input_len: float, output_len: float, beam_width: int = 1) -> float:
    """Mean tokens of KV cache one request holds over its life: the prompt once, since its beams share the prompt's
    blocks (vLLM's PagedAttention, Kwon et al., SOSP 2023 §4.4; TensorRT-LLM's KV cache manager shares a request's
    context blocks across its beams), and half the output for each beam. Each beam still reads the whole context
    in decode (a sequence's attention reads through its own block table)."""
    return input_len + beam_width * output_len / 2


def kv_bytes_per_sequence(model: ModelSpec, kv_dtype: str, context_tokens: float) -> float:
    """KV cache of one sequence of `context_tokens` for the whole model (sliding layers keep the window)."""
    return kv_bytes_per_token(model, kv_dtype) * kv_context_tokens(model, context_tokens)


# Memory sizes by configuration (usable_gb, kv_room_for_weights_gb, kv_bytes_per_sequence_per_gpu), shared across
# rankings as build_context's contexts are: a ranking sizes ~180 layouts, ~20 µs each with the card's bytes worked out
# three times over; the next ranking, whatever its lengths, sizes the same ones, and within one ranking a request's KV
# per GPU is the same for every card of a layout (profiled, speed11, 2026-12-07).
_ROOM_CACHE_SIZE = 4096


@lru_cache(maxsize=_ROOM_CACHE_SIZE)
def kv_bytes_per_sequence_per_gpu(
    model: ModelSpec,
    kv_dtype: str,
    context_tokens: float,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
) -> float:
    """Per-GPU KV cache of one sequence of `context_tokens` (the per-token share times kv_context_tokens)."""
    per_token = kv_bytes_per_token_per_gpu(model, kv_dtype, tensor_parallel, pipeline_parallel, attention_dp)
    return per_token * kv_context_tokens(model, context_tokens)


def reserve_gb(tensor_parallel: int) -> float:
    return RUNTIME_RESERVE_GB + (TP_RESERVE_GB if tensor_parallel > 1 else 0.0)


@lru_cache(maxsize=_ROOM_CACHE_SIZE)
def usable_gb(gpu: GpuSpec, tensor_parallel: int, engine: str = "vllm") -> float:
    """Memory per GPU the weights may fill: the engine's share of the card less the runtime reserve (vLLM,
    SGLang), or the whole card less the reserve where the KV cache is sized from what the weights leave
    (TensorRT-LLM)."""
    share = 1.0 if engine in KV_SHARE_OF_FREE else USABLE_MEMORY_FRACTION
    return card_gb(gpu) * share - reserve_gb(tensor_parallel)


def kv_room_gb(gpu: GpuSpec, tensor_parallel: int, weights_gb: float, engine: str = "vllm") -> float:
    """Memory per GPU the KV cache may fill beside `weights_gb` of weights (negative: the weights do not fit)."""
    room = usable_gb(gpu, tensor_parallel, engine) - weights_gb
    return room * KV_SHARE_OF_FREE.get(engine, 1.0) if room > 0 else room


@lru_cache(maxsize=_ROOM_CACHE_SIZE)
def kv_room_for_weights_gb(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    tensor_parallel: int,
    pipeline_parallel: int,
    attention_dp: int,
    engine: str,
) -> float:
    """kv_room_gb beside the weights one GPU holds in this layout (weight_bytes_per_gpu)."""
    weights = weight_bytes_per_gpu(model, weight_dtype, tensor_parallel, pipeline_parallel, attention_dp)
    return kv_room_gb(gpu, tensor_parallel, weights / GB, engine)


def max_sequences(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    context_tokens: float,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
    engine: str = "vllm",
) -> int:
    """Concurrent sequences whose KV at `context_tokens` fits after the weights (0 = weights do not fit)."""
    free_gb = kv_room_for_weights_gb(gpu, model, weight_dtype, tensor_parallel, pipeline_parallel, attention_dp, engine)
    if free_gb <= 0:
        return 0
    per_seq = kv_bytes_per_sequence_per_gpu(
        model, kv_dtype, max(context_tokens, 1.0), tensor_parallel, pipeline_parallel, attention_dp
    )
    return int(math.floor(free_gb * GB / per_seq))


def memory_breakdown_gb(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    context_tokens: float,
    batch: int,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
    engine: str = "vllm",
) -> dict[str, float]:
    """Per-GPU memory at the operating point: weights, KV cache, reserve (what the engine leaves unused) and
    capacity, in GB."""
    per_seq = kv_bytes_per_sequence_per_gpu(
        model, kv_dtype, context_tokens, tensor_parallel, pipeline_parallel, attention_dp
    )
    weights = weight_bytes_per_gpu(model, weight_dtype, tensor_parallel, pipeline_parallel, attention_dp)
    room = max(
        kv_room_for_weights_gb(gpu, model, weight_dtype, tensor_parallel, pipeline_parallel, attention_dp, engine), 0.0
    )
    left = max(usable_gb(gpu, tensor_parallel, engine) - weights / GB - room, 0.0)  # TensorRT-LLM's unused share
    return {
        "weights": round(weights / GB, 3),
        "kv_cache": round(per_seq * batch / GB, 3),
        "reserve": round(card_gb(gpu) - usable_gb(gpu, tensor_parallel, engine) + left, 3),
        "capacity": round(card_gb(gpu), 3),
    }


# Footprints before any KV cache, by configuration, shared across rankings as build_context's contexts are: a refused
# layout shows one, and a ranking refuses ~100 (Llama 70B) to ~230 (DeepSeek-R1, solved with and without
# data-parallel attention) layouts that the next ranking, whatever its lengths, refuses with the same footprints.
_FOOTPRINT_CACHE_SIZE = 4096


@lru_cache(maxsize=_FOOTPRINT_CACHE_SIZE)
def _footprint_gb(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    tensor_parallel: int,
    pipeline_parallel: int,
    attention_dp: int,
    engine: str,
) -> dict[str, float]:
    return memory_breakdown_gb(
        gpu, model, weight_dtype, kv_dtype, 0.0, 0, tensor_parallel, pipeline_parallel, attention_dp, engine
    )


def memory_at_batch_gb(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    context_tokens: float,
    batch: int,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
    engine: str = "vllm",
) -> dict[str, float]:
    """memory_breakdown_gb, its layout's parts (weights, reserve, capacity: no length or batch reads them) read from
    the layout's kept footprint and only the KV cache worked out: what an explained configuration shows (~20-35 a
    ranking, each a fresh batch and length)."""
    per_seq = kv_bytes_per_sequence_per_gpu(
        model, kv_dtype, context_tokens, tensor_parallel, pipeline_parallel, attention_dp
    )
    memory = dict(
        _footprint_gb(gpu, model, weight_dtype, kv_dtype, tensor_parallel, pipeline_parallel, attention_dp, engine)
    )
    memory["kv_cache"] = round(per_seq * batch / GB, 3)  # in memory_breakdown_gb's place: second
    return memory


def footprint_gb(
    gpu: GpuSpec,
    model: ModelSpec,
    weight_dtype: str,
    kv_dtype: str,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    attention_dp: int = 1,
    engine: str = "vllm",
) -> dict[str, float]:
    """memory_breakdown_gb with no request running (batch 0: no KV cache, whatever the lengths), what a refused
    configuration shows; a copy of the cached one, so a caller may keep or change its own."""
    return dict(
        _footprint_gb(gpu, model, weight_dtype, kv_dtype, tensor_parallel, pipeline_parallel, attention_dp, engine)
    )
