"""A setting that only means something beside another one is an error naming it when that other one is missing,
on the page, its JSON twin and the API alike: never echoed and ignored, never dropped without a word (the rule a
batch job outside max_throughput already followed)."""

from __future__ import annotations

import pytest

RANK = "/rank.json?phase=inference&model=llama-3.1-8b"
TRAIN = "/rank.json?phase=training&model=llama-3.1-8b"


def _only_error(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    return error  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        # echoed in the workload, the answer identical to the plain one
        ("&spec_draft_tokens=3", "spec_draft_tokens", "give spec_acceptance"),
        ("&spec_draft_tokens=3&spec_acceptance=0", "spec_draft_tokens", "give spec_acceptance"),
        # echoed as dp, run as tp: HF generate() has no data-parallel attention
        ("&engine=hf&attention_parallel=dp", "attention_parallel", "engine hf has no data-parallel attention"),
        ("&engine=llamacpp&attention_parallel=dp", "attention_parallel", "engine llamacpp has no"),
        # SGLang's prefill batches are its own; llama.cpp and HF batch statically
        ("&engine=sglang&max_num_batched_tokens=4096", "max_num_batched_tokens", "engine sglang has no per-step"),
        ("&engine=hf&max_num_batched_tokens=4096", "max_num_batched_tokens", "choose engine trtllm or vllm"),
        # a dense model has no experts to place
        ("&expert_parallel=ep", "expert_parallel", "Llama 3.1 8B is a dense model"),
        # settings the chosen engine has no such feature for, echoed and priced as if it had
        ("&engine=hf&prefix_cache_hit=0.5", "prefix_cache_hit", "engine hf keeps no prefix cache"),
        ("&beam_width=4&spec_acceptance=0.7", "spec_acceptance", "beam width 1 only"),
    ],
)
def test_an_inert_inference_setting_is_an_error_naming_it(client, query: str, field: str, words: str) -> None:
    error = _only_error(client.get(RANK + query))
    assert error["field"] == field and words in error["message"]
    page = client.get("/?" + (RANK + query).split("?", 1)[1])
    assert page.status_code == 422 and f'id="err-{field}"' in page.text


def test_the_settings_beside_what_they_need_still_answer(client) -> None:
    for query in (
        "&spec_draft_tokens=3&spec_acceptance=0.7",
        "&engine=sglang&attention_parallel=dp",
        "&engine=trtllm&max_num_batched_tokens=4096",
    ):
        assert client.get(RANK + query).status_code == 200, query
    moe = client.get("/rank.json?model=mixtral-8x7b&expert_parallel=ep")
    assert moe.status_code == 200
    for query in ("&engine=llamacpp&prefix_cache_hit=0.5", "&beam_width=4&spec_acceptance=0"):
        assert client.get(RANK + query).status_code == 200, query


def test_expert_parallelism_on_an_engine_without_it_is_an_error_naming_it(client) -> None:
    """llama.cpp splits by layer or row: EP on an MoE model had been echoed and priced as placed experts."""
    error = _only_error(client.get("/rank.json?model=mixtral-8x7b&engine=llamacpp&expert_parallel=ep"))
    assert error["field"] == "expert_parallel" and "engine llamacpp has no expert parallelism" in error["message"]
    assert client.get("/rank.json?model=mixtral-8x7b&engine=sglang&expert_parallel=ep").status_code == 200


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("&method=full_ft&lora_rank=64", "lora_rank", "method full_ft trains every weight"),
        ("&method=pretrain&lora_rank=8", "lora_rank", "method pretrain trains every weight"),
        ("&checkpoint_interval_hours=2", "checkpoint_interval_hours", "price_types has no spot"),
        ("&interruptions_per_node_month=3&price_types=on_demand", "interruptions_per_node_month", "add spot"),
    ],
)
def test_an_inert_training_setting_is_an_error_naming_it(client, query: str, field: str, words: str) -> None:
    error = _only_error(client.get(TRAIN + query))
    assert error["field"] == field and words in error["message"]


def test_training_settings_at_their_default_or_beside_what_they_need_answer(client) -> None:
    """The form shows the LoRA rank and checkpoint interval filled with their defaults: those are no choice."""
    for query in (
        "&method=full_ft&lora_rank=16",
        "&checkpoint_interval_hours=1",
        "&checkpoint_interval_hours=2&interruptions_per_node_month=3&price_types=spot",
    ):
        assert client.get(TRAIN + query).status_code == 200, query


def test_the_api_shares_the_rules(client) -> None:
    draft = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-8b", "spec_draft_tokens": 3})
    assert _only_error(draft)["field"] == "spec_draft_tokens"
    rank = client.post("/api/v1/rank/training", json={"model": "llama-3.1-8b", "method": "full_ft", "lora_rank": 64})
    assert _only_error(rank)["field"] == "lora_rank"


def test_a_catalog_model_beside_a_custom_one_is_an_error_not_the_custom_one(client) -> None:
    """The API answered for the custom architecture and dropped `model` without a word."""
    arch = {"params_b": 0.0085, "layers": 2, "hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 256}
    both = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-70b", "custom_model": arch})
    error = _only_error(both)
    assert error["field"] == "model" and "not both" in error["message"]
    assert client.post("/api/v1/rank/inference", json={"custom_model": arch}).status_code == 200


def test_a_plan_that_trains_another_model_than_it_serves_says_so_for_a_custom_served_model(client) -> None:
    """train_model beside a custom served model was dropped: the plan trained the custom model."""
    arch = (
        "arch_params_b=0.0085&arch_layers=2&arch_hidden_size=128&arch_num_attention_heads=2&arch_intermediate_size=256"
    )
    plan = client.get(f"/plan.json?model=custom&{arch}&months=12&train_model=llama-3.1-8b")
    assert plan.status_code == 422
    assert {e["field"] for e in plan.json()["detail"]} == {"train_model"}


@pytest.mark.parametrize("path", ["/precision", "/plan", "/disagg", "/mix"])
def test_a_serving_page_refuses_a_training_question_naming_phase(client, path: str) -> None:
    """/precision?phase=training redirected to an inference answer: the phase was dropped."""
    twin = client.get(f"{path}.json?phase=training&model=llama-3.1-70b")
    error = _only_error(twin)
    assert error["field"] == "phase" and "inference (serving) questions only" in error["message"]
    page = client.get(f"{path}?phase=training&model=llama-3.1-70b", follow_redirects=False)
    assert page.status_code == 422 and "inference (serving) questions only" in page.text
    ranking_link = client.get(f"{path}?phase=inference&model=llama-3.1-70b", follow_redirects=False)
    assert ranking_link.status_code == 303 and "phase" not in ranking_link.headers["location"]


@pytest.mark.parametrize("other", ["custom_model", "hf_config"])
def test_two_models_are_named_before_a_wrong_sized_custom_one(client, other) -> None:
    """`model` beside a custom_model whose params_b is far from its shape answered the params_b error, as though
    fixing params_b would be enough; the structural error comes first, naming both fields (found by leftovers7)."""
    arch = {"params_b": 70, "layers": 2, "hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 256}
    value = arch if other == "custom_model" else {"hidden_size": "wide"}  # an unreadable config.json
    error = _only_error(client.post("/api/v1/rank/inference", json={"model": "llama-3.1-70b", other: value}))
    assert error["field"] == "model" and "not both" in error["message"] and other in error["message"]
    alone = _only_error(client.post("/api/v1/rank/inference", json={"custom_model": arch}))
    assert alone["field"] == "custom_model.params_b"
