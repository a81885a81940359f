"""Every page with an htmx fragment answers an htmx request (`HX-Request: true`) with that fragment alone:
the form's submit, a column sort and the pager all swap it in. /compare once answered each of them 500
(its template extended index.html, and jinja2-fragments renders only blocks the template itself defines)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import settings_for

HX = {"HX-Request": "true"}
COMPARE = "phase=inference&model=llama-3.1-70b&gpus=H100-SXM&gpus=H200&gpus=B200"

# (URL as htmx asks for it, the fragment's outer element)
FRAGMENTS = [
    ("/?phase=inference", 'id="workbench"'),
    ("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", 'id="workbench"'),
    ("/compare", 'id="workbench"'),
    ("/compare?phase=training", 'id="workbench"'),
    (f"/compare?{COMPARE}", 'id="workbench"'),
    (f"/compare?{COMPARE}&sort=ttft", 'id="workbench"'),
    (f"/compare?{COMPARE}&page=2&show=10", 'id="workbench"'),
    ("/compare?phase=training&model=llama-3.1-8b&gpus=H100-SXM&gpus=H200", 'id="workbench"'),
    ("/gpus?sort=bf16", 'id="gpu-table"'),
    ("/plan?model=llama-3.1-8b&requests_per_day=100000&months=12", 'id="planbench"'),
    ("/disagg?model=llama-3.1-70b", 'id="disaggbench"'),
    ("/mix?model=llama-3.1-8b", 'id="mixbench"'),
    ("/precision?model=llama-3.1-70b", 'id="precisionbench"'),
    ("/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=60", 'id="ownbench"'),
]


@pytest.mark.parametrize(("url", "outer"), FRAGMENTS)
def test_htmx_request_gets_the_pages_fragment(client: TestClient, url: str, outer: str) -> None:
    response = client.get(url, headers=HX)
    assert response.status_code == 200, response.text[:400]
    assert "<html" not in response.text and outer in response.text
    assert "HX-Request" in response.headers["vary"]


def test_compare_fragment_is_the_side_by_side_ranking(client: TestClient) -> None:
    response = client.get(f"/compare?{COMPARE}", headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Push-Url"].startswith("/compare?")
    assert 'hx-get="/compare"' in response.text and "B200" in response.text


def test_compare_fragment_names_a_bad_field(client: TestClient) -> None:
    response = client.get("/compare?phase=inference&model=llama-3.1-70b&input_len=0", headers=HX)
    assert response.status_code == 422 and "<html" not in response.text and "input_len" in response.text


def test_saved_compare_link_pages_as_a_fragment(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url)), follow_redirects=False) as client:
        created = client.post("/share", data={"path": "/compare", "query": COMPARE})
        assert created.status_code == 303
        response = client.get(created.headers["location"] + "?sort=ttft", headers=HX)
        assert response.status_code == 200 and "<html" not in response.text and 'id="workbench"' in response.text
