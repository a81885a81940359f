"""A /mix row's rented instances hold copies of its layout beyond the few its peak needs: the row says how many copies
could share its requests, each one's load against what one copy sustains at the limits, and what the spare GPUs would
buy, as /rank's peak rows say theirs. A row of one bucket is then a fixed request rate of one length, timed as /rank
times a fixed load spread over the same copies; a row of several buckets sends each copy several lengths at once,
which no estimate times, so it says so and gives no p99 (found by mix3: /mix said only 'spare at peak')."""

from __future__ import annotations

import re
from html import unescape

import pytest

from app.cli.main import main
from app.scoring.serving.traffic.week import HOURS_PER_MONTH

# 8,640 requests a day, flat: 0.1 requests/s at every hour. CoreWeave rents B200s as whole 8-GPU instances; one GPU
# per copy (max_gpus=1) is the layout on both faces
WHERE = "model=llama-3.1-8b&weight_dtype=bf16&max_gpus=1&providers=coreweave&gpus=b200"
MIX = f"{WHERE}&requests_per_day=8640&profile=flat"
# chat's lengths (70 in, 215 out) at 0.1 requests/s, the load /rank spreads over the 8 copies of its instance
FIXED = f"phase=inference&{WHERE}&input_len=70&output_len=215&scenario=request_rate&requests_per_s=0.1"


def _row(client, mix: str):  # type: ignore[no-untyped-def]
    body = client.get(f"/mix.json?{MIX}&mix={mix}").json()
    (row,) = body["mix"]["rows"]
    fits = {f["bucket"]: f for f in next(t for t in body["replica_types"] if t["key"] == row["replica"])["fits"]}
    return row, fits


def test_a_one_bucket_row_spread_over_its_copies_runs_as_rank_spreads_that_load(client):  # type: ignore[no-untyped-def]
    row, fits = _row(client, "chat:1")
    assert (row["replicas"], row["copies"], row["copies_at_peak"], row["idle_gpus_at_peak"]) == (1, 8, 1, 7)
    assert row["requests_per_s_at_peak"] == pytest.approx(0.1)
    assert row["one_copy_requests_per_s"] == pytest.approx(fits["chat"]["requests_per_s"] / 8, rel=1e-5)
    assert (row["copies_at_peak_if_spread"], row["spread_requests_per_s"]) == (8, pytest.approx(0.0125))  # 0.1 / 8
    fixed = [o for o in client.get(f"/rank.json?{FIXED}").json()["options"] if o["price_type"] == row["price_type"]]
    (b200,) = [o for o in fixed if o["usd_per_gpu_hour"] == row["usd_per_gpu_hour"]]
    assert (b200["copies_sharing_load"], b200["gpu_count"]) == (8, 1)
    assert (row["spread_ttft_p99_ms"], row["spread_tpot_p99_ms"]) == (b200["ttft_p99_ms"], b200["tpot_p99_ms"])
    assert row["spread_ttft_p99_ms"] < fits["chat"]["ttft_p99_ms"]  # lighter than the limits' load each is sized at
    assert row["usd_per_month"] == pytest.approx(8 * row["usd_per_gpu_hour"] * HOURS_PER_MONTH, abs=0.01)  # the bill
    words = "one copy serves the peak; run 8 copies on the 8 billed GPUs and the peak's p99 TTFT falls to"
    assert row["fleet_note"].startswith(words)
    assert row["fleet_note"].endswith(" (0.0125 requests/s each, of the 62.8 one copy sustains at the limits)")


def test_a_row_of_two_buckets_says_its_copies_and_their_load_and_why_no_p99(client, database, capsys):  # type: ignore[no-untyped-def]
    row, fits = _row(client, "chat:1,rag:1")
    load = 0.05 / fits["chat"]["requests_per_s"] + 0.05 / fits["rag"]["requests_per_s"]  # instances the peak loads
    assert row["load_replicas"] == pytest.approx(load, abs=1e-6)  # 0.00097, to 6 places
    assert row["one_copy_requests_per_s"] == pytest.approx(0.1 / (load * 8), rel=1e-5)  # chat and rag, half each
    assert (row["copies_at_peak_if_spread"], row["spread_requests_per_s"]) == (8, pytest.approx(0.0125))
    assert (row["spread_ttft_p99_ms"], row["spread_tpot_p99_ms"]) == (None, None)
    assert row["fleet_note"].startswith(
        "one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are billed, spare at peak: all 8 copies "
        "it holds could share the peak, 0.0125 requests/s each, of the "
    )
    assert row["fleet_note"].endswith(
        "no p99 is given for them: a copy would serve chat and rag together, and an estimate times one request "
        "length at a time"
    )
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(f"/mix?{MIX}&mix=chat:1,rag:1").text)))
    assert row["fleet_note"] in text
    flags = ["--model", "llama-3.1-8b", "--weight-dtype", "bf16", "--max-gpus", "1", "--providers", "coreweave"]
    flags += ["--gpus", "b200", "--requests-per-day", "8640", "--profile", "flat", "--mix", "chat:1,rag:1"]
    assert main(["mix", *flags]) == 0
    assert f"1 × 8×B200 (8 copies of 1) at CoreWeave: {row['fleet_note']}" in capsys.readouterr().out


def test_a_row_with_no_copy_to_spare_says_nothing_spread(client):  # type: ignore[no-untyped-def]
    body = client.get("/mix.json?model=llama-3.1-8b&requests_per_day=100000&providers=coreweave&gpus=gh200").json()
    (row,) = body["mix"]["rows"]
    assert (row["copies"], row["idle_gpus_at_peak"], row["fleet_note"]) == (1, 0, "")
    assert (row["copies_at_peak_if_spread"], row["spread_requests_per_s"], row["spread_ttft_p99_ms"]) == (None,) * 3
    assert row["one_copy_requests_per_s"] == pytest.approx(row["requests_per_s_at_peak"] / row["load_replicas"])
