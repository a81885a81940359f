"""A pasted config.json of an llm-compressor W8A8 checkpoint (INT8 weights and input activations) ranks INT8 W8A8 by
default, on the page and in the API; on an engine that runs no W8A8 (llama.cpp, Transformers) it ranks the INT8
weights as that engine runs them, W8A16, and says so: never a 500, and a form that resubmits. A ModelOpt SmoothQuant
config (quant_method modelopt, quant_algo W8A8_SQ_*) does the same."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.form_submit import form_items
from tests.scoring.test_hf_config import LLAMA_31_8B
from tests.scoring.test_hf_quantization import READ_W8A8, W8A8, W8A16
from tests.scoring.test_modelopt_algos import modelopt

LLAMA_W8A8 = {**LLAMA_31_8B, "quantization_config": W8A8}
AS_RELEASED = f"Weights as released: INT8 W8A8 (config.json quantization_config: {READ_W8A8})"


def _rank(client, **question):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/rank/inference", json=question, params={"limit": 1})


def test_the_api_ranks_a_pasted_w8a8_config_as_int8_w8a8(client) -> None:  # type: ignore[no-untyped-def]
    body = _rank(client, hf_config=LLAMA_W8A8).json()
    assert body["workload"]["weight_dtype"] == "int8_w8a8"
    assert body["weights"]["release_precision"] == "int8_w8a8" and body["weights"]["from_release"]
    assert body["weights"]["note"].startswith(AS_RELEASED) and body["notes"][-1] == body["weights"]["note"]
    prefill = next(t for t in body["options"][0]["terms"] if t["name"] == "prefill compute time")
    assert "int8" in prefill["detail"]  # on the INT8 tensor peak


def test_a_pasted_w8a16_config_still_ranks_int8_weight_only(client) -> None:  # type: ignore[no-untyped-def]
    body = _rank(client, hf_config={**LLAMA_31_8B, "quantization_config": W8A16}).json()
    assert body["workload"]["weight_dtype"] == "int8" and body["weights"]["release_precision"] == "int8"


@pytest.mark.parametrize("engine", ["llamacpp", "hf"])
def test_a_w8a8_release_on_an_engine_without_w8a8_ranks_w8a16_and_says_why(client, engine: str) -> None:  # type: ignore[no-untyped-def]
    response = _rank(client, hf_config=LLAMA_W8A8, engine=engine)
    assert response.status_code == 200
    body = response.json()
    assert body["workload"]["weight_dtype"] == "int8" and body["weights"]["release_precision"] == "int8_w8a8"
    assert body["weights"]["note"].startswith("Weights INT8 weight-only (W8A16): the model is released in INT8 W8A8")
    assert f"engine {engine} runs no INT8 W8A8" in body["weights"]["note"]


def test_asking_int8_w8a8_on_llamacpp_beside_the_paste_is_a_422_naming_weight_dtype(client) -> None:  # type: ignore[no-untyped-def]
    response = _rank(client, hf_config=LLAMA_W8A8, engine="llamacpp", weight_dtype="int8_w8a8")
    assert response.status_code == 422 and "weight_dtype" in response.text


def test_the_page_ranks_a_pasted_w8a8_config_and_its_form_keeps_it(client) -> None:  # type: ignore[no-untyped-def]
    pasted = {"phase": "inference", "model": "custom", "hf_config_json": json.dumps(LLAMA_W8A8)}
    page = client.get("/", params=pasted, follow_redirects=True)
    assert page.status_code == 200
    query = parse_qs(urlsplit(str(page.url)).query)
    assert query["arch_release_precision"] == ["int8_w8a8"] and "weight_dtype" not in query
    assert AS_RELEASED in page.text
    assert '<option value="int8_w8a8" selected>int8 w8a8</option>' in page.text  # "Released in" offers it
    again = client.get("/", params=form_items(page.text), follow_redirects=True)  # the form resubmitted unchanged
    assert again.url == page.url and AS_RELEASED in again.text


def test_the_page_on_llamacpp_ranks_the_w8a8_release_as_w8a16_and_says_so(client) -> None:  # type: ignore[no-untyped-def]
    pasted = {"phase": "inference", "model": "custom", "engine": "llamacpp", "hf_config_json": json.dumps(LLAMA_W8A8)}
    page = client.get("/", params=pasted, follow_redirects=True)
    assert page.status_code == 200
    assert "Weights INT8 weight-only (W8A16): the model is released in INT8 W8A8" in page.text
    assert "engine llamacpp runs no INT8 W8A8" in page.text
    again = client.get("/", params=form_items(page.text), follow_redirects=True)  # its form resubmits: no 422
    assert again.status_code == 200 and again.url == page.url


def test_precision_page_takes_a_pasted_w8a8_release_as_its_reference_row(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get(
        "/precision", params={"model": "custom", "hf_config_json": json.dumps(LLAMA_W8A8)}, follow_redirects=True
    )
    assert page.status_code == 200
    assert "INT8 W8A8 (the release)" in page.text and "an upcast of the INT8 W8A8 release" in page.text


LLAMA_SMOOTHQUANT = {**LLAMA_31_8B, "quantization_config": modelopt("W8A8_SQ_PER_CHANNEL")}
READ_SMOOTHQUANT = "quant_method modelopt, quant_algo W8A8_SQ_PER_CHANNEL: INT8 SmoothQuant W8A8 per channel"


def test_the_api_ranks_a_pasted_modelopt_smoothquant_config_as_int8_w8a8(client) -> None:  # type: ignore[no-untyped-def]
    body = _rank(client, hf_config=LLAMA_SMOOTHQUANT, engine="trtllm").json()
    assert body["workload"]["weight_dtype"] == "int8_w8a8" and body["weights"]["from_release"]
    assert body["weights"]["release_precision"] == "int8_w8a8"
    assert body["weights"]["note"].startswith(
        f"Weights as released: INT8 W8A8 (config.json quantization_config: {READ_SMOOTHQUANT})"
    )


def test_a_modelopt_smoothquant_release_on_llamacpp_ranks_w8a16_and_says_why(client) -> None:  # type: ignore[no-untyped-def]
    response = _rank(client, hf_config=LLAMA_SMOOTHQUANT, engine="llamacpp")
    assert response.status_code == 200
    body = response.json()
    assert body["workload"]["weight_dtype"] == "int8" and body["weights"]["release_precision"] == "int8_w8a8"
    note = body["weights"]["note"]
    assert note.startswith("Weights INT8 weight-only (W8A16): the model is released in INT8 W8A8")
    assert READ_SMOOTHQUANT in note and "engine llamacpp runs no INT8 W8A8" in note


def test_the_page_keeps_a_pasted_modelopt_smoothquant_release_when_its_form_resubmits(client) -> None:  # type: ignore[no-untyped-def]
    pasted = {"phase": "inference", "model": "custom", "hf_config_json": json.dumps(LLAMA_SMOOTHQUANT)}
    page = client.get("/", params=pasted, follow_redirects=True)
    query = parse_qs(urlsplit(str(page.url)).query)
    assert page.status_code == 200 and query["arch_quantization"] == [READ_SMOOTHQUANT]
    assert query["arch_release_precision"] == ["int8_w8a8"]
    again = client.get("/", params=form_items(page.text), follow_redirects=True)
    assert again.status_code == 200 and again.url == page.url
