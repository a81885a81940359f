"""A training ranking's "Train it, then serve it for a year" link was not /plan's own spelling of the question: every
click answered 303 to the canonical URL first (found by qa44). It is now the URL /plan writes back."""

from __future__ import annotations

import re

import pytest

QUESTIONS = (
    "phase=training&model=llama-2-7b&method=pretrain&total_tokens=100000000000&max_days=3",
    "phase=training&model=llama-3.1-70b&method=qlora&seq_len=8192&global_batch_seqs=16&total_tokens=100000000"
    "&lora_rank=64&framework=pytorch&optimizer=adamw_8bit&max_days=2&price_types=on_demand,spot&gpus=L40S,H100-SXM",
    "phase=training&model=gpt-3-175b",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_training_rankings_plan_link_is_the_plans_canonical_url(client, question: str) -> None:  # type: ignore[no-untyped-def]
    page = client.get(f"/?{question}", follow_redirects=False)
    assert page.status_code == 200
    link = re.search(r'<a href="(/plan\?[^"]+)">Train it, then serve it for a year', page.text)
    assert link is not None
    url = link.group(1).replace("&amp;", "&")
    answer = client.get(url, follow_redirects=False)
    assert answer.status_code == 200, answer.headers.get("location")
    assert "Train, then serve for 12 months" in answer.text
