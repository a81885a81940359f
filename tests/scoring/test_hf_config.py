"""Parameter counts from Hugging Face config.json dicts (values from shared/reference/models.csv)."""

import pytest

from app.scoring.hf_config.model_spec import model_spec_from_hf_config

LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "rms_norm_eps": 1e-05,
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
}
LLAMA_31_70B = {
    **LLAMA_31_8B,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
}
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"],
    "model_type": "mixtral",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 32000,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "max_position_embeddings": 32768,
    "tie_word_embeddings": False,
    "rms_norm_eps": 1e-05,
}
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "moe_layer_freq": 1,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "tie_word_embeddings": False,
    "topk_method": "noaux_tc",
    "num_nextn_predict_layers": 1,
}
QWEN3_235B = {
    "model_type": "qwen3_moe",
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "num_hidden_layers": 94,
    "num_attention_heads": 64,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": False,
}
GPT_OSS_120B = {
    "model_type": "gpt_oss",
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "experts_per_token": 4,
    "vocab_size": 201088,
    "attention_bias": True,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}
GPT_J_6B = {
    "model_type": "gptj",
    "n_embd": 4096,
    "n_layer": 28,
    "n_head": 16,
    "n_inner": None,
    "vocab_size": 50400,
    "n_positions": 2048,
    "rotary_dim": 64,
    "tie_word_embeddings": False,
}
FALCON_7B = {
    "model_type": "falcon",
    "hidden_size": 4544,
    "num_hidden_layers": 32,
    "num_attention_heads": 71,
    "multi_query": True,
    "parallel_attn": True,
    "bias": False,
    "new_decoder_architecture": False,
    "vocab_size": 65024,
}


def close(value: float, expected: float, tolerance: float) -> bool:
    return abs(value - expected) <= tolerance * expected


def test_llama_31_8b() -> None:
    spec = model_spec_from_hf_config(LLAMA_31_8B, "llama-3.1-8b")
    assert close(spec.params_b, 8.03, 0.01)
    assert spec.active_params_b == spec.params_b
    assert (spec.attention, spec.num_kv_heads, spec.head_dim, spec.max_context) == ("gqa", 8, 128, 131072)
    assert not spec.is_moe


def test_llama_31_70b() -> None:
    spec = model_spec_from_hf_config(LLAMA_31_70B)
    assert close(spec.params_b, 70.55, 0.01)
    assert spec.id == "custom"


def test_mixtral_8x7b() -> None:
    spec = model_spec_from_hf_config(MIXTRAL_8X7B, "mixtral-8x7b")
    assert close(spec.params_b, 46.7, 0.01)
    assert close(spec.active_params_b, 12.9, 0.01)
    assert (spec.num_experts, spec.experts_per_token, spec.moe_intermediate_size) == (8, 2, 14336)


def test_deepseek_v3_mla() -> None:
    spec = model_spec_from_hf_config(DEEPSEEK_V3, "deepseek-v3")
    assert close(spec.params_b, 671, 0.03)
    assert close(spec.active_params_b, 37, 0.03)
    assert (spec.attention, spec.kv_lora_rank, spec.qk_rope_head_dim, spec.head_dim) == ("mla", 512, 64, 192)
    assert (spec.num_experts, spec.num_shared_experts, spec.experts_per_token) == (256, 1, 8)


def test_qwen3_moe_and_gpt_oss() -> None:
    qwen = model_spec_from_hf_config(QWEN3_235B)
    assert close(qwen.params_b, 235.1, 0.01) and close(qwen.active_params_b, 22.2, 0.02)
    oss = model_spec_from_hf_config(GPT_OSS_120B)
    assert close(oss.params_b, 116.83, 0.01)
    # OpenAI's 5.13B active leaves out the input embedding (201088 x 2880 = 0.58B); we count it, as Mixtral's
    # 12.9B and DeepSeek-V3's 37B do.
    assert close(oss.active_params_b, 5.13 + 0.579, 0.02)


