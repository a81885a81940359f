"""The last questions that took two rounds of errors (errs3): a /mix bucket beyond the model's context, the default
lengths on a small-context model, an estimate's unknown or mismatched offer_id, and `gpumatch mix`'s unreadable
--hf-config were each said only once the other fields' errors were fixed. Now every one is said in the same answer."""

from __future__ import annotations

import re

import pytest

from app.cli.main import main

SMALL = "model=llama-7b"  # LLaMA-7B's context is 2,048 tokens: the default 2,000 + 400 do not fit
LONG_BUCKET = "model=llama-3.1-8b&mix=120000x20000:1"  # 140,000 tokens: over Llama 3.1 8B's 131,072

# (page, query, {field: words its message holds}, a value the user typed that the form keeps)
PAGES = [
    ("/mix", f"{LONG_BUCKET}&tpot_ms=-1", {"tpot_ms": "must be ", "mix": "131,072"}, "120000x20000:1"),
    ("/mix", f"{SMALL}&requests_per_day=-1", {"requests_per_day": "must be ", "mix": "bucket rag"}, "-1"),
    ("/", f"{SMALL}&tpot_ms=-1", {"tpot_ms": "must be ", "input_len": "2,048", "output_len": "defaults"}, "-1"),
    ("/plan", f"{SMALL}&requests_per_day=-1", {"requests_per_day": "must be ", "output_len": "2,048"}, "-1"),
    ("/precision", f"{SMALL}&ttft_ms=0", {"ttft_ms": "must be ", "input_len": "2,048"}, "0"),
]


def _twin(path: str) -> str:
    return "/rank.json" if path == "/" else f"{path}.json"


@pytest.mark.parametrize(("path", "query", "said", "typed"), PAGES)
def test_json_twin_says_the_length_beyond_the_context_beside_a_bad_value(client, path, query, said, typed):
    response = client.get(f"{_twin(path)}?{query}")
    assert response.status_code == 422
    named = {e["field"]: e["message"] for e in response.json()["detail"]}
    for field, words in said.items():
        assert words in named.get(field, ""), (field, named)


@pytest.mark.parametrize(("path", "query", "said", "typed"), PAGES)
def test_page_shows_both_errors_and_keeps_what_was_typed(client, path, query, said, typed):
    response = client.get(f"{path}?{query}")
    assert response.status_code == 422
    for field in said:
        assert f'id="err-{field}"' in response.text, field
        assert re.search(rf'aria-describedby="[^"]*\berr-{field}\b', response.text), field
    assert f'value="{typed}"' in response.text


def test_a_length_that_fits_or_a_bucket_without_traffic_says_nothing(client):
    """The context is judged on the lengths the question reads: given ones that fit, a bucket with share 0, a mix
    that is itself wrong, are not refused."""
    fits = client.get(f"/rank.json?{SMALL}&input_len=1000&tpot_ms=-1").json()["detail"]
    assert [e["field"] for e in fits] == ["tpot_ms"]
    idle = client.get("/mix.json?model=llama-3.1-8b&mix=120000x20000:0,chat:1&tpot_ms=-1").json()["detail"]
    assert [e["field"] for e in idle] == ["tpot_ms"]
    wrong_mix = client.get("/mix.json?model=llama-3.1-8b&mix=120000x20000:1,nope:1&tpot_ms=-1").json()["detail"]
    assert "context" not in {e["field"]: e["message"] for e in wrong_mix}["mix"]


ESTIMATE = {"model": "llama-3.1-8b", "gpu": "H100-SXM"}

BODIES = [
    (
        "/api/v1/mix",
        {"model": "llama-3.1-8b", "mix": [{"input_len": 120000, "output_len": 20000}], "tpot_ms": -1},
        {"tpot_ms": "must be ", "mix": "131,072"},
    ),
    ("/api/v1/rank/inference", {"model": "llama-7b", "tpot_ms": -1}, {"tpot_ms": "must be ", "input_len": "2,048"}),
    (
        "/api/v1/estimate/inference",
        {"model": "llama-7b", "gpu": "H100-SXM", "ttft_ms": -1},
        {"ttft_ms": "must be ", "output_len": "2,048"},
    ),
    (
        "/api/v1/estimate/inference",
        {**ESTIMATE, "offer_id": 999999, "ttft_ms": -1},
        {"ttft_ms": "must be ", "offer_id": "no offer 999999"},
    ),
    (
        "/api/v1/estimate/inference",
        {**ESTIMATE, "gpu": "MI300X", "offer_id": 1.0, "ttft_ms": -1},  # 1.0: offer 1, as the request reads it
        {"ttft_ms": "must be ", "offer_id": "not MI300X"},
    ),
    (
        "/api/v1/estimate/training",
        {**ESTIMATE, "offer_id": 999999, "seq_len": -1},
        {"seq_len": "must be ", "offer_id": "no offer 999999"},
    ),
    (
        "/api/v1/estimate/inference",
        {**ESTIMATE, "gpu": "NOPE", "offer_id": 999999, "ttft_ms": -1},
        {"ttft_ms": "must be ", "gpu": "NOPE", "offer_id": "no offer 999999"},
    ),
    (  # a valid body: its unknown GPU hid its unknown offer
        "/api/v1/estimate/training",
        {**ESTIMATE, "gpu": "NOPE", "offer_id": 999999},
        {"gpu": "NOPE", "offer_id": "no offer 999999"},
    ),
]


@pytest.mark.parametrize(("path", "body", "said"), BODIES)
def test_api_body_names_each_wrong_field_in_one_422(client, path, body, said):
    response = client.post(path, json=body)
    assert response.status_code == 422
    named = {e["field"]: e["message"] for e in response.json()["detail"]}
    for field, words in said.items():
        assert words in named.get(field, ""), (field, named)


def test_an_offer_of_an_unknown_gpu_is_not_said_to_rent_another(client):
    body = {**ESTIMATE, "gpu": "NOPE", "offer_id": 1, "ttft_ms": -1}
    detail = client.post("/api/v1/estimate/inference", json=body).json()["detail"]
    assert sorted(e["field"] for e in detail) == ["gpu", "ttft_ms"]


CLI = [
    (
        ["mix", "--hf-config", "MISSING.json", "--requests-per-day", "-1", "--providers", "NOPE"],
        ("--hf-config", "--requests-per-day", "--providers"),
    ),
    (["mix", "--model", "llama-3.1-8b", "--mix", "120000x20000:1", "--tpot-ms", "-1"], ("--tpot-ms", "--mix")),
    (["rank", "inference", "--model", "llama-7b", "--tpot-ms", "-1"], ("--tpot-ms", "--input-len", "--output-len")),
]


@pytest.mark.parametrize(("argv", "flags"), CLI)
def test_cli_names_every_wrong_flag_in_one_run(database, capsys, argv, flags):
    assert main(argv) == 2
    err = capsys.readouterr().err
    for flag in flags:
        assert re.search(rf"^{flag}: ", err, re.M), (flag, err)


def test_cli_mix_with_only_an_unreadable_config_says_it_alone(database, capsys):
    assert main(["mix", "--hf-config", "MISSING.json", "--tpot-ms", "50"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "--hf-config: could not read MISSING.json: No such file or directory"
    ]
