"""The precision, own-vs-rent and GPU-mix pages and a batch job in a real Chromium: form, chart, link reproduces it."""

from __future__ import annotations

import re

import pytest

from tests.browser.flows import assert_link_reproduces, fill_form, open_form, save_shot, submit_and_read

pytestmark = pytest.mark.browser


def test_precision_page_compares_precisions_with_a_chart(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/precision")
    page.select_option("#f-model", "llama-3.1-70b")
    page.fill("#f-tpot_ms", "40")
    text = submit_and_read(page, r"/precision\?model=llama-3.1-70b.*tpot_ms=40")
    assert "INT4 weight-only" in text and "recovered" in text
    save_shot(page, "precision")
    assert_link_reproduces(page, text)


def test_own_page_overrides_an_input_and_keeps_it_in_the_link(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/own")
    assert "Break-even" in page.inner_text("main")  # the default question is answered at once
    page.fill("#f-pue", "1.3")
    text = submit_and_read(page, r"/own\?.*pue=1.3")
    assert "your value" in text and "months" in text
    save_shot(page, "own")
    assert_link_reproduces(page, text)


def test_mix_page_solves_chat_and_rag_and_shows_the_mix_beside_one_type(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/plan?model=llama-3.1-8b&requests_per_day=1000000")
    page.click("text=Chat and RAG on a mix of GPUs")  # the plan page links here with its traffic
    page.wait_for_url(re.compile(r"/mix\?model=llama-3.1-8b&mix=chat:0.5,rag:0.5&requests_per_day=1000000"))
    open_form(page)
    page.fill("#f-mix", "chat:0.7, rag:0.3")
    text = submit_and_read(page, r"/mix\?model=llama-3.1-8b&mix=chat:0.7,rag:0.3&requests_per_day=1000000$")
    summary = page.inner_text("#mix-summary")
    assert "Cheapest mix:" in summary and "Best single GPU type:" in summary and "Saving:" in summary
    assert "LMSYS-Chat-1M" in text and "Considered" in text
    save_shot(page, "mix")
    assert_link_reproduces(page, text)
    open_form(page)
    page.fill("#f-mix", "chat:0,rag:0")  # a 422 swaps in the form with the error beside the field
    page.click("button[type=submit]")
    page.wait_for_selector("#err-mix")
    assert "more than 0" in page.inner_text("#err-mix") and page.input_value("#f-mix") == "chat:0,rag:0"


LLAMA_8B_CONFIG = (
    '{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, '
    '"num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256}'
)


def test_mix_page_plans_a_pasted_config_json_and_links_its_architecture(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server_url}/mix?model=llama-3.1-8b")
    open_form(page)
    page.select_option("#f-model", "custom")
    page.locator("details.custom > summary").click()
    page.fill("#f-hf_config_json", LLAMA_8B_CONFIG)
    text = submit_and_read(page, r"/mix\?model=custom&mix=chat:0.5,rag:0.5&requests_per_day=100000&arch_.*_size=4096")
    assert "Cheapest mix:" in page.inner_text("#mix-summary") and "custom at 100,000 requests/day" in text
    assert_link_reproduces(page, text)
    open_form(page)  # the form holds the architecture read from the config, not the pasted text
    assert page.input_value("#f-arch_num_kv_heads") == "8" and page.input_value("#f-hf_config_json") == ""


def test_a_batch_job_with_a_deadline_is_priced_per_replica_with_its_chart(page, server_url: str) -> None:  # type: ignore[no-untyped-def]
    fill_form(
        page,
        f"{server_url}/?phase=inference",
        {"model": "llama-3.1-8b", "scenario": "max_throughput"},
        {"job_requests": "200000", "job_deadline_hours": "1"},
    )
    text = submit_and_read(page, r"scenario=max_throughput&job_requests=200000&job_deadline_hours=1$")
    job = r"the job of 200,000 requests takes [\d.]+ (min|h) with the machine's start-up on \d+ replicas \(\d+ GPUs\)"
    assert re.search(job, text)
    page.wait_for_selector("#job[data-drawn=true] svg", state="attached")
    header = page.locator("table.ranked thead").inner_text().replace("\xa0", " ")  # one-line unit headers
    assert "Job time" in header and "Job $" in header and "Replicas" in header and "TTFT" not in header
    assert_link_reproduces(page, text)
