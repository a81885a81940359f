"""A custom architecture that no model has is a 422 naming the field and the rule; tensor parallelism splits
attention only where the heads divide, in the rankings and the estimate API alike."""

from __future__ import annotations

import pytest

DENSE_8B = {"params_b": 8, "layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336}


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"active_params_b": 500}, "active_params_b", "cannot exceed the total"),
        ({"num_experts": 8, "experts_per_token": 0}, "experts_per_token", "at least 1 expert"),
        ({"attention": "mha", "num_kv_heads": 8}, "attention", "use gqa"),
        ({"num_kv_heads": 5}, "num_kv_heads", "must divide num_attention_heads (32)"),
    ],
)
def test_an_inconsistent_custom_model_is_a_field_error(client, changes, field, words):
    response = client.post("/api/v1/rank/inference", json={"custom_model": {**DENSE_8B, **changes}})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == f"custom_model.{field}" and words in error["message"]


def test_consistent_custom_models_still_rank(client):
    for changes in ({"num_kv_heads": 8}, {"attention": "mha", "num_kv_heads": 32}, {"active_params_b": 8}):
        response = client.post("/api/v1/rank/inference?limit=1", json={"custom_model": {**DENSE_8B, **changes}})
        assert response.status_code == 200, changes


def test_a_pasted_config_whose_kv_heads_do_not_divide_the_heads_is_refused(client):
    config = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 5}
    response = client.post("/api/v1/rank/inference", json={"hf_config": {**config, "vocab_size": 32000}})
    assert response.status_code == 422 and "does not divide" in response.json()["detail"][0]["message"]


def test_the_estimate_api_refuses_a_tensor_parallel_that_does_not_divide_the_heads(client):
    body = {"model": "llama-3.1-8b", "gpu": "H100-SXM", "gpu_count": 3}
    answer = client.post("/api/v1/estimate/inference", json=body).json()
    assert not answer["feasible"]
    assert answer["reason"] == "tensor parallel 3 does not divide the model's 32 attention heads"
    assert client.post("/api/v1/estimate/inference", json={**body, "gpu_count": 4}).json()["feasible"]


@pytest.mark.parametrize(
    ("model", "gpu_count", "reason"),
    [
        ("qwen2.5-7b", 8, "tensor parallel 8 does not divide the model's 28 attention heads"),
        ("phi-4", 4, "tensor parallel 4 neither divides the model's 10 KV heads nor is a multiple of them"),
    ],
)
def test_heads_split_by_tensor_parallel_must_divide_but_data_parallel_attention_splits_none(
    client, model, gpu_count, reason
):
    body = {"model": model, "gpu": "H100-SXM", "gpu_count": gpu_count, "attention_parallel": "tp"}
    answer = client.post("/api/v1/estimate/inference", json=body).json()
    assert not answer["feasible"] and answer["reason"] == reason
    assert client.post("/api/v1/estimate/inference", json={**body, "attention_parallel": "dp"}).json()["feasible"]


def test_the_estimate_api_refuses_more_pipeline_stages_than_layers(client):
    body = {"model": "llama-3.2-1b", "gpu": "GB200", "gpu_count": 32, "pipeline_parallel": 32, "tpot_ms": 1000}
    answer = client.post("/api/v1/estimate/inference", json=body).json()
    assert not answer["feasible"]
    assert answer["reason"] == "pipeline parallel 32 is more than the model's 16 layers"
    assert client.post("/api/v1/estimate/inference", json={**body, "gpu_count": 16, "pipeline_parallel": 16}).json()[
        "feasible"
    ]


@pytest.mark.parametrize("kind", ["inference", "training"])
def test_an_estimate_beyond_one_machine_without_an_offer_says_to_give_one(client, kind):
    body = {"model": "llama-3.2-1b", "gpu": "H100-SXM", "gpu_count": 16}
    body |= {"pipeline_parallel": 16} if kind == "inference" else {}
    answer = client.post(f"/api/v1/estimate/{kind}", json=body).json()
    assert not answer["feasible"]
    assert answer["reason"] == (
        "16 GPUs span nodes of 8: without an offer_id the estimate assumes one 8-GPU node (nvlink) with no "
        "inter-node fabric; give the offer_id of an offer with one"
    )
