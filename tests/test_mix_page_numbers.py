"""The /mix page's numbers read alike wherever they appear: a row's money terms as its $/month cell, counts grouped."""

from __future__ import annotations

import re

import pytest

QUERY = "/mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8"


@pytest.fixture(scope="module")
def page(client) -> str:  # type: ignore[no-untyped-def]
    response = client.get(QUERY)
    assert response.status_code == 200
    return response.text


def test_each_rows_monthly_cost_term_reads_as_its_dollars_per_month_cell(page: str) -> None:
    cells = re.findall(r'data-label="\$/month" role="cell">\$([\d,.]+)</td>', page)
    terms = re.findall(r"<li>monthly cost = ([\d,.]+) \$/month", page)
    assert cells and len(cells) == len(terms)
    assert terms == cells  # "monthly cost = 10,060 $/month" read beside the row's $10,059


def test_bucket_token_counts_are_grouped_in_thousands(page: str) -> None:
    cells = re.findall(r'data-label="Input tokens" role="cell">([^<]+)</td>', page)
    assert "7,590" in cells  # rag's input length read 7590
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", c) for c in cells)
