"""A listed $/GPU-hour is written one way on a page (m.listed_usd, scoring.explain.usd_price), as the offer lists it.

qa42: CoreWeave's 8×H200 lists $6.305/GPU-h. The training ranking's headline and row read "$6.30" while the run total
beneath them read "8 GPUs × 6.305 USD/GPU-h", and /mix's "1 × 8 GPU × $6.30/GPU-h × 730 h" gave $36,821, which $6.30
does not (8 × 6.30 × 730 = 36,792)."""

import html
import re

import pytest

H200 = "gpus=H200&providers=coreweave"
PAGES = [
    f"/?phase=training&model=llama-3.1-8b&method=lora&total_tokens=100000000&{H200}",
    f"/?model=llama-3.1-70b&{H200}",
    f"/compare?model=llama-3.1-70b&{H200}",
    f"/mix?model=llama-3.1-70b&{H200}",
    f"/plan?model=llama-3.1-70b&requests_per_day=100000&{H200}",
]


@pytest.mark.parametrize("url", PAGES)
def test_a_listed_price_reads_as_listed_on_every_page_that_shows_it(client, url):
    text = html.unescape(client.get(url, follow_redirects=True).text)
    assert "$6.305" in text
    assert not re.search(r"\$6\.3[01]?\b(?!\d)", text.replace("$6.305", ""))


def test_the_mix_formula_adds_up_at_the_price_it_shows(client):
    text = html.unescape(client.get(f"/mix?model=llama-3.1-70b&{H200}", follow_redirects=True).text)
    assert 'monthly cost = 36,821 $/month <span class="muted">(1 × 8 GPU × $6.305/GPU-h × 730 h)' in text  # 36,821.2
