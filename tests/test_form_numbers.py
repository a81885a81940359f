"""The pages read numbers as people type them: `500,000` (as /plan's heading prints it; `500_000` is refused with
how to write it, as no canonical link writes it), and a whole-number field given `1e30` says it is too large, where
it said "unable to parse string as a number" and "not a valid integer". The JSON API keeps JSON's numbers."""

from __future__ import annotations

import json
import re

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
        ("1e30", "1" + "0" * 30),  # exact: float's int(1e30) read 1000000000000000019884624838656 in the form
        ("1e23", "1" + "0" * 23),
        ("1.5e308", "15" + "0" * 307),
        ("1.0000000000000000001e0", "1.0000000000000000001e0"),  # not whole, though float rounds it to 1
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
    ranked = client.get("/?phase=inference&model=llama-3.1-8b&input_len=4%2C096", follow_redirects=False)
    assert ranked.headers["location"].endswith("input_len=4096")
    own = client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=60&usd_per_kwh=0.1")
    grouped = client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=6%2C0&usd_per_kwh=0.1")
    assert own.status_code == 200 and grouped.status_code == 422  # 6,0: a decimal comma, not a thousands group


@pytest.mark.parametrize(
    ("url", "field", "plain"),
    [
        ("/?phase=inference&model=llama-3.1-8b&input_len=4_096", "input_len", "4096"),
        ("/rank.json?phase=inference&model=llama-3.1-8b&input_len=4_096", "input_len", "4096"),
        ("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=6_0", "utilisation_pct", "60"),  # int("6_0") is 60
        ("/plan?model=llama-3.1-8b&requests_per_day=500_000", "requests_per_day", "500000"),
        ("/gpus.json?min_memory_gb=1_00.5", "min_memory_gb", "100.5"),
        ("/api/v1/offers?max_usd_per_gpu_hour=1_0", "max_usd_per_gpu_hour", "10"),
        ("/api/v1/models?limit=1_000", "limit", "1000"),
        ("/api/v1/plan/serving?limit=1_0", "limit", "10"),
    ],
)
def test_a_number_with_underscores_is_refused_naming_its_field(
    client: TestClient, url: str, field: str, plain: str
) -> None:
    """`?tokens=1_000` was taken because Python's int() takes it (`6_0` as 60 too), though no canonical link writes
    it: every page, twin and API query string now says how to write it, beside its field."""
    body = {"workload": {"model": "llama-3.1-8b"}, "traffic": {"requests_per_day": 1000}} if "/plan/" in url else None
    response = client.request("POST" if body else "GET", url, json=body, follow_redirects=False)
    assert response.status_code == 422
    words = f"write {plain}, without underscores"
    if url.startswith(("/api", "/rank.json", "/own.json", "/gpus.json")):
        assert {"field": field, "message": words} in response.json()["detail"]
    else:
        assert words in response.text


def test_ids_with_underscores_are_not_numbers(client: TestClient) -> None:
    response = client.get("/api/v1/providers?sort=h100_price&kind=serverless")
    assert response.status_code == 200


def test_a_huge_whole_number_is_too_large_not_invalid(client: TestClient) -> None:
    twin = client.get("/rank.json?phase=inference&model=llama-3.1-8b&input_len=1e30")
    assert twin.status_code == 422
    [error] = twin.json()["detail"]
    assert error["field"] == "input_len" and "must be at most" in error["message"]
    page = client.get("/?phase=inference&model=llama-3.1-8b&input_len=1e30")
    assert page.status_code == 422 and "must be at most" in page.text and "valid integer" not in page.text


def test_the_json_api_keeps_json_numbers(client: TestClient) -> None:
    response = client.post(
        "/api/v1/plan/serving",
        json={"workload": {"model": "llama-3.1-8b"}, "traffic": {"requests_per_day": "500,000"}},
    )
    assert response.status_code == 422 and "requests_per_day" in response.text


@pytest.mark.parametrize("typed", ["1e3", "1.0e3", "1,000"])
def test_a_whole_number_typed_in_exponent_form_is_taken_by_every_face(
    client: TestClient, database: str, capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    """QA: `input_len=1e3` in a query string was refused where a JSON body's 1e3 is 1000: every face that reads
    typed text (pages, their twins, the API's ?limit=, the command line) now reads it as the pages do."""
    from app.cli.main import main as cli

    body = client.post("/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b", "input_len": 1e3}).json()
    assert body["workload"]["input_len"] == 1000
    twin = client.get(f"/rank.json?phase=inference&model=llama-3.1-8b&input_len={typed}", follow_redirects=True)
    assert twin.status_code == 200 and twin.json()["workload"]["input_len"] == 1000
    limited = client.post("/api/v1/rank/inference?limit=1e0", json={"model": "llama-3.1-8b"})
    assert limited.status_code == 200 and len(limited.json()["options"]) == 1
    plan = {"workload": {"model": "llama-3.1-8b"}, "traffic": {"requests_per_day": 1000}}
    assert client.post("/api/v1/plan/serving?limit=1.0e0", json=plan).status_code == 200
    argv = ["rank", "inference", "--model", "llama-3.1-8b", "--input-len", typed, "--limit", "1e0", "--json"]
    assert cli(argv) == 0
    assert json.loads(capsys.readouterr().out)["workload"]["input_len"] == 1000


