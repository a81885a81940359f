"""A scenario's own load (batch, concurrency, rate) is required under it and an error under the others: no answer
ignores a value it was given."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize(("scenario", "field"), [("fixed_batch", "batch"), ("concurrency", "concurrency")])
def test_a_load_scenario_without_its_load_is_a_field_error(client, scenario, field):
    response = client.get(f"/rank.json?model=llama-3.1-8b&scenario={scenario}")
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == field and error["message"].startswith(f"required for scenario {scenario} (")
    api = client.post("/api/v1/rank/inference", json={"scenario": scenario})
    assert api.status_code == 422 and api.json()["detail"][0]["field"] == field


def test_loads_of_other_scenarios_are_field_errors(client):
    """batch=8 under latency_bound used to leave the link without a word (a latency-bound answer to a fixed-batch
    question), and concurrency beside a fixed batch too: each is an error naming the field and its scenario, as a
    batch job outside max_throughput is."""
    page = client.get("/?phase=inference&model=llama-3.1-8b&batch=8", follow_redirects=False)
    assert page.status_code == 422 and 'id="err-batch"' in page.text
    body = client.get("/rank.json?model=llama-3.1-8b&scenario=fixed_batch&batch=8&concurrency=4")
    assert body.status_code == 422
    [error] = body.json()["detail"]
    assert error["field"] == "concurrency"
    assert "read only under scenario concurrency, not fixed_batch" in error["message"]
    api = client.post("/api/v1/rank/inference", json={"requests_per_s": 2})
    assert api.status_code == 422 and api.json()["detail"][0]["field"] == "requests_per_s"


def test_the_form_has_a_batch_field_that_carries_a_fixed_batch(client):
    page = client.get("/?phase=inference&model=llama-3.1-8b&scenario=fixed_batch")
    assert page.status_code == 422 and 'id="f-batch"' in page.text
    assert 'aria-describedby="hint-batch err-batch"' in page.text
    filled = client.get("/?phase=inference&model=llama-3.1-8b&scenario=fixed_batch&batch=8")
    assert filled.status_code == 200 and re.search(r'id="f-batch"[^>]*value="8"', filled.text)


@pytest.mark.parametrize("path", ["/disagg", "/plan"])
def test_a_serving_plan_refuses_a_scenario_and_its_load_naming_both(client, path):
    """Both layouts are latency-bound: /disagg dropped the link's scenario and load from its redirect while its JSON
    echoed them, answering another question than the one asked."""
    body = client.get(f"{path}.json?model=llama-3.1-8b&scenario=fixed_batch&batch=8&requests_per_day=100000").json()
    assert [e["field"] for e in body["detail"]] == ["scenario", "batch"]
    page = client.get(f"{path}?model=llama-3.1-8b&scenario=concurrency&concurrency=8", follow_redirects=False)
    assert page.status_code == 422 and 'id="err-concurrency">concurrency: not a field of this form' in page.text
