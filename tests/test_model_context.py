"""A request longer than the model's context is a field error on every inference face; training past it is
a long-context extension, noted on the ranking."""

from __future__ import annotations

import re

import pytest

from app.cli.main import main

LONG = "model=llama-3.1-8b&input_len=1000000&ttft_ms=600000&tpot_ms=60000"  # Llama 3.1's context: 131,072
TINY_CONTEXT = {
    "params_b": 8,
    "layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 14336,
    "max_context": 1,
}


def _only_error(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text[:300]
    [error] = response.json()["detail"]
    return error


@pytest.mark.parametrize("path", ["/rank.json", "/precision.json", "/plan.json", "/disagg.json"])
def test_inference_pages_reject_a_prompt_beyond_the_models_context(client, path):
    error = _only_error(client.get(f"{path}?{LONG}"))
    assert error["field"] in ("input_len", "workload.input_len")
    assert "context of 131,072 tokens" in error["message"]


def test_the_output_that_overflows_the_context_is_the_field_named(client):
    error = _only_error(client.get("/rank.json?model=llama-3.1-8b&input_len=100000&output_len=50000"))
    assert error["field"] == "output_len" and "150,000 tokens" in error["message"]


def test_default_lengths_over_a_short_context_name_both_fields_and_say_they_are_defaults(client):
    """GPT-J's 2,048 tokens at the form's defaults (2,000 + 400) blamed output_len, which the user never set."""
    response = client.get("/rank.json?phase=inference&model=gpt-j-6b")
    assert response.status_code == 422
    errors = {e["field"]: e["message"] for e in response.json()["detail"]}
    assert set(errors) == {"input_len", "output_len"}
    message = errors["input_len"]
    assert message.startswith("the prompt and output (2,000 input + 400 output = 2,400 tokens) exceed GPT-J 6B")
    assert "shorten the input, the output or both, to 2,048 tokens together" in message
    assert "context of 2,048 tokens" in message and "(neither was given: both are the defaults)" in message
    given = _only_error(client.get("/rank.json?phase=inference&model=gpt-j-6b&input_len=1900"))
    assert given["field"] == "input_len" and "defaults" not in given["message"]
    page = client.get("/?phase=inference&model=gpt-j-6b")
    assert page.status_code == 422 and 'id="err-input_len"' in page.text and 'id="err-output_len"' in page.text
    summary = re.sub(r"<[^>]+>", " ", page.text.split('id="error-summary"')[1].split("</div>")[0])
    assert "input_len" not in summary and "output_len" not in summary  # the form says Input and Output tokens (qa36)


def test_a_request_that_fits_the_context_is_ranked(client):
    assert client.get("/rank.json?model=llama-3.1-8b&input_len=100000&output_len=31072").status_code == 200


def test_every_mix_bucket_must_fit_the_context(client):
    error = _only_error(client.get("/mix.json?model=llama-3.1-8b&mix=chat:1,200000x10:1"))
    assert error["field"] == "mix" and "bucket 200000x10" in error["message"]


def test_a_custom_models_context_is_checked_in_the_api(client):
    body = {"custom_model": TINY_CONTEXT, "input_len": 2000, "output_len": 400}
    error = _only_error(client.post("/api/v1/rank/inference", json=body))
    assert error["field"] == "input_len" and "context of 1 tokens" in error["message"]
    estimate = {**body, "gpu": "H100-SXM", "gpu_count": 1}
    assert _only_error(client.post("/api/v1/estimate/inference", json=estimate))["field"] == "input_len"


def test_the_page_shows_the_context_error_beside_the_field_and_keeps_the_value(client):
    page = client.get(f"/?phase=inference&{LONG}")
    assert page.status_code == 422
    assert "exceed Llama 3.1 8B&#39;s context of 131,072 tokens" in page.text and 'value="1000000"' in page.text


def test_training_beyond_the_context_is_ranked_with_a_note(client):
    body = client.get("/rank.json?phase=training&model=llama-3.1-8b&seq_len=262144").json()
    assert any("beyond its native context of 131,072 tokens" in note for note in body["notes"])
    within = client.get("/rank.json?phase=training&model=llama-3.1-8b&seq_len=131072").json()
    assert not any("native context" in note for note in within["notes"])


def test_the_cli_names_the_flag_of_a_request_beyond_the_context(database, capsys):
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--input-len", "1000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--input-len: the prompt and output (1,000,000 input + 400 output = 1,000,400 tokens)")
    assert "the prompt alone fills it; shorten the input below 131,072 tokens" in err
    assert main(["precision", "--model", "llama-3.1-8b", "--input-len", "1000000"]) == 2
    assert capsys.readouterr().err.startswith("--input-len: ")
