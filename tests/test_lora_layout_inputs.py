"""MLA's projection sizes and fused experts reach a custom model: a pasted config.json fills them, a typed
custom_model gives them, and a bad value is a 422 naming the field (API and page)."""

from __future__ import annotations

import json

import pytest

from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from tests.scoring.test_hf_config import DEEPSEEK_V3, GPT_OSS_120B, MIXTRAL_8X7B
from tests.test_rank_api import MAVERICK_SHAPE, TRAINING

LLAMA_4_SCOUT = {  # the multimodal wrapper, its LM under text_config
    "model_type": "llama4",
    "text_config": {
        "model_type": "llama4_text",
        "hidden_size": 5120,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_hidden_layers": 48,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 1,
        "vocab_size": 202048,
    },
}
DEEPSEEK_V3_SHAPE = {
    "params_b": 671,
    "active_params_b": 37,
    "layers": 61,
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "head_dim": 192,
    "intermediate_size": 18432,
    "vocab_size": 129280,
    "num_experts": 256,
    "experts_per_token": 8,
    "moe_intermediate_size": 2048,
    "num_shared_experts": 1,
    "moe_layers": 58,
    "attention": "mla",
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
}


def test_a_pasted_deepseek_v3_config_gives_every_mla_size():
    spec = model_spec_from_hf_config(DEEPSEEK_V3)
    assert (spec.q_lora_rank, spec.qk_nope_head_dim, spec.qk_rope_head_dim, spec.v_head_dim) == (1536, 128, 64, 128)
    assert spec.mla_projections_known and not spec.experts_fused


def test_a_pasted_config_marks_fused_experts_by_model_type():
    oss, scout = model_spec_from_hf_config(GPT_OSS_120B), model_spec_from_hf_config(LLAMA_4_SCOUT)
    mixtral = model_spec_from_hf_config(MIXTRAL_8X7B)
    assert (oss.experts_fused, oss.router_fused) == (True, True)
    assert (scout.experts_fused, scout.router_fused) == (True, False)  # Llama4Router is an nn.Linear
    assert (mixtral.experts_fused, mixtral.router_fused, mixtral.q_lora_rank) == (False, False, 0)


def test_a_typed_custom_model_carries_its_mla_sizes_and_fused_experts(client):
    arch = {**DEEPSEEK_V3_SHAPE, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "v_head_dim": 128}
    body = client.post("/api/v1/rank/training", json={**TRAINING, "model": None, "custom_model": arch}).json()
    assert (body["model"]["q_lora_rank"], body["model"]["qk_nope_head_dim"], body["model"]["v_head_dim"]) == (
        1536,
        128,
        128,
    )
    fused = {**MAVERICK_SHAPE, "moe_layers": 24, "experts_fused": True}
    body = client.post("/api/v1/rank/training", json={**TRAINING, "model": None, "custom_model": fused}).json()
    assert body["model"]["experts_fused"] is True and body["model"]["router_fused"] is False


@pytest.mark.parametrize(
    ("arch", "field", "words"),
    [
        ({**DEEPSEEK_V3_SHAPE, "qk_nope_head_dim": 96}, "qk_nope_head_dim", "head_dim, 192"),
        ({**MAVERICK_SHAPE, "v_head_dim": 128}, "v_head_dim", "attention mla"),
        ({**MAVERICK_SHAPE, "q_lora_rank": -1}, "q_lora_rank", "must be at least 0"),
        ({**MAVERICK_SHAPE, "num_experts": 0, "experts_per_token": 0, "experts_fused": True}, "experts_fused", "need"),
        ({**MAVERICK_SHAPE, "router_fused": 2}, "router_fused", "boolean"),
    ],
)
def test_a_bad_lora_layout_value_is_a_422_naming_the_field(client, arch, field, words):
    response = client.post("/api/v1/rank/training", json={**TRAINING, "model": None, "custom_model": arch})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == f"custom_model.{field}" and words in error["message"], error


def test_the_page_reads_a_pasted_gpt_oss_config_into_its_fields_and_names_a_bad_one(client):
    response = client.get(
        "/",
        params={"phase": "training", "model": "custom", "hf_config_json": json.dumps(GPT_OSS_120B)},
        follow_redirects=False,
    )
    location = response.headers["location"]
    assert response.status_code == 303
    assert "arch_experts_fused=true" in location and "arch_router_fused=true" in location
    page = client.get(location)
    assert page.status_code == 200 and 'name="arch_experts_fused" value="true" checked' in page.text
    bad = client.get(location + "&arch_v_head_dim=64")
    assert bad.status_code == 422 and 'id="err-arch_v_head_dim"' in bad.text and "attention mla" in bad.text
