"""An open loop (scenario request_rate) that keeps under one request in flight says its mean in flight in every face,
as its reason does: the JSON's requests_in_flight, the results table's batch cell, the summary, the CLI, the CSV; not
"batch 1" (0.001 requests/s of Llama 3.1 70B FP8 on one B200 keep 0.0032 in flight)."""

from __future__ import annotations

import csv
import io
import re

from fastapi.testclient import TestClient

from app.cli.main import main

QUERY = (
    "model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&output_len=200&gpus=B200&max_gpus=1"
    "&scenario=request_rate&requests_per_s=0.001"
)
CLI = ["rank", "inference", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "8000"]


def test_the_json_gives_a_trickles_mean_in_flight(client: TestClient) -> None:
    options = [o for o in client.get(f"/rank.json?{QUERY}").json()["options"] if o["feasible"]]
    assert options and all(0 < o["requests_in_flight"] < 0.01 and o["batch"] == 1 for o in options)
    assert all(f"fits: {o['requests_in_flight']:.2g} requests in flight on average" in o["reason"] for o in options)


def test_a_busy_open_loop_keeps_its_batch(client: TestClient) -> None:
    # 8 requests/s: even spread over the 8 copies of a rented 8xB200 instance (spread_load.py), 1 a second each keeps
    # more than one in flight (1 request/s spread so leaves each copy under one)
    busy = client.get(f"/rank.json?{QUERY.replace('requests_per_s=0.001', 'requests_per_s=8')}").json()["options"]
    feasible = [o for o in busy if o["feasible"]]
    assert feasible and all(o["requests_in_flight"] is None for o in feasible)


def test_the_table_and_the_summary_say_below_one_not_batch_1(client: TestClient) -> None:
    page = client.get(f"/?{QUERY}").text
    cells = re.findall(r'data-label="Batch" role="cell">(.*?)</td>', page)
    assert cells and all("&lt;1" in cell and "Little" in cell for cell in cells)
    assert "requests in flight on average (below one: what the arrivals keep" in page
    assert "at batch 1," not in page


def test_the_csv_and_the_cli_carry_it(client: TestClient, capsys) -> None:  # type: ignore[no-untyped-def]
    rows = [r for r in csv.DictReader(io.StringIO(client.get(f"/rank.csv?{QUERY}").text)) if r["feasible"] == "true"]
    assert rows and all(0 < float(r["requests_in_flight"]) < 0.01 for r in rows)
    args = ["--output-len", "200", "--gpus", "B200", "--max-gpus", "1", "--scenario", "request_rate"]
    assert main([*CLI, *args, "--requests-per-s", "0.001"]) == 0
    assert " <1 " in capsys.readouterr().out
