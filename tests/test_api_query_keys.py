"""The JSON API holds its query strings to what each route reads, as the pages do (test_unknown_params.py): a key it
does not read, or a catalog filter naming an id the catalog lacks, is a 422 naming it with the nearest known name,
not a list or ranking answered as if unfiltered (`/api/v1/offers?gpu_id=B200` gave all 184 offers,
`?gpu=H100` and `?provider=amazon` an empty list, `POST /api/v1/rank/inference?limt=1` every option)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient


def detail(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text
    return {e["field"]: e["message"] for e in response.json()["detail"]}


def api_routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(method, path) of every API route but the admin's, through routers included in routers."""
    for route in routes:
        inner = getattr(route, "original_router", None)  # FastAPI's included router
        if inner is not None:
            yield from api_routes(inner.routes, prefix + route.include_context.prefix)
        elif isinstance(route, APIRoute):
            path = prefix + route.path
            if path.startswith("/api/v1/") and not path.startswith("/api/v1/admin"):
                yield from ((method, path) for method in sorted(route.methods))


def test_every_api_route_refuses_a_query_key_it_does_not_read(client: TestClient) -> None:
    routes = list(api_routes(client.app.routes))
    assert len(routes) >= 15  # the catalog, rank, estimate, plan, precision, own, mix and disagg routes
    for method, path in routes:
        concrete = path.replace("{gpu_id}", "H100-SXM").replace("{model_id}", "llama-3.1-8b")
        concrete = concrete.replace("{offer_id}", "1")
        response = client.request(method, f"{concrete}?colour=blue", json={} if method == "POST" else None)
        message = detail(response).get("colour", "")
        assert message.startswith(f"not a query parameter of {method} {path}"), (method, path, message)


@pytest.mark.parametrize(
    ("method", "url", "key", "nearest"),
    [
        ("GET", "/api/v1/offers?gpu_id=B200", "gpu_id", "gpu"),  # the response's own field name
        ("GET", "/api/v1/offers?provider_id=aws", "provider_id", "provider"),
        ("POST", "/api/v1/rank/inference?limt=1", "limt", "limit"),
        ("GET", "/api/v1/gpus?min_memory=80", "min_memory", "min_memory_gb"),
    ],
)
def test_a_misspelt_key_names_the_key_it_resembles(
    client: TestClient, method: str, url: str, key: str, nearest: str
) -> None:
    response = client.request(method, url, json={"model": "llama-3.1-8b"} if method == "POST" else None)
    assert f"(did you mean {nearest}?)" in detail(response)[key]


def test_a_key_with_no_near_name_lists_what_the_route_takes(client: TestClient) -> None:
    message = detail(client.get("/api/v1/token-prices?provider=x"))["provider"]
    assert message == "not a query parameter of GET /api/v1/token-prices; it takes limit, model, offset"
    message = detail(client.get("/api/v1/providers/lambda?x=1"))["x"]
    assert message.endswith("it takes no query parameters")


@pytest.mark.parametrize(
    ("url", "field", "expected"),
    [
        ("/api/v1/offers?gpu=H100", "gpu", "unknown GPU id 'H100'; did you mean H100-NVL, H100-PCIE, H100-SXM?"),
        ("/api/v1/offers?provider=amazon", "provider", "unknown provider id 'amazon'; did you mean amazon-bedrock?"),
        ("/api/v1/token-prices?model=llama-3.1-8bb", "model", "unknown model id 'llama-3.1-8bb'; did you mean"),
        ("/api/v1/gpus?vendor=nvidai", "vendor", "unknown vendor id 'nvidai'; known: AMD, AWS, Google, Intel, NVIDIA"),
    ],
)
def test_a_catalog_filter_naming_an_unknown_id_is_422_with_the_nearest_ids(
    client: TestClient, url: str, field: str, expected: str
) -> None:
    assert detail(client.get(url))[field].startswith(expected)


def test_every_unknown_filter_is_named_at_once(client: TestClient) -> None:
    assert set(detail(client.get("/api/v1/offers?gpu=NOPE&provider=nope&colour=x"))) == {"colour"}  # keys first
    assert set(detail(client.get("/api/v1/offers?gpu=NOPE&provider=nope"))) == {"gpu", "provider"}


def test_known_ids_filter_in_any_case(client: TestClient) -> None:
    offers = client.get("/api/v1/offers?gpu=h100-sxm&provider=AWS").json()
    assert offers and {(o["gpu_id"], o["provider_id"]) for o in offers} == {("H100-SXM", "aws")}
    assert client.get("/api/v1/gpus?vendor=nvidia").json()
    assert client.get("/api/v1/token-prices?model=LLAMA-3.1-8B").status_code == 200


def test_a_known_gpu_nobody_rents_is_an_empty_list_not_an_error(client: TestClient) -> None:
    rented = {o["gpu_id"] for o in client.get("/api/v1/offers").json()}
    unrented = sorted({g["id"] for g in client.get("/api/v1/gpus").json()} - rented)
    assert unrented, "the seed has GPUs without offers"
    assert client.get(f"/api/v1/offers?gpu={unrented[0]}").json() == []


def test_the_catalog_pages_refuse_an_unknown_key_too(client: TestClient) -> None:
    assert "(did you mean vendor?)" in detail(client.get("/gpus.json?vendr=AMD"))["vendr"]
