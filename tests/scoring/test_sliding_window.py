"""Sliding-window attention: KV memory, decode KV reads and attention FLOPs count min(context, window)
tokens on the sliding layers (gpt-oss-120b: 18 of 36 layers at window 128)."""

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import CAUSAL_ATTENTION_FACTOR, DEFAULT_EFFICIENCY
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.memory import (
    attended_tokens,
    kv_bytes_per_sequence,
    kv_bytes_per_sequence_per_gpu,
    kv_bytes_per_token,
    kv_context_tokens,
    max_sequences,
    memory_breakdown_gb,
    prefill_attended_tokens,
    sliding_share,
    usable_gb,
    weight_bytes,
)
from app.scoring.inference.step.steps import forward_parts, prefill_attention_flops

GPUS, MODELS = load_gpu_specs(), load_model_specs()
OSS = MODELS["gpt-oss-120b"]
OSS_FULL = replace(OSS, sliding_window=0, sliding_layers=0)  # the same model read as all full attention
KV_PER_TOKEN = 2 * 36 * 8 * 64 * 2  # K and V x layers x KV heads x head_dim x BF16 bytes = 73,728


def test_attended_tokens_average_full_and_windowed_layers():
    # (18 x 8192 + 18 x 128) / 36 = 4160
    assert attended_tokens(8192, 128, 0.5) == 4160
    assert attended_tokens(100, 128, 0.5) == 100  # inside the window every layer holds every token
    assert attended_tokens(8192, 4096, 1.0) == 4096  # every layer windowed
    assert attended_tokens(8192, 0, 0.5) == 8192 and attended_tokens(8192, 128, 0.0) == 8192


def test_gpt_oss_kv_per_sequence_counts_the_window_on_half_the_layers():
    assert sliding_share(OSS) == 0.5 and sliding_share(OSS_FULL) == 0.0
    assert kv_bytes_per_token(OSS, "bf16") == KV_PER_TOKEN  # per cached token: unchanged
    assert kv_context_tokens(OSS, 8192) == 4160
    assert kv_bytes_per_sequence(OSS, "bf16", 8192) == KV_PER_TOKEN * 4160
    assert kv_bytes_per_sequence(OSS_FULL, "bf16", 8192) == KV_PER_TOKEN * 8192
    # 8 KV heads over TP 2: half per GPU
    assert kv_bytes_per_sequence_per_gpu(OSS, "bf16", 8192, 2) == KV_PER_TOKEN * 4160 / 2


def test_sliding_window_holds_about_twice_the_sequences_at_8k():
    gpu = GPUS["H200"]
    free = usable_gb(gpu, 1) * 1e9 - weight_bytes(OSS, "fp4")  # 65.13 GB: 141 binary GB x 0.9 - 2 - 65.72 of weights
    swa = max_sequences(gpu, OSS, "fp4", "bf16", 8192, 1)
    full = max_sequences(gpu, OSS_FULL, "fp4", "bf16", 8192, 1)
    assert (swa, full) == (212, 107)  # 8192 / 4160 = 1.97x
    assert swa == int(free // (KV_PER_TOKEN * 4160)) and full == int(free // (KV_PER_TOKEN * 8192))
    # short contexts sit inside the window: no difference
    assert max_sequences(gpu, OSS, "fp4", "bf16", 100, 1) == max_sequences(gpu, OSS_FULL, "fp4", "bf16", 100, 1)


def test_memory_breakdown_counts_windowed_kv():
    gpu = GPUS["H200"]
    swa = memory_breakdown_gb(gpu, OSS, "fp4", "bf16", 8192, 100, 1)["kv_cache"]
    full = memory_breakdown_gb(gpu, OSS_FULL, "fp4", "bf16", 8192, 100, 1)["kv_cache"]
    assert swa == round(100 * KV_PER_TOKEN * 4160 / 1e9, 3) == 30.671
    assert full == round(100 * KV_PER_TOKEN * 8192 / 1e9, 3) == 60.398


def test_a_model_without_sliding_window_is_unchanged():
    model, gpu = MODELS["llama-3.1-8b"], GPUS["H100-SXM"]
    assert (model.sliding_window, model.sliding_layers) == (0, 0)
    per_token = kv_bytes_per_token(model, "bf16")
    assert per_token == 131_072  # 2 x 32 x 8 x 128 x 2
    assert kv_bytes_per_sequence(model, "bf16", 8192) == per_token * 8192
    free = usable_gb(gpu, 1) * 1e9 - weight_bytes(model, "bf16")
    assert max_sequences(gpu, model, "bf16", "bf16", 8192, 1) == int(free // (per_token * 8192)) == 53


def test_prefill_attention_drops_pairs_beyond_the_window():
    assert prefill_attended_tokens(100, 128, 0.5) == 100
    assert prefill_attended_tokens(8192, 0, 0.5) == 8192
    # sliding layers: n^2 - (n - w)^2 pairs (x 1/2); full layers n^2; averaged over the layers
    n, w = 8192, 128
    assert prefill_attended_tokens(n, w, 0.5) * n == pytest.approx((n * n + (n * n - (n - w) ** 2)) / 2)
    swa = build_context(GPUS["H100-SXM"], OSS, "fp4", "bf16", "vllm", 1)
    full = build_context(GPUS["H100-SXM"], OSS_FULL, "fp4", "bf16", "vllm", 1)
    assert prefill_attention_flops(full, 1, n) == CAUSAL_ATTENTION_FACTOR * full.attention_flops_per_token_ctx * n * n
    assert prefill_attention_flops(swa, 1, n) == pytest.approx(
        prefill_attention_flops(full, 1, n) * (1 - 0.5 * (n - w) ** 2 / n**2)
    )


def test_decode_kv_read_and_attention_flops_use_the_attended_context():
    gpu, eff = GPUS["H100-SXM"], DEFAULT_EFFICIENCY
    swa = build_context(gpu, OSS, "fp4", "bf16", "vllm", 1)
    full = build_context(gpu, OSS_FULL, "fp4", "bf16", "vllm", 1)
    assert (swa.sliding_window, swa.sliding_share) == (128, 0.5) and full.sliding_share == 0.0
    step, base = forward_parts(swa, eff, 16, 8192), forward_parts(full, eff, 16, 8192)
    assert step.kv_bytes == 16 * KV_PER_TOKEN * 4160 and base.kv_bytes == 16 * KV_PER_TOKEN * 8192
    gemm_flops = 16 * swa.flops_per_token
    assert step.flops - gemm_flops == pytest.approx(16 * swa.attention_flops_per_token_ctx * 4160)
    assert base.flops - gemm_flops == pytest.approx(16 * full.attention_flops_per_token_ctx * 8192)
    assert step.total_ms < base.total_ms
    # inside the window the two are the same step
    assert forward_parts(swa, eff, 16, 100) == forward_parts(full, eff, 16, 100)
