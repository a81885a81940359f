"""What the rank and estimate payloads say, as an integrator reads them: an option that cannot run has no latency
(null, not 0), the means are named as means beside the p99s the limits are checked against, and each band says which
metric it is of."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.web.rank.csv_export import APPENDED, APPENDED_LAST, LAYOUT_COLUMNS

ALL_TERMS = "include_stale=true&price_types=on_demand,spot,reserved,marketplace,capacity_block"
LLAMA_70B = f"phase=inference&model=llama-3.1-70b&weight_dtype=fp8&{ALL_TERMS}"
TRAINING_70B = "phase=training&model=llama-3.1-70b&method=full_ft&max_gpus=16&include_stale=true"
TRAINING_MIXED = "phase=training&model=llama-3.1-8b&method=lora&total_tokens=1e9&price_types=on_demand,reserved,spot"
INFERENCE_MEASURES = (
    "ttft_ms", "tpot_ms", "ttft_mean_ms", "tpot_mean_ms", "ttft_median_ms", "ttft_p99_ms", "tpot_p99_ms", "batch",
    "output_tokens_per_s", "usd_per_million_output_tokens", "usd_per_million_tokens", "usd_per_thousand_requests",
    "replicas", "instances", "band", "band_metric", "ttft_p99_band", "tpot_p99_band",
)  # fmt: skip
TRAINING_MEASURES = (
    "usd_per_step", "step_time_s", "tokens_per_s_per_gpu", "mfu", "total_hours", "total_usd", "days", "billed_hours",
    "expected_interruptions", "band", "band_metric",
)  # fmt: skip
# The CSV's columns before this version, in order: a script that reads them by position keeps working.
INFERENCE_CSV_BEFORE = (
    "rank,gpu_id,gpu_count,tensor_parallel,provider,provider_name,price_type,usd_per_gpu_hour,as_of,feasible,reason,"
    "close_call,ttft_ms,tpot_ms,ttft_median_ms,ttft_p99_ms,tpot_p99_ms,batch,output_tokens_per_s,"
    "usd_per_million_output_tokens,usd_per_million_tokens,usd_per_thousand_requests,replicas,pipeline_parallel,nodes,"
    "machine,price_note,price_caveats,price_source_url,stale,interruptible,min_term_hours,offer_id,attention_parallel,"
    "expert_parallel,job_hours,job_billed_hours,job_usd,over_limits,instance_gpus,copies_per_instance,instances,"
    "usd_per_month_at_peak,band_low,band_high"
)
TRAINING_CSV_BEFORE = (
    "rank,gpu_id,gpu_count,layout,provider,provider_name,price_type,usd_per_gpu_hour,as_of,feasible,reason,close_call,"
    "usd_per_step,step_time_s,tokens_per_s_per_gpu,mfu,total_hours,total_usd,memory_per_gpu_gb,days,billed_hours,"
    "expected_interruptions,billing_note,cluster_caveat,nodes,machine,price_note,price_caveats,price_source_url,stale,"
    "interruptible,offer_id,band_low,band_high"
)


def _json(client: TestClient, query: str) -> dict[str, Any]:
    response = client.get(f"/rank.json?{query}")
    assert response.status_code == 200, response.text
    return response.json()


def _csv(client: TestClient, query: str) -> tuple[list[str], list[dict[str, str]]]:
    text = client.get(f"/rank.csv?{query}").text
    return next(csv.reader(io.StringIO(text))), list(csv.DictReader(io.StringIO(text)))


# --- an option that cannot run has no measures ----------------------------------------------------------------


def test_an_infeasible_inference_option_has_null_measures_and_empty_csv_cells(client: TestClient) -> None:
    options = _json(client, LLAMA_70B)["options"]
    infeasible = [o for o in options if not o["feasible"]]
    assert infeasible and all(o[k] is None for o in infeasible for k in INFERENCE_MEASURES)
    feasible = [o for o in options if o["feasible"]]
    assert all(o[k] is not None for o in feasible for k in INFERENCE_MEASURES)
    # the reviewer's script: rows at a p99 TTFT within a limit are rows that run
    assert [o for o in options if o["ttft_p99_ms"] is not None and o["ttft_p99_ms"] <= 1000] == [
        o for o in feasible if o["ttft_p99_ms"] <= 1000
    ]
    _, rows = _csv(client, LLAMA_70B)
    unfit = [r for r in rows if r["feasible"] == "false"]
    assert len(unfit) == len(infeasible)
    assert all(r[k] == "" for r in unfit for k in ("ttft_ms", "ttft_p99_ms", "batch", "band_low", "ttft_mean_ms"))
    assert all(r["ttft_p99_low_ms"] == r["tpot_p99_high_ms"] == "" for r in unfit)
    fit = [r for r in rows if r["feasible"] == "true"]
    assert float(fit[0]["ttft_p99_high_ms"]) == pytest.approx(feasible[0]["ttft_p99_band"]["high"])


def test_an_inference_estimate_that_cannot_run_has_null_measures(client: TestClient) -> None:
    body = {"model": "llama-3.1-70b", "gpu": "H100-SXM", "gpu_count": 3}  # TP3 does not divide 64 heads
    answer = client.post("/api/v1/estimate/inference", json=body).json()
    assert answer["feasible"] is False and "does not divide" in answer["reason"]
    measures = ("ttft_ms", "ttft_mean_ms", "ttft_p99_ms", "tpot_p99_ms", "batch", "max_batch", "output_tokens_per_s")
    assert all(answer[k] is None for k in measures) and answer["band"] is None
    assert answer["memory_gb"]["weights"] > 0  # what it would need stays: it says why it cannot run


def test_a_training_estimate_that_cannot_run_has_null_measures(client: TestClient) -> None:
    too_big = {"model": "llama-3.1-70b", "method": "full_ft", "gpu": "H100-SXM", "gpu_count": 1}
    answer = client.post("/api/v1/estimate/training", json=too_big).json()
    assert answer["feasible"] is False and answer["memory_per_gpu_gb"] > 80  # what it needs: why it does not fit
    assert [answer[k] for k in ("step_time_s", "tokens_per_s_per_gpu", "mfu", "band")] == [None] * 4
    beyond = {"model": "llama-3.1-8b", "method": "lora", "gpu": "H100-SXM", "gpu_count": 16}  # one 8-GPU node
    refused = client.post("/api/v1/estimate/training", json=beyond).json()
    assert refused["feasible"] is False and "span nodes" in refused["reason"]
    assert refused["memory_per_gpu_gb"] is None and refused["flops_per_token"] is None  # nothing was sized


def test_a_training_option_that_does_not_fit_has_null_measures(client: TestClient) -> None:
    options = _json(client, TRAINING_70B)["options"]
    unfit = [o for o in options if not o["layout"]]
    assert unfit and all(o[k] is None for o in unfit for k in TRAINING_MEASURES)
    assert all(o[k] is not None for o in options if o["feasible"] for k in TRAINING_MEASURES)
    _, rows = _csv(client, TRAINING_70B)
    assert all(r["expected_interruptions"] == "" and r["step_time_s"] == "" for r in rows if not r["layout"])


# --- means named as means, beside the p99s the limits are checked against ------------------------------------


def test_the_means_have_explicit_names_beside_their_old_ones(client: TestClient) -> None:
    option = _json(client, "phase=inference&model=llama-3.1-8b")["options"][0]
    assert option["ttft_mean_ms"] == option["ttft_ms"] < option["ttft_p99_ms"]
    assert option["tpot_mean_ms"] == option["tpot_ms"] < option["tpot_p99_ms"]
    estimate = {"model": "llama-3.1-8b", "gpu": "H100-SXM", "gpu_count": 1}
    answer = client.post("/api/v1/estimate/inference", json=estimate).json()
    assert answer["ttft_mean_ms"] == answer["ttft_ms"] and answer["tpot_mean_ms"] == answer["tpot_ms"]


def test_the_results_table_labels_the_means_and_shows_each_p99(client: TestClient) -> None:
    options = _json(client, "phase=inference&model=llama-3.1-8b")["options"]
    html = client.get("/?phase=inference&model=llama-3.1-8b").text
    ranked = html.split('<table class="data ranked', 1)[1]  # the ranking, not a chart's numbers above it
    head = " ".join(unescape(re.sub(r"<[^>]+>", " ", ranked.split("<thead", 1)[1].split("</thead>", 1)[0])).split())
    assert "TTFT ms mean (p99)" in head and "TPOT ms mean (p99)" in head
    cell = re.search(
        r'data-label="TTFT ms mean \(p99\)"[^>]*>([^<]*)'
        r'<span class="muted p99" title="p99 band ([^"]*) ms">\(([^<)]*)'
        r'<span class="sr-only">; p99 band ([^<]*) ms</span>\)',
        html,
    )
    assert cell and (float(cell.group(1)), float(cell.group(3))) == (
        round(options[0]["ttft_mean_ms"]),
        round(options[0]["ttft_p99_ms"]),
    )
    band = options[0]["ttft_p99_band"]  # the p99's band, as the JSON has it
    assert unescape(cell.group(2)) == f"{band['low']:,.0f}–{band['high']:,.0f}"
    assert cell.group(4) == cell.group(2)  # said without hovering too: keyboard and screen-reader users (qa24)


def test_the_cli_table_labels_the_means_and_shows_each_p99(database: str, capsys: Any) -> None:
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--limit", "1", "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["options"][0]
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--limit", "1"]) == 0
    _, head, _, row = capsys.readouterr().out.splitlines()[:4]
    assert "TTFT ms mean (p99)" in head and "TPOT ms mean (p99)" in head
    ttft = f"{best['ttft_mean_ms']:.0f} ({best['ttft_p99_ms']:.0f})"
    tpot = f"{best['tpot_mean_ms']:.1f} ({best['tpot_p99_ms']:.1f})"
    assert f"{ttft}  {tpot}" in re.sub(" {2,}", "  ", row)


# --- each band says what it is of ---------------------------------------------------------------------------


def test_each_inference_band_names_the_ranked_metric_it_is_of(client: TestClient) -> None:
    for query, metric in (
        ("phase=inference&model=llama-3.1-8b", "usd_per_million_output_tokens"),
        ("phase=inference&model=llama-3.1-8b&rank_by=requests", "usd_per_thousand_requests"),
        ("phase=inference&model=llama-3.1-8b&peak_requests_per_s=20", "usd_per_month_at_peak"),
    ):
        feasible = [o for o in _json(client, query)["options"] if o["feasible"]]
        assert {o["band_metric"] for o in feasible} == {metric}, query
        assert all(o["band"]["low"] <= o[metric] <= o["band"]["high"] for o in feasible), query
    _, rows = _csv(client, "phase=inference&model=llama-3.1-8b&peak_requests_per_s=20")
    assert {r["band_metric"] for r in rows if r["feasible"] == "true"} == {"usd_per_month_at_peak"}


def test_a_training_band_is_of_the_total_it_ranks_by_and_decides_its_close_calls(client: TestClient) -> None:
    feasible = [o for o in _json(client, TRAINING_MIXED)["options"] if o["feasible"]]
    assert {o["band_metric"] for o in feasible} == {"total_usd"}
    # of the total, not of $/step (B200's $42 run had a band of $0.009-0.017)
    assert all(o["band"]["low"] <= o["total_usd"] <= o["band"]["high"] for o in feasible)
    # a run billed its hours as used has a band around its total; one inside a reservation's month pays the month
    assert all(o["band"]["low"] < o["total_usd"] < o["band"]["high"] for o in feasible if o["price_type"] == "spot")
    reserved = [o for o in feasible if o["price_type"] == "reserved" and o["billed_hours"] > 1.5 * o["total_hours"]]
    assert reserved and all(o["band"]["low"] == o["total_usd"] == o["band"]["high"] for o in reserved)
    best = feasible[0]["band"]
    close = [o for o in feasible[1:] if o["close_call"]]
    assert close and all(o["band"]["low"] <= best["high"] and best["low"] <= o["band"]["high"] for o in close)


def test_an_estimates_band_names_the_throughput_it_is_of(client: TestClient) -> None:
    body = {"model": "llama-3.1-8b", "gpu": "H100-SXM", "gpu_count": 1}
    inference = client.post("/api/v1/estimate/inference", json=body).json()
    assert inference["band_metric"] == "output_tokens_per_s"
    assert inference["band"]["low"] <= inference["output_tokens_per_s"] <= inference["band"]["high"]
    training = client.post("/api/v1/estimate/training", json={**body, "method": "lora"}).json()
    assert training["band_metric"] == "tokens_per_s_per_gpu"
    assert training["band"]["low"] <= training["tokens_per_s_per_gpu"] <= training["band"]["high"]


# --- the CSV: earlier columns keep their places, every column is documented ------------------------------------


def test_new_csv_columns_come_after_every_earlier_one(client: TestClient) -> None:
    inference, _ = _csv(client, LLAMA_70B)
    latency_bands = ["ttft_p99_low_ms", "ttft_p99_high_ms", "tpot_p99_low_ms", "tpot_p99_high_ms"]
    appended = ["ttft_mean_ms", "tpot_mean_ms", "band_metric", "limits_at_risk", *latency_bands]
    offer_names = ["instance_type", "region"]  # the offer's instance and region, added after the latency bands
    later = ["requests_in_flight", "cluster_caveat", "requests_per_s", "idle_gpus"]  # in the order they were added
    later += ["idle_gpus_at_peak", "fleet_note"]  # a peak row's spare GPUs (tidy)
    later += ["copies_sharing_load", "one_copy_ttft_p99_ms", "one_copy_tpot_p99_ms", "spread_note"]  # (spread)
    later += ["copies_at_peak_if_spread", "spread_ttft_p99_ms", "spread_tpot_p99_ms"]  # a peak spread (spread2)
    later += ["software_era_note"]  # how old the engine and ROCm builds behind it are (rocmdate)
    assert inference == [*INFERENCE_CSV_BEFORE.split(","), *appended, *offer_names, *later]
    training, _ = _csv(client, TRAINING_MIXED)
    layout = list(LAYOUT_COLUMNS)  # the layout as fields (qa27), after the offer's names
    assert training == [*TRAINING_CSV_BEFORE.split(","), "band_metric", "deadline_at_risk", *offer_names, *layout]
    assert set(APPENDED) == {"ttft_mean_ms", "tpot_mean_ms", "band_metric", "limits_at_risk", "deadline_at_risk"}
    assert APPENDED_LAST == ("instance_type", "region", "requests_in_flight", "requests_per_s", "layout_detail")


def test_the_readme_documents_every_csv_column(client: TestClient) -> None:
    from tests.test_readme_truth import README

    section = README.split("#### What the answers say", 1)[1].split("\n### ", 1)[0]
    tables = {
        phase: {name for line in section.split(f"| CSV column ({phase})", 1)[1].split("\n\n", 1)[0].splitlines()
                for name in re.findall(r"`(\w+)`", line.split("|")[1] if line.count("|") > 2 else "")}
        for phase in ("inference", "training")
    }  # fmt: skip
    for phase, query in (("inference", LLAMA_70B), ("training", TRAINING_MIXED)):
        columns, _ = _csv(client, query)
        shared = tables["inference"] if phase == "training" else set()  # "as for inference"
        assert set(columns) - tables[phase] - shared == set(), phase


def test_a_csv_yes_no_cell_is_true_or_false_as_in_the_json(client: TestClient) -> None:
    """rank.csv wrote Python's True/False, which no CSV reader (pandas, a spreadsheet, Postgres COPY) reads as a
    boolean; each boolean field is `true` or `false`, as in the JSON twin, and README's CSV table says which."""
    from tests.test_readme_truth import README

    for query in (LLAMA_70B, TRAINING_MIXED):
        options = _json(client, query)["options"]
        _, rows = _csv(client, query)
        booleans = {k for o in options for k, v in o.items() if isinstance(v, bool)}
        assert {"feasible", "close_call", "stale", "interruptible"} <= booleans
        for option, row in zip(options, rows, strict=True):
            assert all(row[k] == str(option[k]).lower() for k in booleans)
    assert "(`feasible`, `close_call`, `stale`, `interruptible`) holds `true` or `false`" in " ".join(README.split())
