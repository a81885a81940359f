"""A range error says its bound in the field's unit, the same on the page, in JSON and from the CLI (found by qa36:
"Time to first token: Input should be greater than or equal to 0.001", no unit, on every face)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.scoring.input_checks.bound_words import bound_message, number_words, with_unit


@pytest.mark.parametrize(
    "field, bound, words",
    [
        ("ttft_ms", 0.001, "0.001 ms"),
        ("input_len", 1_000_000, "1,000,000 tokens"),
        ("min_memory_gb", 10_000, "10,000 GB"),
        ("min_gpus", 1, "1 GPU"),
        ("usd_per_kwh", 0.5, "$0.50 per kWh"),  # whole cents as money is written
        ("peak_requests_per_s", 0.000001, "0.000001 requests/s"),
        ("layers", 1, "1"),  # a name that says no unit: the bound alone
    ],
)
def test_a_bound_reads_in_its_fields_unit(field: str, bound: float, words: str) -> None:
    assert with_unit(field, bound) == words


def test_range_errors_say_at_least_more_than_at_most_less_than() -> None:
    said = [
        bound_message({"type": kind, "loc": ("body", "workload", "tpot_ms"), "ctx": {key: 2}})
        for kind, key in [("greater_than_equal", "ge"), ("greater_than", "gt"), ("less_than_equal", "le")]
        + [("less_than", "lt")]
    ]
    assert said == ["must be at least 2 ms", "must be more than 2 ms", "must be at most 2 ms", "must be less than 2 ms"]
    assert bound_message({"type": "string_too_short", "loc": ("name",), "ctx": {"min_length": 1}}) is None
    assert number_words(1e-6) == "0.000001" and number_words(1e6) == "1,000,000"


def test_the_page_and_json_say_the_latency_bound_in_ms_with_the_field_named(client: TestClient) -> None:
    answer = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-8b", "ttft_ms": 0})
    assert answer.status_code == 422
    assert {"field": "ttft_ms", "message": "must be at least 0.001 ms"} in answer.json()["detail"]
    page = client.get("/?phase=inference&model=llama-3.1-8b&ttft_ms=0")
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page.text)))
    assert page.status_code == 422 and "must be at least 0.001 ms" in text and "Input should be" not in text
