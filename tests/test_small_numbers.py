"""A nonzero number shown to a person never reads 0: 0.1 requests/day is not "0 requests/day", a 0.001 ms TPOT limit's
target is not "target 0.0", on the pages, in the API's words and on the command line (scoring.explain.fixed)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.scoring.explain import duration_text, fixed, percent, range_places


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (0.1, 0, "0.1"),
        (0.0008, 1, "0.0008"),
        (0.00123, 2, "0.0012"),
        (-0.3, 0, "-0.3"),
        (0.0, 1, "0.0"),
        (1234.5, 0, "1,234"),  # banker's rounding, as format() rounds
        (0.06, 1, "0.1"),  # rounds to something nonzero: the places asked for
        (3e-9, 2, "0.000000003"),  # no exponent
    ],
)
def test_a_nonzero_value_that_would_round_to_zero_keeps_two_significant_figures(
    value: float, decimals: int, text: str
) -> None:
    assert fixed(value, decimals) == text


def test_a_fraction_of_a_second_is_not_zero_seconds() -> None:
    assert duration_text(0.2) == "0.2 s"
    assert duration_text(5) == "5 s"


def test_a_duration_over_a_year_reads_in_years():
    """A 1e9-request batch job's run time read "5,511 days" (found by leftovers8)."""
    day = 86_400.0
    assert duration_text(5_511 * day) == "15 years"
    assert duration_text(400 * day) == "1.1 years"
    assert duration_text(364 * day) == "364 days"


def test_the_plan_page_names_a_traffic_below_one_request_a_day(client: TestClient) -> None:
    page = client.get("/plan?model=llama-3.1-8b&requests_per_day=0.1").text
    assert "at 0.1 requests/day" in page and "at 0 requests/day" not in page
    assert "peak 0.00 requests/s" not in page


def test_a_tiny_tpot_limit_names_its_target(client: TestClient) -> None:
    body = {"model": "llama-3.1-8b", "tpot_ms": 0.001}
    text = client.post("/api/v1/rank/inference", json=body).text
    assert "(target 0.0008:" in text and "target 0.0:" not in text


def test_the_cli_plan_names_a_traffic_below_one_request_a_day(database: str, capsys: Any) -> None:
    assert cli(["plan", "serving", "--model", "llama-3.1-8b", "--requests-per-day", "0.1", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Llama 3.1 8B: 0.1 requests/day") and "peak 0.00/s" not in out
    assert "$0/month" not in out and "$0.00/month" not in out


def test_a_light_load_does_not_read_as_an_idle_queue(client: TestClient) -> None:
    disagg = {"workload": {"model": "llama-3.1-8b"}, "traffic": {"requests_per_day": 0.1}}
    text = client.post("/api/v1/disagg", json=disagg).text
    assert "queue at ρ 0.0000" in text and "queue at ρ 0.00 " not in text


def test_a_small_share_reads_as_its_percentage(client: TestClient) -> None:
    assert percent(0.6) == "60%" and percent(0.0001) == "0.01%"
    body = {"gpu": "H100-SXM", "gpu_count": 8, "utilisation_pct": 0.01}
    renting = next(t for t in client.post("/api/v1/own", json=body).json()["terms"] if t["name"] == "renting")
    assert "× 0.01% utilisation" in renting["detail"]


def _total_usd_cell(out: str) -> str:
    """Row #1's total $ (band) cell of a CLI training table, read by its header (columns two spaces apart or more)."""
    header, _, row = out.splitlines()[1:4]
    cells = dict(zip(re.split(r"\s{2,}", header.strip()), re.split(r"\s{2,}", row.strip()), strict=False))
    return cells["total $ (band)"]


def test_the_cli_ranking_does_not_bill_a_short_run_as_0_dollars(database: str, capsys: Any) -> None:
    argv = ["rank", "training", "--model", "llama-3.2-1b", "--total-tokens", "262144", "--gpus", "B200", "--limit", "1"]
    assert cli(argv) == 0
    total = _total_usd_cell(capsys.readouterr().out).split()[0]
    assert float(total) > 0, total


def test_a_bands_two_ends_share_their_places(client: TestClient) -> None:
    """A band read '0.0033–0.01': its low end needed four places, its high end was rounded to two."""
    assert range_places(0.0033, 0.0052, 2) == 4 and range_places(1.5, 2.5, 2) == 2
    page = client.get("/?phase=training&model=llama-3.2-1b&total_tokens=262144&gpus=B200").text
    bands = re.findall(r'class="muted band">\(([0-9.]+)–([0-9.]+)\)', page)
    assert bands and all(len(low.split(".")[-1]) == len(high.split(".")[-1]) for low, high in bands)
    assert all(float(low) > 0 for low, _ in bands)  # it read 0.00–0.01 before either fix


def test_the_cli_ranking_keeps_the_cents_of_a_run_under_10_dollars(database: str, capsys: Any) -> None:
    """A 20-minute LoRA run billed $1.36 read "1" in the total $ column, beside a $1.55 run that read "2"."""
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--total-tokens", "2e7", "--gpus", "H100-SXM"]
    argv += ["--limit", "1"]
    assert cli([*argv, "--json"]) == 0
    billed = json.loads(capsys.readouterr().out)["options"][0]["total_usd"]
    assert cli(argv) == 0
    total = _total_usd_cell(capsys.readouterr().out)
    assert billed < 10 and total.split()[0] == f"{billed:.2f}", total


def test_own_refuses_a_utilisation_below_a_hundredth_of_a_percent(client: TestClient) -> None:
    """utilisation_pct=1e-300 rendered "1e-300 % utilisation" and renting "$0/month": now a 422 naming the field."""
    twin = client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=1e-300")
    assert twin.status_code == 422
    [error] = twin.json()["detail"]
    assert error["field"] == "utilisation_pct" and "0.01" in error["message"]
    page = client.get("/own?gpu=H100-SXM&gpu_count=8&utilisation_pct=1e-300")
    assert page.status_code == 422 and 'id="err-utilisation_pct"' in page.text and "1e-300 %" not in page.text
    assert client.get("/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=0.01").status_code == 200


def test_mix_refuses_a_share_too_small_to_weigh(client: TestClient) -> None:
    """chat:1e-320 said "The shares add up to 9.99989e-321": a float that small has lost its digits."""
    twin = client.get("/mix.json?model=llama-3.1-8b&mix=chat:1,rag:1e-320")
    assert twin.status_code == 422
    [error] = twin.json()["detail"]
    assert error["field"] == "mix"
    assert "bucket 2, share: must be 0 (no traffic) or at least 0.000001" in error["message"]
    page = client.get("/mix?model=llama-3.1-8b&mix=chat:1e-320")
    assert page.status_code == 422 and "at least 0.000001" in page.text and "e-321" not in page.text


def test_a_small_share_total_reads_as_digits(client: TestClient) -> None:
    notes = client.get("/mix.json?model=llama-3.1-8b&mix=chat:2e-6").json()["notes"]
    assert any(n.startswith("The shares add up to 0.000002, not 1") for n in notes), notes
