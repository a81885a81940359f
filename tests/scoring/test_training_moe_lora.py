"""LoRA adapts what PEFT's all-linear adapts on the model's own module layout (training.layouts.lora_adapters):
attention (MLA's five projections where its sizes are known), every routed expert's own gate/up/down unless the
experts are fused parameter tensors (gpt-oss, Llama 4), shared experts and the router unless it too is a parameter
(gpt-oss); the estimate says which, with the count."""

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.lora_adapters import attention_adapter_width, lora_adapter_params
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def lora_note(model_id: str) -> str:
    w = TrainingWorkload(model=model_id, method="lora", lora_rank=16, seq_len=4096, global_batch_seqs=16)
    [note] = [a for a in estimate_training(GPUS["H100-SXM"], 8, MODELS[model_id], w).assumptions if "LoRA rank" in a]
    return note


def test_mixtral_8x7b_adapts_its_8_experts_and_router_on_every_layer():
    h, q, kv, expert = 4096, 32 * 128, 8 * 128, 14336
    attention = (h + q) + 2 * (h + kv) + (q + h)  # q, k, v, o
    experts = 8 * 3 * (h + expert)  # w1, w3, w2 of each of 8 experts
    router = h + 8
    assert lora_adapter_params(MODELS["mixtral-8x7b"], 16) == 16 * 32 * (attention + experts + router) == 242_225_152


def test_deepseek_v3_adapts_mla_projections_dense_mlps_on_3_layers_and_experts_on_58():
    h = 7168
    q_a, q_b = h + 1536, 1536 + 128 * (128 + 64)
    kv_a, kv_b = h + 512 + 64, 512 + 128 * (128 + 128)
    o = 128 * 128 + h
    attention = q_a + q_b + kv_a + kv_b + o
    assert attention == attention_adapter_width(MODELS["deepseek-v3"]) == 99_392
    dense_mlp = 3 * (h + 18432)
    moe = 256 * 3 * (h + 2048) + 3 * (h + 2048) + (h + 256)  # routed, 1 shared, router
    expected = 16 * (61 * attention + 3 * dense_mlp + 58 * moe)
    assert lora_adapter_params(MODELS["deepseek-v3"], 16) == expected == 6_701_519_872


def test_mla_attention_was_counted_28_pct_high_at_heads_times_head_dim():
    v3 = MODELS["deepseek-v3"]
    as_gqa = attention_adapter_width(replace(v3, qk_nope_head_dim=0))  # sizes not known: heads x head_dim
    assert as_gqa == 4 * (7168 + 128 * 192) == 126_976
    assert as_gqa / attention_adapter_width(v3) == pytest.approx(1.2775, abs=1e-4)


def test_mla_without_a_query_latent_adapts_one_q_proj():
    lite = replace(MODELS["deepseek-v3"], q_lora_rank=0)  # DeepSeek-V2-Lite's config: q_lora_rank null
    q = 7168 + 128 * 192
    assert attention_adapter_width(lite) == q + (7168 + 576) + (512 + 128 * 256) + (128 * 128 + 7168)


def test_gpt_oss_20b_adapts_attention_only():
    h, q, kv = 2880, 64 * 64, 8 * 64
    attention = (h + q) + 2 * (h + kv) + (q + h)
    assert lora_adapter_params(MODELS["gpt-oss-20b"], 16) == 16 * 24 * attention == 7_962_624
    # the cookbook's r 8 count without its six target_parameters adapters (every layer's q, k, v, o; no router)
    assert lora_adapter_params(MODELS["gpt-oss-20b"], 8) == 15_040_512 - 3 * (8 * 32 * (2880 + 5760) + 8 * 32 * 5760)


def test_gpt_oss_20b_lora_no_longer_holds_adam_states_for_its_experts():
    oss = MODELS["gpt-oss-20b"]
    unfused = replace(oss, experts_fused=False, router_fused=False)  # the count before the layout was read
    saved = model_state_bytes(unfused, "lora", Layout(zero_stage=0), 1, 16) - model_state_bytes(
        oss, "lora", Layout(zero_stage=0), 1, 16
    )
    assert saved == pytest.approx(16 * 24 * (32 * 3 * (2880 + 2880) + 2880 + 32) * 16)  # 3.4 GB of adapter states
    assert saved / 1e9 == pytest.approx(3.42, abs=0.01)


def test_llama_4_adapts_attention_dense_mlps_shared_expert_and_router_not_the_routed_experts():
    h, q, kv = 5120, 40 * 128, 8 * 128
    attention = (h + q) + 2 * (h + kv) + (q + h)
    shared, dense_mlp = 3 * (h + 8192), 3 * (h + 16384)
    assert lora_adapter_params(MODELS["llama-4-scout"], 16) == 16 * 48 * (attention + shared + h + 16) == 59_781_120
    maverick = 16 * (48 * attention + 24 * dense_mlp + 24 * (shared + h + 128))
    assert lora_adapter_params(MODELS["llama-4-maverick"], 16) == maverick


def test_a_dense_models_adapter_count_is_attention_and_mlp_on_every_layer():
    h, q, kv, ffn = 4096, 32 * 128, 8 * 128, 14336
    per_layer = (h + q) + 2 * (h + kv) + (q + h) + 3 * (h + ffn)
    assert lora_adapter_params(MODELS["llama-3.1-8b"], 16) == 16 * 32 * per_layer == 41_943_040


def test_a_moe_loras_trained_states_hold_every_experts_adapters():
    mixtral = MODELS["mixtral-8x7b"]
    base, trained = mixtral.params_b * 1e9 * 2, 242_225_152 * 16  # bf16 base; mixed-precision AdamW on the adapters
    assert model_state_bytes(mixtral, "lora", Layout(zero_stage=0), 1, 16) == pytest.approx(base + trained)


def test_each_lora_estimate_states_what_it_adapts_and_how_many():
    mixtral = lora_note("mixtral-8x7b")
    assert "every routed expert's gate/up/down" in mixtral and "242.2 M trainable parameters" in mixtral
    assert "upper bound" not in mixtral
    oss = lora_note("gpt-oss-20b")
    assert "attention only (8.0 M trainable parameters)" in oss and "routed experts and router are parameter" in oss
    scout = lora_note("llama-4-scout")
    assert "attention, the shared expert and the router (59.8 M" in scout and "routed experts are parameter" in scout
    v3 = lora_note("deepseek-v3")
    assert "MLA's q_a/q_b, kv_a/kv_b and o projections, the 3 dense layers' MLP" in v3 and "6,701.5 M" in v3
    assert lora_note("llama-3.1-8b") == (
        "LoRA rank 16 on all linear layers (41.9 M trainable parameters); FLOPs 4 × params per token"
    )
