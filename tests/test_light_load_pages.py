"""A configuration that meets the latency limits only below one request in flight (scoring/test_light_load.py) reads
so in every face: the JSON's requests_in_flight, the results table's batch cell, the CLI table, the CSV."""

from __future__ import annotations

import csv
import io
import re

from fastapi.testclient import TestClient

from app.cli.main import main

QUERY = "model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&output_len=200&gpus=B200&max_gpus=1"


def test_the_json_gives_the_mean_in_flight_and_the_rest_null(client: TestClient) -> None:
    options = client.get(f"/rank.json?{QUERY}").json()["options"]
    light = [o for o in options if o["requests_in_flight"] is not None]
    assert light and all(0 < o["requests_in_flight"] < 1 and o["batch"] == 1 for o in light)
    assert all(o["reason"].startswith("fits below one request in flight") for o in light)
    whole = client.get(f"/rank.json?{QUERY.replace('8000', '2000')}").json()["options"]
    assert all(o["requests_in_flight"] is None for o in whole if o["feasible"])


def test_the_table_and_the_summary_say_below_one(client: TestClient) -> None:
    page = client.get(f"/?{QUERY}").text
    cells = re.findall(r'data-label="Batch" role="cell">(.*?)</td>', page)
    assert cells and all("&lt;1" in cell for cell in cells)
    assert "requests in flight on average (below one: one always in flight misses the limits)" in page


def test_the_csv_and_the_cli_carry_it(client: TestClient, capsys) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{QUERY}").text)))
    feasible = [r for r in rows if r["feasible"] == "True"]
    assert feasible and all(0 < float(r["requests_in_flight"]) < 1 for r in feasible)
    args = ["rank", "inference", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "8000"]
    assert main([*args, "--output-len", "200", "--gpus", "B200", "--max-gpus", "1"]) == 0
    assert " <1 " in capsys.readouterr().out


def test_disagg_aggregated_side_gives_the_mean_in_flight_not_batch_1(client: TestClient) -> None:
    body = client.get(f"/disagg.json?{QUERY}&requests_per_day=100000").json()
    agg = body["aggregated"]
    in_flight = agg["requests_in_flight"]
    assert in_flight is not None and 0 < in_flight < 1 and agg["batch"] == 1
    line = next(line for line in body["verdict"]["why"] if line.startswith("Aggregated:"))
    assert "batch 1;" not in line and "requests in flight on average (below one" in line
    assert f"= {in_flight * 8000 / 200:,.0f} prompt tokens" in line  # the mean in flight's prompts, not batch 1's 40
    terms = {t["name"]: t["value"] for t in agg["terms"]}
    assert "batch" not in terms and abs(terms["requests in flight"] - in_flight) < 1e-3
    interference = [line for line in body["verdict"]["why"] if line.startswith("Prefill interference")]
    assert all(" in flight on average with prompts" in line for line in interference)
