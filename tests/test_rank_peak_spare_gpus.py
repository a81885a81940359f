"""A ranked row at a peak whose replicas sit on a whole rented instance with room for more copies says the GPUs billed
beyond the copies the peak needs, as /plan says them: the 8B at 3 req/s on CoreWeave's 8-GPU L40S instance ran 2
copies, billed 8 GPUs in $/month at peak, and read only '8 copies per 8-GPU instance' beside 'replicas come 8 at a
time' (found by qa31)."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

from app.cli.main import main

PEAK = "phase=inference&model=llama-3.1-8b&peak_requests_per_s=3&providers=coreweave"
L40S = "2 copies serve the peak; 6 more GPUs of their rented 8-GPU instance are billed, spare at peak"


def _l40s(client):  # type: ignore[no-untyped-def]
    options = client.get(f"/rank.json?{PEAK}").json()["options"]
    return next(o for o in options if o["gpu_id"] == "L40S")


def test_peak_row_says_its_spare_gpus_on_the_page(client):  # type: ignore[no-untyped-def]
    o = _l40s(client)
    billed = o["instances"] * o["instance_gpus"]
    assert (o["replicas"], o["gpu_count"], billed, o["copies_per_instance"]) == (2, 1, 8, 8)  # 6 by hand
    assert o["usd_per_month_at_peak"] == round(billed * o["usd_per_gpu_hour"] * 730, 1)  # every GPU billed
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(f"/?{PEAK}").text)))
    assert f"· 8 copies per 8-GPU instance · {L40S}" in text
    fixed = client.get("/?phase=inference&model=llama-3.1-8b&requests_per_s=3&scenario=request_rate").text
    assert "spare at peak" not in fixed  # a fixed load says its idle GPUs instead


def test_peak_row_says_its_spare_gpus_on_the_cli(database, capsys):  # type: ignore[no-untyped-def]
    flags = ["--model", "llama-3.1-8b", "--peak-requests-per-s", "3", "--providers", "coreweave", "--limit", "3"]
    assert main(["rank", "inference", *flags]) == 0
    assert f"TP1, 8 per 8-GPU instance; {L40S}" in capsys.readouterr().out


def test_peak_row_says_its_spare_gpus_in_json_and_csv(client):  # type: ignore[no-untyped-def]
    """The page's words and their count are in the JSON and, last, in the CSV, as /plan's rows carry them (found by
    tidy: the JSON and CSV had no field for them)."""
    o = _l40s(client)
    assert (o["idle_gpus_at_peak"], o["fleet_note"]) == (6, L40S)
    rows = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{PEAK}").text)))
    assert list(rows[0])[-6:-4] == ["idle_gpus_at_peak", "fleet_note"]  # then a fixed load's spread (spread)
    assert next(r for r in rows if r["gpu_id"] == "L40S")["fleet_note"] == L40S
    fixed = client.get("/rank.json?phase=inference&model=llama-3.1-8b&requests_per_s=3&scenario=request_rate").json()
    assert {(o["idle_gpus_at_peak"], o["fleet_note"]) for o in fixed["options"]} == {(0, "")}  # no peak, none spare
