"""LoRA on a mixture of experts adapts what PEFT's all-linear adapts: attention, every routed expert's own gate/up/down,
shared experts and the router (memory.lora_adapter_params), and the estimate says so with the count."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.memory import Layout, lora_adapter_params, model_state_bytes
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def test_mixtral_8x7b_adapts_its_8_experts_and_router_on_every_layer():
    h, q, kv, expert = 4096, 32 * 128, 8 * 128, 14336
    attention = (h + q) + 2 * (h + kv) + (q + h)  # q, k, v, o
    experts = 8 * 3 * (h + expert)  # w1, w3, w2 of each of 8 experts
    router = h + 8
    assert lora_adapter_params(MODELS["mixtral-8x7b"], 16) == 16 * 32 * (attention + experts + router) == 242_225_152


def test_deepseek_v3_adapts_dense_mlps_on_its_3_dense_layers_and_experts_on_its_58():
    h = 7168
    attention = 4 * (h + 128 * 192)  # q, k, v, o at heads x head_dim (the catalog's MLA shape)
    dense_mlp = 3 * (h + 18432)
    moe = 256 * 3 * (h + 2048) + 3 * (h + 2048) + (h + 256)  # routed, 1 shared, router
    expected = 16 * (61 * attention + 3 * dense_mlp + 58 * moe)
    assert lora_adapter_params(MODELS["deepseek-v3"], 16) == expected == 6_728_441_856


def test_a_dense_models_adapter_count_is_attention_and_mlp_on_every_layer():
    h, q, kv, ffn = 4096, 32 * 128, 8 * 128, 14336
    per_layer = (h + q) + 2 * (h + kv) + (q + h) + 3 * (h + ffn)
    assert lora_adapter_params(MODELS["llama-3.1-8b"], 16) == 16 * 32 * per_layer == 41_943_040


def test_a_moe_loras_trained_states_hold_every_experts_adapters():
    mixtral = MODELS["mixtral-8x7b"]
    base, trained = mixtral.params_b * 1e9 * 2, 242_225_152 * 16  # bf16 base; mixed-precision AdamW on the adapters
    assert model_state_bytes(mixtral, "lora", Layout(zero_stage=0), 1, 16) == pytest.approx(base + trained)


def test_a_moe_lora_estimate_states_what_it_adapts_and_how_many():
    w = TrainingWorkload(model="mixtral-8x7b", method="lora", lora_rank=16, seq_len=4096, global_batch_seqs=16)
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["mixtral-8x7b"], w)
    [note] = [a for a in est.assumptions if a.startswith("LoRA rank 16")]
    assert "every routed expert's gate/up/down" in note and "242.2 M trainable parameters" in note
    assert "gpt-oss and Llama 4" in note and "upper bound" in note
    dense = TrainingWorkload(model="llama-3.1-8b", method="lora", lora_rank=16)
    [plain] = [
        a
        for a in estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], dense).assumptions
        if a.startswith("LoRA rank 16")
    ]
    assert plain == "LoRA rank 16 on all linear layers (41.9 M trainable parameters); FLOPs 4 × params per token"