@pytest.mark.parametrize("typed", ["1.2345e3", "1e-3", "1,5"])
def test_a_fractional_whole_number_is_refused_by_every_face_naming_the_field(
    client: TestClient, database: str, capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    from app.cli.main import main as cli

    twin = client.get(f"/rank.json?phase=inference&model=llama-3.1-8b&input_len={typed}")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "input_len"
    json_body = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-8b", "input_len": 1.2345e3})
    assert json_body.status_code == 422 and json_body.json()["detail"][0]["field"] == "input_len"
    assert client.post("/api/v1/rank/inference?limit=2.5e0", json={}).json()["detail"][0]["field"] == "limit"
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--input-len", typed]) == 2
    assert "--input-len" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("url", "field", "typed"),
    [
        ("/own?gpu=H100-SXM&gpu_count=1e30&utilisation_pct=60", "gpu_count", "1e30"),
        ("/own?gpu=H100-SXM&pue=1e308", "pue", "1e308"),
        ("/own?gpu=H100-SXM&usd_per_kwh=1,000", "usd_per_kwh", "1,000"),
        ("/mix?model=llama-3.1-8b&max_gpus=1e30", "max_gpus", "1e30"),
        ("/disagg?model=llama-3.1-8b&input_len=1e30", "input_len", "1e30"),
        ("/?phase=inference&model=llama-3.1-8b&input_len=1e30", "input_len", "1e30"),
        ("/?phase=inference&model=llama-3.1-8b&input_len=2,000,000", "input_len", "2,000,000"),
        ("/?phase=training&model=llama-3.1-8b&total_tokens=1e400", "total_tokens", "1e400"),
        ("/plan?model=llama-3.1-8b&months=1e3", "months", "1e3"),
    ],
)
def test_a_refused_number_is_refilled_as_typed(client: TestClient, url: str, field: str, typed: str) -> None:
    """`1e30` refilled the form as 1000000000000000019884624838656 (float's int), then as 1 and 30 zeros, `1e308` as
    309 digits and `1,000` as 1000: none of them what was typed (qa20). The error beside it still reads the number."""
    page = client.get(url)
    assert page.status_code == 422
    refilled = re.search(f'<input id="f-{field}" name="{field}"[^>]*>', page.text)
    assert refilled and f'value="{typed}"' in refilled[0] and 'aria-invalid="true"' in refilled[0]
    assert f'id="err-{field}"' in page.text and "0" * 30 not in page.text


@pytest.mark.parametrize(
    ("url", "field", "said"),
    [("/?model=1e3", "model", "unknown model &#39;1e3&#39;"), ("/own?gpu=1e308", "gpu", "unknown GPU &#39;1e308&#39;")],
)
def test_an_id_is_never_read_as_a_number(client: TestClient, url: str, field: str, said: str) -> None:
    """`model=1e3` was "unknown model '1000'"; `gpu=1e308` a 309-digit id "at most 64 characters" long (qa20)."""
    page = client.get(url)
    assert page.status_code == 422 and said in page.text
    assert f'<option value="{url.rsplit("=", 1)[1]}" selected>' in page.text


def test_the_mix_is_text_and_is_refilled_as_typed(client: TestClient) -> None:
    """The mix's buckets are text, never one number to read: `1,000` came back as `1000`."""
    page = client.get("/mix?model=llama-3.1-8b&mix=1,000").text
    assert 'value="1,000"' in page and 'id="err-mix"' in page


def test_mix_buckets_read_exponent_whole_numbers_as_the_forms_do(client: TestClient) -> None:
    # `2e3x400:1` was refused as "not a valid integer", though input_len=2e3 is 2000 on every other face.
    typed = client.get("/mix.json?model=llama-3.1-8b&mix=2e3x400:1,1e3x100:1")
    plain = client.get("/mix.json?model=llama-3.1-8b&mix=2000x400:1,1000x100:1")
    assert typed.status_code == plain.status_code == 200
    assert [b["name"] for b in typed.json()["buckets"]] == ["2000x400", "1000x100"]
    api = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "mix": "2.5E3x4e2:1e0"})
    assert api.status_code == 200 and api.json()["buckets"][0]["name"] == "2500x400"


def test_a_huge_mix_length_is_too_large_not_invalid(client: TestClient) -> None:
    twin = client.get("/mix.json?model=llama-3.1-8b&mix=1e30x100:1")
    assert twin.status_code == 422
    [error] = twin.json()["detail"]
    assert "must be at most" in error["message"] and "valid integer" not in error["message"]
    page = client.get("/mix?model=llama-3.1-8b&mix=1e30x100:1")
    assert page.status_code == 422 and "must be at most" in page.text and "valid integer" not in page.text
