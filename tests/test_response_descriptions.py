"""Every field of every feature API's answer (rank, estimate, plan, own, precision, mix, disagg) is described in
/openapi.json (units where it has one), so a tool author reads what a field means from /docs; a new field without
a description fails here."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

ANSWERS = (
    "/api/v1/rank/inference",
    "/api/v1/rank/training",
    "/api/v1/estimate/inference",
    "/api/v1/estimate/training",
    "/api/v1/plan/serving",
    "/api/v1/plan/lifecycle",
    "/api/v1/own",
    "/api/v1/precision",
    "/api/v1/mix",
    "/api/v1/disagg",
)


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def _response_schemas(document: dict[str, Any]) -> set[str]:
    """The components an answer's schema reaches, nested ones included."""
    components = document["components"]["schemas"]
    todo = set().union(*(_refs(document["paths"][path]["post"]["responses"]["200"]) for path in ANSWERS))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        seen.add(name)
        todo |= _refs(components[name].get("properties", {})) - seen
    return seen


def _undescribed(document: dict[str, Any], names: set[str]) -> list[str]:
    components = document["components"]["schemas"]
    return sorted(
        f"{name}.{field}"
        for name in names
        for field, schema in components[name].get("properties", {}).items()
        if not schema.get("description")
    )


def test_every_field_of_every_feature_answer_has_a_description(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    names = _response_schemas(document)
    assert {"InferenceRankResponse", "TermOut", "ServingOptionOut", "LayoutOut", "ServerlessQuoteOut"} <= names
    assert _undescribed(document, names) == []


def test_an_undescribed_field_would_be_found(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    document["components"]["schemas"]["TermOut"]["properties"]["value"].pop("description")
    assert _undescribed(document, {"TermOut"}) == ["TermOut.value"]
