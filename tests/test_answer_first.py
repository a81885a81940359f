"""A results page says its answer first: on /plan, /disagg, /mix and /own the verdicts, notes and chart came
before the main table, whose first row began 1,088-1,449 px down at 1366x768 (tests/browser/test_answer_first_browser.py
measures it). The notes, the why, the chart and the inputs now follow the table, in the page without JavaScript too.
Each results heading and error summary takes focus (tabindex="-1"), which static/js/app.js gives it after an htmx
submit; the script finds the heading through its section's aria-labelledby."""

from __future__ import annotations

import csv
import io
import re

import pytest
from fastapi.testclient import TestClient

from app.scoring.training.run.limit_words import days_text

# (results URL, markers in the order the page must show them: the main table's first, then what follows it)
ORDER = [
    ("/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
     ['class="summary"', '<caption role="caption">Dedicated:', 'class="break-even"', 'class="saved-note"',
      'data-chart="cost-traffic"', "Serverless per-token prices"]),
    ("/disagg?model=llama-3.1-70b",
     ['class="verdict', '<tr data-layout="aggregated"', '<tr data-layout="disaggregated"', 'class="share"',
      '<h3 id="disagg-aggregated">', '<h3 id="disagg-plans">', 'class="why"', 'data-chart="cost-disagg"']),
    # a mix of two GPU types (B200 + H100): a one-type mix shows its fleet in one table
    ("/mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=2000000&weight_dtype=fp8",
     ['id="mix-summary"', '<caption role="caption">The cheapest mix', '<caption role="caption">Best single GPU type',
      'class="saved-note"', 'data-chart="mix-cost"', "Request-length buckets"]),
    ("/own?gpu=H100-SXM&gpu_count=16&utilisation_pct=60",
     ['class="break-even"', "How the monthly costs are made", 'class="saved-note"', 'data-chart="own-rent"',
      "Inputs used"]),
]  # fmt: skip
RESULTS = [url for url, _ in ORDER] + [
    "/?phase=inference&model=llama-3.1-8b",
    "/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,H200",
    "/precision?model=llama-3.1-8b",
    "/mix?model=llama-3.1-8b",
]
INVALID = [
    "/?phase=inference&model=llama-3.1-70b&input_len=-5",
    "/plan?model=llama-3.1-8b&input_len=-5",
    "/own?gpu_count=-1",
]
HEADING = re.compile(r'<section class="results" aria-labelledby="([\w-]+)">\s*<h2 id="([\w-]+)"([^>]*)>')


@pytest.mark.parametrize(("url", "markers"), ORDER)
def test_the_main_table_comes_before_the_notes_and_the_chart(client: TestClient, url: str, markers: list[str]) -> None:
    page = client.get(url).text
    section = page[page.index('<section class="results"') :]
    positions = [section.find(marker) for marker in markers]
    assert -1 not in positions, [m for m, p in zip(markers, positions, strict=True) if p == -1]
    assert positions == sorted(positions), sorted(zip(positions, markers, strict=True))


@pytest.mark.parametrize("url", RESULTS)
def test_the_results_heading_names_its_region_and_takes_focus(client: TestClient, url: str) -> None:
    for headers in ({}, {"HX-Request": "true"}):  # the page and the fragment an htmx submit swaps in
        response = client.get(url, headers=headers)
        assert response.status_code == 200
        match = HEADING.search(response.text)
        assert match, "no section.results opening with its heading"
        assert match.group(1) == match.group(2) and 'tabindex="-1"' in match.group(3)


@pytest.mark.parametrize("url", INVALID)
def test_the_error_summary_takes_focus(client: TestClient, url: str) -> None:
    for headers in ({}, {"HX-Request": "true"}):
        response = client.get(url, headers=headers)
        assert response.status_code == 422
        assert response.text.count('id="error-summary"') == 1
        assert '<div class="error-box" id="error-summary" tabindex="-1" role="alert">' in response.text
        assert '<section class="results"' not in response.text


def test_a_tiny_training_run_shows_its_cents_and_minutes(client: TestClient) -> None:
    """A 10-step smoke test (2,621,440 tokens) bills well under $1 in its 15-minute start-up and 2 minutes of run; the
    page said "$0 for the run, 0.0 days" above "the run bills $0 (band $0–$0) … taking 0.0 days"."""
    url = "/?phase=training&model=llama-3.1-8b&total_tokens=2621440"
    best = client.get("/rank.json?" + url[2:]).json()["options"][0]
    assert best["total_usd"] < 1 and best["days"] < 0.02
    text = re.sub(r"<[^>]+>", "", client.get(url).text)
    assert f"${best['total_usd']:.2f} for the run" in text
    assert f"the run bills ${best['total_usd']:.2f} (band $" in text
    assert "$0 for the run" not in text and "0.0 days" not in text and "$0–$0" not in text


def test_the_ranked_tables_run_time_is_said_as_a_person_reads_it(client: TestClient) -> None:
    """A 41-minute LoRA run read "0.028" under "Days" in the training table (and "0.7 h" in the summary above it): the
    column is "Run time" and says each row's length as the rows' reasons do ("41 min", "9.1 days"), still sorted by
    the number; the JSON and CSV keep the numeric days."""
    url = "/?phase=training&model=llama-3.1-8b&method=lora&total_tokens=20000000"
    options = [o for o in client.get("/rank.json?" + url[2:]).json()["options"] if o["feasible"]]
    assert 0.02 < options[0]["days"] < 0.04  # 30 to 58 minutes
    page = client.get(url).text
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'data-label="Run time" role="cell">(.*?)</td>', page)]
    assert cells[:5] == [days_text(o["days"]) for o in options[:5]] and cells[0].endswith(" min")
    assert ">Run time<" in page and ">Days<" not in page
    table = list(csv.DictReader(io.StringIO(client.get("/rank.csv?" + url[2:]).text)))
    assert float(table[0]["days"]) == options[0]["days"]
    by_time = client.get(url + "&sort=days").text
    assert "sorted by run time" in by_time
    shown = [o for o in client.get("/rank.json?" + url[2:] + "&sort=days").json()["options"] if o["feasible"]]
    assert [o["days"] for o in shown] == sorted(o["days"] for o in shown)


def test_a_run_under_a_day_is_said_in_hours_as_the_compare_card_says_it(client: TestClient) -> None:
    """A 4.5-hour QLoRA run read "taking 0.2 days" in the summary (anything from 3.6 to 6 h)."""
    url = "/?phase=training&model=llama-3.1-70b&method=qlora&seq_len=2048&global_batch_seqs=16&total_tokens=50000000"
    best = client.get("/rank.json?" + url[2:]).json()["options"][0]
    assert 0.1 < best["days"] < 1
    text = re.sub(r"<[^>]+>", "", client.get(url).text)
    # its hours count the 0.25 h start-up (offer_terms.STARTUP_HOURS), which the summary says
    assert f"the token budget taking {best['total_hours']:.1f} h with the machine's start-up (" in text
    assert f"{best['total_hours']:.1f} h, ${best['usd_per_step']:.4f} per step" in text
    assert f"taking {best['days']:.1f} days" not in text
