"""A scenario's own load (batch, concurrency, rate) is required under it and dropped under the others, so no
link carries a value its answer ignored."""

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


def test_loads_of_other_scenarios_leave_the_canonical_link(client):
    page = client.get(
        "/?phase=inference&model=llama-3.1-8b&batch=8&concurrency=3&requests_per_s=2", follow_redirects=False
    )
    assert page.status_code == 303 and page.headers["location"] == "/?phase=inference&model=llama-3.1-8b"
    body = client.get("/rank.json?model=llama-3.1-8b&scenario=concurrency&concurrency=4&batch=8").json()
    assert body["share_url"] == "/?phase=inference&model=llama-3.1-8b&scenario=concurrency&concurrency=4"
    assert "batch" not in body["workload"]


def test_the_form_has_a_batch_field_that_carries_a_fixed_batch(client):
    page = client.get("/?phase=inference&model=llama-3.1-8b&scenario=fixed_batch")
    assert page.status_code == 422 and 'id="f-batch"' in page.text and 'aria-describedby="err-batch"' in page.text
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
