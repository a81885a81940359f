"""A results page folds its form into a closed <details> under a one-line summary of the question, so the answer
starts above the fold of a laptop screen (the ranked table began ~1,200 px down under a ~650 px form at 1366x768);
a blank form and a form with errors (422) stay open, the errors beside their fields. htmx swaps the whole
workbench, so a submit folds the form again under the new question's summary, as the pushed URL opened cold does."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

FOLDED = re.compile(r'<details class="form-fold">\s*<summary><span class="fold-line">([^<]*)</span>.*?</summary>\s*'
                    r'<form class="workload"', re.S)  # fmt: skip

# (results URL, words its summary line must hold)
RESULTS = [
    ("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len=2048&output_len=256&peak_requests_per_s=4",
     "Llama 3.1 70B · FP8 · 2,048 → 256 tokens · TTFT ≤ 1,000 ms · TPOT ≤ 50 ms · 4 req/s peak"),
    ("/?phase=training&model=llama-3.1-8b&method=full_ft&total_tokens=10000000000",
     "Llama 3.1 8B · full fine-tune · BF16 · 4,096-token sequences × 64 per step · 10 billion tokens"),
    ("/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,H200", "Llama 3.1 8B · BF16 · 2,000 → 400 tokens"),
    ("/plan?model=llama-3.1-8b&requests_per_day=500000&months=12", "500,000 requests/day · trained, then served 12"),
    ("/disagg?model=llama-3.1-70b&peak_requests_per_s=2", "Llama 3.1 70B · BF16 · 2,000 → 400 tokens"),
    ("/precision?model=llama-3.1-70b&tpot_ms=40", "Llama 3.1 70B · 2,000 → 400 tokens · TTFT ≤ 1,000 ms · TPOT ≤ 40"),
    ("/mix?model=llama-3.1-8b&mix=chat:0.7,rag:0.3&requests_per_day=100000",
     "100,000 requests/day · lengths chat 70%, rag 30%"),
    ("/own?gpu=H100-SXM&gpu_count=16&utilisation_pct=60", "16 × H100-SXM · 8 per server · 60% utilisation"),
]  # fmt: skip
BLANK = ["/?phase=inference", "/?phase=training", "/compare", "/plan", "/disagg", "/precision", "/mix", "/own"]
INVALID = [
    "/?phase=inference&model=llama-3.1-70b&input_len=-5",
    "/?phase=training&model=llama-3.1-8b&seq_len=zzz",
    "/compare?phase=inference&model=llama-3.1-8b&tpot_ms=zzz",
    "/plan?model=llama-3.1-8b&input_len=-5",
    "/disagg?model=llama-3.1-70b&input_len=-5",
    "/precision?model=llama-3.1-70b&input_len=-5",
    "/mix?model=llama-3.1-8b&mix=chat:0,rag:0",
    "/own?gpu=H100-SXM&gpu_count=-1",
]


def _summary_line(page: str) -> str | None:
    match = FOLDED.search(page)
    return html.unescape(match.group(1)) if match else None


@pytest.mark.parametrize(("url", "words"), RESULTS)
def test_a_results_page_folds_its_form_under_the_questions_summary(client: TestClient, url: str, words: str) -> None:
    response = client.get(url, follow_redirects=True)
    assert response.status_code == 200, response.text[:400]
    line = _summary_line(response.text)
    assert line is not None, "the form is not the first thing in a closed details.form-fold"
    assert words in line, line
    assert response.text.count('class="form-fold"') == 1 and '<details class="form-fold" open' not in response.text


@pytest.mark.parametrize("url", BLANK)
def test_a_blank_form_stays_open(client: TestClient, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 200
    assert '<form class="workload"' in response.text and "form-fold" not in response.text


@pytest.mark.parametrize("url", INVALID)
def test_a_form_with_errors_stays_open_with_them(client: TestClient, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 422
    page = response.text
    assert '<form class="workload"' in page and "form-fold" not in page
    assert 'class="error-box"' in page and 'class="field-error"' in page
    box = page.split('class="error-box"', 1)[1].split("</div>", 1)[0]
    form = page.split('<form class="workload"', 1)[1]
    targets = re.findall(r'href="#(f-[^"]+)"', box)
    assert targets and all(f'id="{target}"' in form for target in targets), targets  # each link lands in the open form


def test_an_htmx_submit_folds_the_form_under_the_new_questions_summary(client: TestClient) -> None:
    hx = {"HX-Request": "true"}
    first = client.get("/?phase=inference&model=llama-3.1-8b&tpot_ms=50", headers=hx)
    again = client.get("/?phase=inference&model=llama-3.1-8b&tpot_ms=40", headers=hx)
    assert "<html" not in again.text and 'id="workbench"' in again.text
    assert "TPOT ≤ 50 ms" in (_summary_line(first.text) or "")
    assert "TPOT ≤ 40 ms" in (_summary_line(again.text) or "")
    wrong = client.get("/?phase=inference&model=llama-3.1-8b&tpot_ms=zzz", headers=hx)
    assert wrong.status_code == 422 and "form-fold" not in wrong.text and 'id="err-tpot_ms"' in wrong.text


# A question naming no weight_dtype ranks the model's release precision (FP8 for DeepSeek-R1), so its summary line
# names that, not the form's BF16 default: the line said "DeepSeek-R1 · BF16" above an answer ranked at FP8.
RELEASED_FP8 = [
    "/?phase=inference&model=deepseek-r1",
    "/compare?phase=inference&model=deepseek-r1&gpus=H200,B200",
    "/plan?model=deepseek-r1&requests_per_day=100000",
    "/disagg?model=deepseek-r1&peak_requests_per_s=2",
    "/mix?model=deepseek-r1&mix=chat:0.7,rag:0.3&requests_per_day=100000",
]


@pytest.mark.parametrize("url", RELEASED_FP8)
def test_a_summary_names_the_release_precision_it_ranked(client: TestClient, url: str) -> None:
    response = client.get(url, follow_redirects=True)
    assert response.status_code == 200, response.text[:400]
    line = _summary_line(response.text) or ""
    assert line.startswith("DeepSeek-R1 · FP8 · "), line
