"""The prompt spread (p99 prompt ÷ mean) a question may give: a p99 first token's own prefill runs that much longer.

A p99 TTFT is the mean x the fitted p99 / mean ratio, so a lone request of fixed-length prompts (a classification
job, a benchmark's fixed prompts) was held to twice its own prefill. A question that gives its spread has its own
prefill scaled by it and its waits by the fitted ratio; one whose prompts are one length says 1."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

LONE = "model=llama-3.1-8b&input_len=2000&output_len=200&ttft_ms=3000&tpot_ms=50&scenario=concurrency&concurrency=1"


def _first(client: TestClient, query: str) -> dict:
    response = client.get(f"/rank.json?phase=inference&{query}&gpus=H100-SXM")
    assert response.status_code == 200, response.text
    return next(o for o in response.json()["options"] if o["feasible"])


def test_a_lone_request_of_one_prompt_length_has_its_mean_as_its_p99(client: TestClient) -> None:
    fitted, fixed = _first(client, LONE), _first(client, f"{LONE}&prompt_p99_over_mean=1")
    assert fixed["ttft_p99_ms"] == pytest.approx(fixed["ttft_mean_ms"])
    assert fitted["ttft_p99_ms"] == pytest.approx(fitted["ttft_mean_ms"] * DEFAULT_EFFICIENCY.p99_ttft_over_mean)
    wide = _first(client, f"{LONE}&prompt_p99_over_mean=3")  # no waits: the spread alone scales the p99
    assert wide["ttft_p99_ms"] == pytest.approx(wide["ttft_mean_ms"] * 3)


def test_the_p99_term_without_a_spread_says_how_one_prompt_length_would_read(client: TestClient) -> None:
    """A lone request's p99 at twice its mean puzzles a buyer whose prompts are one length: the term says why."""
    terms = {t["name"]: t["detail"] for t in _first(client, LONE)["terms"]}
    assert "with no prompt spread given" in terms["TTFT p99"] and "a prompt spread of 1" in terms["TTFT p99"]
    spread = {t["name"]: t["detail"] for t in _first(client, f"{LONE}&prompt_p99_over_mean=1")["terms"]}
    assert "no prompt spread given" not in spread["TTFT p99"]


def test_the_spread_moves_which_batch_meets_a_tight_ttft_limit(client: TestClient) -> None:
    """Latency bound at a TTFT limit that binds: one prompt length admits more load than the benchmarks' spread."""
    query = "model=llama-3.1-8b&input_len=8000&output_len=200&ttft_ms=800&tpot_ms=100&scenario=latency_bound"
    spread, fixed = _first(client, query), _first(client, f"{query}&prompt_p99_over_mean=1")
    assert fixed["batch"] > spread["batch"]


@pytest.mark.parametrize("value", ["0.5", "25", "x"])
def test_a_spread_out_of_range_is_a_422_naming_the_field(client: TestClient, value: str) -> None:
    response = client.get(f"/rank.json?phase=inference&{LONE}&prompt_p99_over_mean={value}")
    assert response.status_code == 422 and "prompt_p99_over_mean" in response.text
    page = client.get(f"/?phase=inference&{LONE}&prompt_p99_over_mean={value}")
    assert page.status_code == 422 and 'id="err-prompt_p99_over_mean"' in page.text


@pytest.mark.parametrize("path", ["/", "/plan", "/disagg", "/precision"])
def test_every_form_with_request_lengths_shows_and_keeps_the_spread(client: TestClient, path: str) -> None:
    lengths = "model=llama-3.1-8b&input_len=2000&output_len=200&ttft_ms=3000&tpot_ms=50"  # every page takes these
    page = client.get(f"{path}?{lengths}&prompt_p99_over_mean=1.5", follow_redirects=True)
    assert page.status_code == 200
    assert 'id="f-prompt_p99_over_mean"' in page.text and 'value="1.5"' in page.text


def test_disaggs_prefill_pool_runs_busier_when_every_prompt_is_one_length(client: TestClient) -> None:
    """The prefill pool weighs its pass by the spread given over the fitted ratio, as aggregated serving's p99 does."""
    query = "model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&tpot_ms=40&ttft_ms=5000"
    spread = client.get(f"/disagg.json?{query}").json()
    fixed = client.get(f"/disagg.json?{query}&prompt_p99_over_mean=1").json()
    per_gpu = [
        p["capacity_requests_per_s"] / p["gpu_count"]
        for p in (b["disaggregated"][0]["prefill"] for b in (spread, fixed))
    ]
    assert per_gpu[1] > per_gpu[0]  # each prefill GPU may run busier before its first token breaks the limit
