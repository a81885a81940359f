"""The GPU mix of a custom model: a pasted config.json or arch_* fields (custom_model / hf_config in JSON), as the
ranking, /plan, /disagg and /precision take one. /mix used to take catalog ids only (its API answered 422)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from tests.form_submit import form_items
from tests.scoring.test_params_check import LLAMA_70B_SHAPE
from tests.test_fuzz_edges import LLAMA_8B

# A 70B-class architecture (Llama 3.1 70B's shape) under its own name.
BIG = {"name": "our-70b", "params_b": 70.6, **LLAMA_70B_SHAPE}
TINY_ARCH = {
    "model": "custom",
    "arch_name": "tiny-gqa",
    "arch_params_b": "7",
    "arch_layers": "32",
    "arch_hidden_size": "4096",
    "arch_num_attention_heads": "32",
    "arch_num_kv_heads": "8",
    "arch_intermediate_size": "11008",
}


def _fleet(body: dict) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(row["replica"], row["replicas"]) for row in body["mix"]["rows"]]


@pytest.fixture(scope="module")
def pasted(client: TestClient) -> dict:  # type: ignore[type-arg]
    response = client.post("/api/v1/mix", json={"hf_config": LLAMA_8B, "requests_per_day": 500_000})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_api_mix_of_a_pasted_config_json_plans_for_that_custom_model(pasted: dict) -> None:  # type: ignore[type-arg]
    assert pasted["model"]["id"] == "custom" and pasted["model"]["params_b"] == pytest.approx(8.03, abs=0.01)
    assert pasted["question"]["model"] is None and pasted["question"]["hf_config"]["hidden_size"] == 4096
    assert pasted["mix"]["usd_per_month"] > 0 and pasted["best_single"] is not None


def test_the_share_link_of_a_pasted_config_carries_the_architecture_and_asks_the_same(
    client: TestClient,
    pasted: dict,  # type: ignore[type-arg]
) -> None:
    share = pasted["share_url"]
    assert share.startswith("/mix?model=custom&mix=chat:0.5,rag:0.5&requests_per_day=500000&")
    assert "arch_hidden_size=4096" in share and "arch_num_kv_heads=8" in share and "arch_max_context=131072" in share
    twin = client.get(share.replace("/mix?", "/mix.json?"))
    assert twin.status_code == 200 and twin.json()["share_url"] == share
    assert twin.json()["mix"] == pasted["mix"] and twin.json()["best_single"] == pasted["best_single"]
    page = client.get(share, follow_redirects=False)
    assert page.status_code == 200  # already canonical: no redirect
    assert "Cheapest mix:" in page.text and f"{pasted['mix']['usd_per_month']:,.0f}/month" in page.text


def test_api_mix_of_a_custom_model_names_it_and_its_link_round_trips(client: TestClient) -> None:
    body = client.post("/api/v1/mix", json={"custom_model": BIG, "weight_dtype": "fp8"}).json()
    assert body["model"] == {"id": "custom", "name": "our-70b", "params_b": 70.6}
    catalog = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "weight_dtype": "fp8"}).json()
    assert body["mix"]["usd_per_month"] > catalog["mix"]["usd_per_month"]  # a 70B costs more than the default 8B
    share = body["share_url"]
    assert "model=custom" in share and "arch_name=our-70b" in share and "arch_layers=80" in share
    twin = client.get(share.replace("/mix?", "/mix.json?")).json()
    assert twin["model"] == body["model"] and _fleet(twin) == _fleet(body)
    assert twin["mix"]["usd_per_month"] == body["mix"]["usd_per_month"]


@pytest.mark.parametrize(
    ("body", "field", "needle"),
    [
        ({"hf_config": {**LLAMA_8B, "hidden_size": "wide"}}, "hf_config", "could not read this config.json"),
        ({"hf_config": {**LLAMA_8B, "num_attention_heads": 0}}, "hf_config", "could not read this config.json"),
        ({"custom_model": {**BIG, "num_kv_heads": 7}}, "custom_model.num_kv_heads", "must divide"),
        ({"model": "llama-3.1-8b", "hf_config": LLAMA_8B}, "model", "not both"),
        ({"custom_model": BIG, "hf_config": LLAMA_8B}, "hf_config", "not both"),
        ({"custom_model": {**BIG, "max_context": 4096}}, "mix", "bucket rag"),  # rag's 7,590-token prompts
    ],
)
def test_a_custom_model_the_mix_cannot_read_is_a_422_naming_the_field(
    client: TestClient,
    body: dict,  # type: ignore[type-arg]
    field: str,
    needle: str,
) -> None:
    response = client.post("/api/v1/mix", json=body)
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["field"] == field and needle in detail["message"]


def test_mix_page_of_arch_fields_renders_the_plan_and_refills_the_form(client: TestClient) -> None:
    response = client.get("/mix", params=TINY_ARCH, follow_redirects=False)
    assert response.status_code == 303  # the canonical link: the question's fields, then the architecture
    target = response.headers["location"]
    assert target.startswith("/mix?model=custom&mix=chat:0.5,rag:0.5&requests_per_day=100000&arch_name=tiny-gqa&")
    page = client.get(target)
    assert page.status_code == 200
    title = re.search(r'<h2 id="mix-title"[^>]*>(.*?)</h2>', page.text, re.S)
    assert title and title.group(1).startswith("tiny-gqa at 100,000 requests/day")
    summary = re.search(r'<p class="summary" id="mix-summary">(.*?)</p>', page.text, re.S)
    assert summary and "Cheapest mix:" in summary.group(1)
    sent = dict(form_items(page.text))
    assert sent["model"] == "custom" and sent["arch_name"] == "tiny-gqa" and sent["arch_num_kv_heads"] == "8"
    assert client.get(target.replace("/mix?", "/mix.json?")).json()["model"]["name"] == "tiny-gqa"


def test_mix_form_resubmitted_without_javascript_asks_the_same_custom_question(client: TestClient) -> None:
    target = client.get("/mix", params=TINY_ARCH).url
    page = client.get(str(target))
    again = client.get("/mix?" + urlencode(form_items(page.text)), follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"{target.path}?{target.query.decode()}"


def test_a_pasted_config_json_on_the_mix_page_becomes_its_architecture(client: TestClient, pasted: dict) -> None:  # type: ignore[type-arg]
    form = {"model": "custom", "hf_config_json": json.dumps(LLAMA_8B), "requests_per_day": "500000"}
    response = client.get("/mix", params=form, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == pasted["share_url"]
    page = client.get(response.headers["location"])
    assert page.status_code == 200 and 'id="mix-summary"' in page.text


@pytest.mark.parametrize(
    ("change", "field", "needle"),
    [
        ({"hf_config_json": "{not json"}, "hf_config_json", "could not read this config.json"),
        ({"hf_config_json": "[1, 2]"}, "hf_config_json", "not a JSON object"),
        ({"arch_num_kv_heads": "7"}, "arch_num_kv_heads", "must divide"),
        ({"arch_layers": ""}, "arch_layers", "required"),
    ],
)
def test_a_custom_model_the_mix_page_cannot_read_is_a_422_naming_the_field(
    client: TestClient, change: dict[str, str], field: str, needle: str
) -> None:
    params = {**TINY_ARCH, **change}
    if "hf_config_json" in change:
        params = {"model": "custom", **change}
    page = client.get("/mix", params=params)
    assert page.status_code == 422 and f'id="err-{field}"' in page.text
    assert '<details class="group custom" open>' in page.text  # the custom fields are shown, with the error
    twin = client.get("/mix.json", params=params)
    assert twin.status_code == 422
    errors = {d["field"]: d["message"] for d in twin.json()["detail"]}
    assert needle.lower() in errors[field].lower()


def test_raw_custom_model_fields_in_a_mix_query_are_refused_with_the_form_fields_to_use(client: TestClient) -> None:
    twin = client.get("/mix.json", params={"hf_config": json.dumps(LLAMA_8B)})
    assert twin.status_code == 422
    detail = twin.json()["detail"][0]
    assert detail["field"] == "hf_config" and "hf_config_json" in detail["message"]


def test_plan_page_of_a_custom_model_links_to_its_mix(client: TestClient) -> None:
    page = client.get("/plan", params=TINY_ARCH, follow_redirects=True)
    assert page.status_code == 200
    link = re.search(r'href="(/mix\?[^"]*)">Chat and RAG on a mix of GPUs', page.text)
    assert link, "the plan of a custom model has no /mix link"
    mix = client.get(link.group(1).replace("&amp;", "&"))
    assert mix.status_code == 200 and "tiny-gqa at 100,000 requests/day" in mix.text


@pytest.mark.parametrize(
    ("mix", "needle", "advice"),
    [
        ("rag:1", "bucket rag: the rag shape's request, 7,772 tokens", "replace rag:1 with lengths that fit"),
        ("chat:1,3000x100:2", "bucket 3000x100: its requests (3,000 prompt + 100 output", "e.g. 1948x100:2"),
    ],
)
def test_a_bucket_beyond_the_context_says_what_to_change_in_the_mix(
    client: TestClient, mix: str, needle: str, advice: str
) -> None:
    """A named shape too long for a 2k model was told to "shorten input_len", a field /mix does not have (found by
    leftovers17)."""
    response = client.get("/mix.json", params={"model": "gpt-j-6b", "mix": mix})
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["field"] == "mix" and needle in detail["message"] and advice in detail["message"]
    assert "input_len" not in detail["message"] and "2,048 tokens" in detail["message"]
    page = client.get("/mix", params={"model": "gpt-j-6b", "mix": mix})
    assert page.status_code == 422 and advice in page.text