def test_gpt_j_and_falcon_key_names() -> None:
    gptj = model_spec_from_hf_config(GPT_J_6B)
    assert close(gptj.params_b, 6.05, 0.01)
    assert (gptj.hidden_size, gptj.layers, gptj.intermediate_size, gptj.attention) == (4096, 28, 16384, "mha")
    falcon = model_spec_from_hf_config(FALCON_7B)
    assert close(falcon.params_b, 6.92, 0.01)
    assert falcon.num_kv_heads == 1


def test_missing_hidden_size_names_the_key() -> None:
    config = {k: v for k, v in LLAMA_31_8B.items() if k != "hidden_size"}
    with pytest.raises(ValueError, match="hidden_size"):
        model_spec_from_hf_config(config)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("num_hidden_layers", 0),
        ("num_attention_heads", "32"),
        ("vocab_size", True),
        ("num_key_value_heads", 64),
    ],
)
def test_invalid_values_name_the_key(key: str, value: object) -> None:
    with pytest.raises(ValueError, match=key):
        model_spec_from_hf_config({**LLAMA_31_8B, key: value})


def test_moe_without_top_k_names_the_key() -> None:
    config = {k: v for k, v in MIXTRAL_8X7B.items() if k != "num_experts_per_tok"}
    with pytest.raises(ValueError, match="num_experts_per_tok"):
        model_spec_from_hf_config(config)


CAPPED_KEYS = ["num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size", "intermediate_size", "head_dim"]


@pytest.mark.parametrize("key", CAPPED_KEYS)
@pytest.mark.parametrize("value", [10**8, 10**30, 1e20, 1e300, float("inf"), float("-inf"), float("nan")])
def test_huge_and_non_finite_integers_are_refused_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(ValueError, match=key):
        model_spec_from_hf_config({**LLAMA_31_8B, key: value})


def test_non_integer_float_is_refused() -> None:
    with pytest.raises(ValueError, match="num_hidden_layers.*integer"):
        model_spec_from_hf_config({**LLAMA_31_8B, "num_hidden_layers": 32.5})


def test_caps_match_the_typed_custom_model() -> None:
    from app.scoring.hf_config.keys import max_value
    from app.scoring.workload import ModelArchitecture

    fields = ModelArchitecture.model_fields
    assert max_value("num_hidden_layers") == fields["layers"].metadata[-1].le == 1_000
    assert max_value("n_embd") == 131_072
    config = {**LLAMA_31_8B, "num_hidden_layers": 1_000}
    assert model_spec_from_hf_config(config).layers == 1_000
    with pytest.raises(ValueError, match="at most 1,000"):
        model_spec_from_hf_config({**LLAMA_31_8B, "num_hidden_layers": 1_001})


def test_derived_parameter_count_is_bounded_like_a_custom_model() -> None:
    worst = {**LLAMA_31_8B, "num_hidden_layers": 1_000, "hidden_size": 131_072, "intermediate_size": 1_048_576}
    with pytest.raises(ValueError, match="params_b"):
        model_spec_from_hf_config(worst)


@pytest.mark.parametrize("listed", [[-1], [94], ["3"], [1.5], list(range(95)), "0,1"])
def test_mlp_only_layers_must_be_layer_indices(listed: object) -> None:
    config = {**QWEN3_235B, "mlp_only_layers": listed}
    with pytest.raises(ValueError, match="mlp_only_layers"):
        model_spec_from_hf_config(config)


def test_worst_allowed_moe_schedule_is_linear_in_layers() -> None:
    """The worst allowed input: every layer listed dense but one; one set lookup per layer (was a list scan)."""
    from app.scoring.hf_config import param_count

    layers = 1_000
    config = {**QWEN3_235B, "num_hidden_layers": layers, "mlp_only_layers": list(range(1, layers))}
    lookups = []

    class CountingSet(set):  # type: ignore[type-arg]
        def __contains__(self, item: object) -> bool:
            lookups.append(item)
            return super().__contains__(item)

    original = param_count._mlp_only_layers
    param_count._mlp_only_layers = lambda c, n: CountingSet(original(c, n))  # type: ignore[assignment]
    try:
        schedule = param_count.moe_schedule(config, layers, 128)
    finally:
        param_count._mlp_only_layers = original  # type: ignore[assignment]
    assert sum(schedule) == 1 and len(lookups) <= layers
