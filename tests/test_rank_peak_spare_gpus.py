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
# The spare GPUs hold 6 more copies: the words say the peak spread over all 8 (spread2) where they said 'spare at peak'
L40S = (
    "2 copies serve the peak; run 8 copies on the 8 billed GPUs and the peak's p99 TTFT falls to 371 ms, "
    "TPOT to 26.5 ms"
)


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
    assert list(rows[0])[-10:-8] == ["idle_gpus_at_peak", "fleet_note"]  # then spread, spread2 and rocmdate's
    assert next(r for r in rows if r["gpu_id"] == "L40S")["fleet_note"] == L40S
    fixed = client.get("/rank.json?phase=inference&model=llama-3.1-8b&requests_per_s=3&scenario=request_rate").json()
    assert {(o["idle_gpus_at_peak"], o["fleet_note"]) for o in fixed["options"]} == {(0, "")}  # no peak, none spare


def test_peak_spread_over_the_spare_gpus_is_the_fixed_load_spread_alike(client):  # type: ignore[no-untyped-def]
    """A peak row whose billed instance holds more copies says the p99s of the peak's load spread over all of them: one
    RTX PRO 6000 serves 3 req/s at the sized point, its 8-GPU instance's 8 copies at 0.375 req/s each run what the
    fixed load of 3 req/s spread over the same 8 copies runs at (found by spread2); replicas and $ stay the fleet's."""
    peak = next(o for o in client.get(f"/rank.json?{PEAK}").json()["options"] if o["gpu_id"] == "RTX-PRO-6000")
    fixed_query = "phase=inference&model=llama-3.1-8b&requests_per_s=3&scenario=request_rate&providers=coreweave"
    fixed = next(o for o in client.get(f"/rank.json?{fixed_query}").json()["options"] if o["gpu_id"] == "RTX-PRO-6000")
    assert (fixed["copies_sharing_load"], fixed["gpu_count"]) == (8, 1)
    assert (peak["replicas"], peak["instances"], peak["copies_at_peak_if_spread"]) == (1, 1, 8)
    assert (peak["spread_ttft_p99_ms"], peak["spread_tpot_p99_ms"]) == (fixed["ttft_p99_ms"], fixed["tpot_p99_ms"])
    assert peak["spread_ttft_p99_ms"] < peak["ttft_p99_ms"] and peak["spread_tpot_p99_ms"] < peak["tpot_p99_ms"]
    assert peak["usd_per_month_at_peak"] == round(8 * peak["usd_per_gpu_hour"] * 730, 1)  # the bill as sized
    assert peak["fleet_note"].startswith("one copy serves the peak; run 8 copies on the 8 billed GPUs and the peak's")
    alone = [o for o in client.get(f"/rank.json?{PEAK}").json()["options"] if o["feasible"] and not o["fleet_note"]]
    assert alone and all(o["copies_at_peak_if_spread"] is None for o in alone)  # GH200: nothing spare, nothing solved
