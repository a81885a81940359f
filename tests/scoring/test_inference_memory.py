"""Hand-computed memory formulas."""

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.memory import kv_bytes_per_token, kv_bytes_per_token_per_gpu, max_sequences, weight_bytes
from app.scoring.inference.steps import expert_coverage

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_llama_31_70b_bf16_kv_is_327680_bytes_per_token():
    assert kv_bytes_per_token(MODELS["llama-3.1-70b"], "bf16") == 327_680  # 2 x 80 x 8 x 128 x 2


def test_kv_per_gpu_splits_heads_then_replicates():
    model = MODELS["llama-3.1-70b"]
    assert kv_bytes_per_token_per_gpu(model, "bf16", 4) == 327_680 / 4
    assert kv_bytes_per_token_per_gpu(model, "bf16", 16) == 327_680 / 8  # 8 KV heads: replicated past TP8


def test_mla_kv_uses_latent_rank_plus_rope_key():
    model = MODELS["deepseek-v3"]
    assert kv_bytes_per_token(model, "bf16") == 61 * (512 + 64) * 2


def test_weight_bytes_by_dtype():
    model = MODELS["llama-3.1-8b"]
    assert abs(weight_bytes(model, "bf16") - 16.06e9) < 1
    assert abs(weight_bytes(model, "fp8") - 8.03e9) < 1
    assert abs(weight_bytes(model, "int4") - 8.03e9 * 0.5625) < 1  # Q4_0: 18 B per 32 weights


def test_moe_expert_coverage():
    assert expert_coverage(0.25, 1) == 0.25
    assert abs(expert_coverage(0.25, 2) - (1 - 0.75**2)) < 1e-12
    assert expert_coverage(0.25, 1000) > 0.999
    assert expert_coverage(0.0, 10) == 0.0


@given(st.integers(100, 100_000), st.integers(1, 100_000))
def test_fewer_sequences_fit_as_context_grows(short, extra):
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    longer = max_sequences(gpu, model, "bf16", "bf16", short + extra, 1)
    assert longer <= max_sequences(gpu, model, "bf16", "bf16", short, 1)


def test_weights_that_do_not_fit_leave_no_sequences():
    assert max_sequences(GPUS["H100-SXM"], MODELS["llama-3.1-70b"], "bf16", "bf16", 1000, 1) == 0
    small = replace(GPUS["H100-SXM"], memory_gb=200.0)
    assert max_sequences(small, MODELS["llama-3.1-70b"], "bf16", "bf16", 1000, 1) > 0
