"""/plan's train_* fields kept without months (lifecycle_skipped) name catalog ids too: `train_gpus=NOPE` without
months answered 200 and never said the GPU is unknown, since no run was priced to read it (found by small2). An
unknown id in a kept field is a field error as everywhere, on the page, its htmx fragment, its JSON twin, the plan
API and the CLI."""

from __future__ import annotations

import pytest

from app.cli.main import main

SERVED = "model=llama-3.1-8b&requests_per_day=20000"
KEPT = [("train_gpus", "GPU"), ("train_providers", "provider"), ("train_vendors", "vendor")]


@pytest.mark.parametrize(("field", "noun"), KEPT)
def test_json_twin_names_an_unknown_id_in_a_kept_field(client, field, noun):
    response = client.get(f"/plan.json?{SERVED}&{field}=NOPE")
    assert response.status_code == 422
    assert {e["field"]: e["message"] for e in response.json()["detail"]}[field].startswith(f"unknown {noun} id 'NOPE'")


def test_page_and_fragment_name_it_beside_the_form(client):
    for headers in ({}, {"HX-Request": "true"}):
        response = client.get(f"/plan?{SERVED}&train_gpus=NOPE", headers=headers)
        assert response.status_code == 422, headers
        assert "unknown GPU id &#39;NOPE&#39;" in response.text, headers


def test_served_model_and_kept_run_are_named_in_one_answer(client):
    response = client.get("/plan.json?model=NOPE&train_gpus=NOPE")
    assert response.status_code == 422
    assert {e["field"] for e in response.json()["detail"]} == {"model", "train_gpus"}


def test_known_ids_in_a_kept_field_still_answer(client):
    body = client.get(f"/plan.json?{SERVED}&train_gpus=h100-sxm&train_providers=runpod").json()
    assert body["lifecycle"] is None
    assert "train_gpus" in body["lifecycle_skipped"] and "train_providers" in body["lifecycle_skipped"]


def test_plan_api_and_cli_name_the_run_s_unknown_gpu(client, capsys):
    body = {"training": {"model": "llama-3.1-8b", "gpus": ["NOPE"]}, "inference": {"model": "llama-3.1-8b"}}
    response = client.post("/api/v1/plan/lifecycle", json=body)
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["detail"]] == ["training.gpus"]
    assert main(["plan", "lifecycle", "--model", "llama-3.1-8b", "--train-gpus", "NOPE"]) == 2
    assert capsys.readouterr().err.startswith("--train-gpus: unknown GPU id 'NOPE'")
