"""Shared links arrive with tracking parameters (`fbclid`, `utm_source`, …): the pages drop them with a redirect
to the canonical URL, where they once answered 422 "fbclid: Extra inputs are not permitted"; the JSON API and the
pages' JSON twins still name every key they do not take."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.web.middleware.tracking_params import without_tracking

SHARED = [
    ("/?phase=inference&model=llama-3.1-70b&fbclid=x", "/?phase=inference&model=llama-3.1-70b"),
    ("/gpus/H100-SXM?utm_source=slack", "/gpus/H100-SXM"),
    ("/plan?model=llama-3.1-8b&utm_source=a&utm_medium=b&gclid=c", "/plan?model=llama-3.1-8b"),
    ("/compare?ref=producthunt&phase=inference&mc_cid=1&mc_eid=2", "/compare?phase=inference"),
]


@pytest.mark.parametrize(("shared", "clean"), SHARED)
def test_a_page_drops_tracking_parameters_with_a_redirect(client: TestClient, shared: str, clean: str) -> None:
    response = client.get(shared, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == clean
    assert client.get(shared).status_code == 200  # and on, through the page's own canonical redirect


def test_the_json_api_and_twins_stay_strict(client: TestClient) -> None:
    twin = client.get("/plan.json?model=llama-3.1-8b&fbclid=x", follow_redirects=False)
    assert twin.status_code == 422 and "fbclid" in twin.text
    api = client.get("/api/v1/gpus?utm_source=slack", follow_redirects=False)
    assert api.status_code == 422 and "utm_source" in api.text


def test_only_tracking_pairs_go_and_the_rest_stay_as_sent() -> None:
    sent = "model=a%2Cb&utm_source=x&referrer=y&gpus=H100&fbclid="
    assert without_tracking(sent) == "model=a%2Cb&referrer=y&gpus=H100"
    assert without_tracking("phase=inference") == "phase=inference"
