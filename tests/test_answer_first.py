"""A results page says its answer first: on /plan, /disagg, /mix and /own the verdicts, notes and chart came
before the main table, whose first row began 1,088-1,449 px down at 1366x768 (tests/browser/test_answer_first_browser.py
measures it). The notes, the why, the chart and the inputs now follow the table, in the page without JavaScript too."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

# (results URL, markers in the order the page must show them: the main table's first, then what follows it)
ORDER = [
    ("/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12",
     ['class="summary"', '<caption role="caption">Dedicated:', 'class="break-even"', 'class="saved-note"',
      'data-chart="cost-traffic"', "Serverless per-token prices"]),
    ("/disagg?model=llama-3.1-70b",
     ['class="verdict', "<h3>Aggregated</h3>", "<h3>Disaggregated plans</h3>", 'class="why"',
      'data-chart="cost-disagg"']),
    ("/mix?model=llama-3.1-8b",
     ['id="mix-summary"', '<caption role="caption">The cheapest mix', '<caption role="caption">Best single GPU type',
      'class="saved-note"', 'data-chart="mix-cost"', "Request-length buckets"]),
    ("/own?gpu=H100-SXM&gpu_count=16&utilisation_pct=60",
     ['class="break-even"', "How the monthly costs are made", 'class="saved-note"', 'data-chart="own-rent"',
      "Inputs used"]),
]  # fmt: skip


@pytest.mark.parametrize(("url", "markers"), ORDER)
def test_the_main_table_comes_before_the_notes_and_the_chart(client: TestClient, url: str, markers: list[str]) -> None:
    page = client.get(url).text
    section = page[page.index('<section class="results"') :]
    positions = [section.find(marker) for marker in markers]
    assert -1 not in positions, [m for m, p in zip(markers, positions, strict=True) if p == -1]
    assert positions == sorted(positions), sorted(zip(positions, markers, strict=True))
