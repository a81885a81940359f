"""The catalog API's lists page: `limit` rows from `offset`, X-Total-Count and a Link to the next page; without
either parameter the whole list, as before, and a bad value is a 422 naming the parameter."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from app.service.catalog.paging import MAX_PAGE_LIMIT

LISTS = ["/api/v1/gpus", "/api/v1/offers", "/api/v1/models", "/api/v1/providers", "/api/v1/token-prices"]


@pytest.mark.parametrize("path", LISTS)
def test_pages_walked_by_their_next_links_are_the_whole_list(client: TestClient, path: str) -> None:
    whole = client.get(path)
    assert whole.status_code == 200 and "link" not in whole.headers
    assert int(whole.headers["x-total-count"]) == len(whole.json()) > 7
    walked, url, pages = [], f"{path}?limit=7", 0
    while url:
        response = client.get(url)
        assert response.status_code == 200 and int(response.headers["x-total-count"]) == len(whole.json())
        walked += response.json()
        link = response.links.get("next", {}).get("url")
        url, pages = link, pages + 1
    assert walked == whole.json() and pages == -(-len(walked) // 7)


def test_a_page_keeps_the_filters_and_sort_and_writes_its_limit_as_digits(client: TestClient) -> None:
    response = client.get("/api/v1/gpus?sort=memory&limit=1e1&offset=2")
    every = client.get("/api/v1/gpus?sort=memory").json()
    assert response.json() == every[2:12]
    assert response.headers["link"] == '</api/v1/gpus?sort=memory&limit=10&offset=12>; rel="next"'


def test_an_offset_past_the_end_is_an_empty_page(client: TestClient) -> None:
    response = client.get("/api/v1/models?offset=100000")
    assert response.status_code == 200 and response.json() == [] and "link" not in response.headers
    assert int(response.headers["x-total-count"]) > 0


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("limit=0", "limit", "at least 1"),
        ("limit=-3", "limit", "at least 1"),
        (f"limit={MAX_PAGE_LIMIT + 1}", "limit", f"at most {MAX_PAGE_LIMIT:,}"),
        ("limit=2.5", "limit", "whole number"),
        ("limit=ten", "limit", "whole number"),
        ("offset=-1", "offset", "at least 0"),
        ("offset=1.5", "offset", "whole number"),
    ],
)
def test_a_bad_limit_or_offset_is_a_422_naming_it(client: TestClient, query: str, field: str, words: str) -> None:
    response = client.get(f"/api/v1/offers?{query}")
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == field and words in error["message"], error


def test_the_docs_describe_the_paging_parameters_and_headers(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/token-prices"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert "X-Total-Count" in parameters["limit"]["description"]
    assert parameters["limit"]["schema"]["anyOf"][0]["maximum"] == MAX_PAGE_LIMIT
    assert set(operation["responses"]["200"]["headers"]) == {"X-Total-Count", "Link"}


def test_an_empty_limit_or_offset_is_not_given(client: TestClient) -> None:
    response = client.get("/api/v1/gpus?limit=&offset=")
    assert response.status_code == 200 and response.json() == client.get("/api/v1/gpus").json()


@pytest.mark.parametrize(
    ("argv", "api"),
    [
        (["gpus", "--sort", "memory", "--limit", "5", "--offset", "3"], "/api/v1/gpus?sort=memory&limit=5&offset=3"),
        (["models", "--kind", "moe", "--limit", "1e1"], "/api/v1/models?kind=moe&limit=10"),
        (["providers", "--offset", "4"], "/api/v1/providers?offset=4"),
    ],
)
def test_the_cli_lists_the_apis_page(
    database: str, client: TestClient, capsys: pytest.CaptureFixture[str], argv: list[str], api: str
) -> None:
    from app.cli.main import main

    assert main(["catalog", *argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed and printed == client.get(api).json()
    assert main(["catalog", *argv]) == 0
    assert " of " in capsys.readouterr().out.splitlines()[-1]


def test_the_cli_refuses_a_bad_limit_under_its_flag(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli.main import main

    assert main(["catalog", "models", "--limit", "0", "--offset", "-2"]) == 2
    err = capsys.readouterr().err
    assert "--limit: must be at least 1" in err and "--offset: must be at least 0" in err


@pytest.mark.parametrize(
    ("method", "url", "same_as"),
    [
        ("GET", "/api/v1/offers?provider=&gpu=&price_type=&max_usd_per_gpu_hour=", "/api/v1/offers"),
        ("GET", "/api/v1/token-prices?model=", "/api/v1/token-prices"),
        ("GET", "/api/v1/gpus?vendor=&sort=", "/api/v1/gpus"),
        ("GET", "/api/v1/gpus/H100-SXM?provider=&sort=", "/api/v1/gpus/H100-SXM"),
        ("POST", "/api/v1/rank/inference?sort=&limit=&terms=&charts=", "/api/v1/rank/inference"),
    ],
)
def test_an_empty_parameter_is_one_left_out(client: TestClient, method: str, url: str, same_as: str) -> None:
    """`?provider=` was no filter on /api/v1/gpus/{id} and a 422 on /api/v1/offers; a form's untouched field submits
    it, so every route now reads an empty value as the parameter left out."""
    body = {"model": "llama-3.1-8b"} if method == "POST" else None
    answer = client.request(method, url, json=body)
    assert answer.status_code == 200
    assert answer.json() == client.request(method, same_as, json=body).json()


def test_a_list_page_moves_an_empty_sort_to_its_canonical_url(client: TestClient) -> None:
    response = client.get("/gpus?sort=&vendor=AMD", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/gpus?vendor=AMD"


def test_the_docs_say_how_query_strings_read(client: TestClient) -> None:
    description = client.get("/openapi.json").json()["info"]["description"]
    assert "An empty parameter" in description and "not `1_000`" in description
    assert f"at most\n{MAX_PAGE_LIMIT:,}" in description or f"at most {MAX_PAGE_LIMIT:,}" in description
