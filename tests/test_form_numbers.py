"""The pages read numbers as people type them: `500,000` (as /plan's heading prints it) and `500_000`, and a
whole-number field given `1e30` says it is too large, where it said "unable to parse string as a number" and
"not a valid integer". The JSON API keeps JSON's numbers."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.service.query.form_numbers import as_typed_number


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("500,000", "500000"),
        ("500_000", "500000"),
        ("12,345,678.5", "12345678.5"),
        ("-1,000", "-1000"),
        ("1e3", "1000"),
        ("2.5E3", "2500"),
        ("1e30", str(int(1e30))),
        ("1,5", "1,5"),  # a decimal comma, not a thousands group: still an error naming the field
        ("1,00", "1,00"),
        ("1,000_000", "1,000_000"),  # one separator throughout
        ("2.5", "2.5"),
        ("1e-3", "1e-3"),
        ("1e400", "1e400"),  # not finite: the field says so
        ("llama-3.1-8b", "llama-3.1-8b"),
    ],
)
def test_a_typed_number_reads_as_its_digits(typed: str, read: str) -> None:
    assert as_typed_number(typed) == read


def test_pages_take_grouped_digits_and_link_them_plainly(client: TestClient) -> None:
    response = client.get("/plan?model=llama-3.1-8b&requests_per_day=500%2C000", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/plan?model=llama-3.1-8b&requests_per_day=500000"
    ranked = client.get("/?phase=inference&model=llama-3.1-8b&input_len=4_096", follow_redirects=False)
    assert ranked.headers["location"].endswith("input_len=4096")
    own = client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=60&power_usd_per_kwh=0.1")
    grouped = client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=6_0&power_usd_per_kwh=0.1")
    assert own.status_code == grouped.status_code and own.json() == grouped.json()


def test_a_huge_whole_number_is_too_large_not_invalid(client: TestClient) -> None:
    twin = client.get("/rank.json?phase=inference&model=llama-3.1-8b&input_len=1e30")
    assert twin.status_code == 422
    [error] = twin.json()["detail"]
    assert error["field"] == "input_len" and "less than or equal to" in error["message"]
    page = client.get("/?phase=inference&model=llama-3.1-8b&input_len=1e30")
    assert page.status_code == 422 and "less than or equal to" in page.text and "valid integer" not in page.text


def test_the_json_api_keeps_json_numbers(client: TestClient) -> None:
    response = client.post(
        "/api/v1/plan/serving",
        json={"workload": {"model": "llama-3.1-8b"}, "traffic": {"requests_per_day": "500,000"}},
    )
    assert response.status_code == 422 and "requests_per_day" in response.text
