"""/disagg compares the two layouts in one table under its verdict: the cheapest aggregated option and the cheapest
disaggregated plan, one row each, in the numbers of the page's JSON, each row linked to its full table below. At
1366x768 the first disaggregated row had begun at 895 px, under the aggregated table and its terms; the comparison
ends on the first screen (tests/browser/test_answer_first_browser.py). The strip above the form gives the verdict's
claim and the results its reason, where both had repeated the whole three-line sentence."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from app.web.disagg.pages import verdict_claim

DEFAULT = "/disagg?model=llama-3.1-70b"
# a 64k prompt at a 12 ms TPOT: prompts in its steps keep every aggregated option over one limit at one request in
# flight; a lighter load meets them (loops.light_load_point), so the test removes the aggregated option to see the row
DISAGG_ONLY = "/disagg?model=llama-3.1-70b&weight_dtype=fp8&input_len=64000&output_len=200&tpot_ms=12&ttft_ms=10000"
# single consumer cards: no fabric between offers, no node that holds both roles
NO_PLAN = "/disagg?model=llama-3.1-8b&max_gpus=1&gpus=RTX-4090"
LAYOUTS = re.compile(r'<table class="data stack layouts".*?</table>', re.S)
# The bands' tooltips, said after them as visually hidden text (m.said; found by leftovers18)
OWN_BAND_SAID = " : p10–p90 band of the option's own regime (its p99 band's ratios on the mean)"
BORROWED_SAID = (
    " : p10–p90 band of aggregated serving in the same regime, borrowed: no publication measures disaggregated pools"
)
MEANS_ONLY_SAID = (  # a plan's cell says why it has no p99
    " ; a plan's pools are sized on means held under targets the p99 limits give: no p99 is estimated for it "
)
KV_SAID = "; the KV transfer on the estimate"  # a prefill pool's band: its TTFT holds the KV transfer, estimated


def _row(table: str, layout: str) -> str:
    match = re.search(rf'<tr data-layout="{layout}".*?</tr>', table, re.S)
    assert match, f"no {layout} row"
    return re.sub(r"\s+", " ", html.unescape(match.group(0)))


def _cells(row: str) -> dict[str, str]:
    return {label: _text(cell) for label, cell in re.findall(r'<td [^>]*data-label="([^"]+)"[^>]*>(.*?)</td>', row)}


def _text(markup: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup)).strip()


def _band(band: dict[str, float], digits: int) -> str:
    """A band as the page's m.band_range writes it."""
    return f"{band['low']:,.{digits}f}–{band['high']:,.{digits}f}"


def _page_and_body(client: TestClient, url: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    page = client.get(url)
    assert page.status_code == 200
    return page.text, client.get(url.replace("/disagg?", "/disagg.json?")).json()


def test_both_layouts_sit_in_one_table_with_the_jsons_numbers(client: TestClient) -> None:
    page, body = _page_and_body(client, DEFAULT)
    section = page[page.index('<section class="results"') :]
    table = LAYOUTS.search(section)
    assert table and section.index('class="verdict') < table.start() < section.index('id="disagg-aggregated"')
    agg, best, verdict = body["aggregated"], body["disaggregated"][0], body["verdict"]
    row = _row(table.group(0), "aggregated")
    assert _text(row).startswith(
        f"Aggregated {agg['replicas_at_peak']} × {agg['gpu_count']}×{agg['gpu_id']} · {agg['provider_name']}"
    )
    assert _cells(row) == {
        "GPUs at peak": str(agg["gpus_at_peak"]),
        # the aggregated option's own bands, as its pools' are shown: its p99 bands' ratios on the means
        # and beside each mean the p99 the limit is checked against (precp99: means only stood beside p99 limits)
        "TTFT ms mean (p99)": f"{agg['ttft_mean_ms']:,.0f} ({agg['ttft_p99_ms']:,.0f}) band "
        f"{_band(agg['ttft_mean_band_ms'], 0)}{OWN_BAND_SAID}",
        "TPOT ms mean (p99)": f"{agg['tpot_mean_ms']:,.1f} ({agg['tpot_p99_ms']:,.1f}) band "
        f"{_band(agg['tpot_mean_band_ms'], 1)}{OWN_BAND_SAID}",
        "$ a month": f"${agg['monthly_usd']:,.0f}",
        "$/M out at this traffic": f"${agg['usd_per_million_output_tokens_at_traffic']:,.2f}",
        "Against aggregated": "—",
    }
    row = _row(table.group(0), "disaggregated")
    prefill, decode = best["prefill"], best["decode"]
    assert _text(row).startswith(
        f"Disaggregated {best['ratio']} prefill {prefill['replicas_at_peak']} × {prefill['gpu_count']}×"
        f"{prefill['gpu_id']}, decode {decode['replicas_at_peak']} × {decode['gpu_count']}×{decode['gpu_id']}"
    )
    gpus = prefill["gpus_at_peak"] + decode["gpus_at_peak"] + best["idle_gpus_at_peak"]
    saving = verdict["saving_usd_per_month"]
    assert saving < 0  # this question's aggregated option is the cheaper: the plan's row says by how much
    assert _cells(row) == {
        "GPUs at peak": f"{gpus} {prefill['gpus_at_peak']} prefill + {decode['gpus_at_peak']} decode",
        # on the estimate too, each pool's band, labelled as borrowed
        # a plan has means only, and says so
        "TTFT ms mean": f"{best['ttft_mean_ms']:,.0f} (mean only{MEANS_ONLY_SAID}) borrowed band "
        f"{_band(prefill['latency_band_ms'], 0)}{BORROWED_SAID}{KV_SAID}",
        "TPOT ms mean": f"{best['tpot_mean_ms']:,.1f} (mean only{MEANS_ONLY_SAID}) borrowed band "
        f"{_band(decode['latency_band_ms'], 1)}{BORROWED_SAID}",
        "$ a month": f"${best['monthly_usd']:,.0f}",
        "$/M out at this traffic": f"${best['usd_per_million_output_tokens_at_traffic']:,.2f}",
        "Against aggregated": f"${-saving:,.0f} more ({-verdict['saving_share'] * 100:,.0f}%)"
        + (" close call" if verdict["close_call"] else ""),
    }
    # each row links to its full table
    assert 'href="#disagg-aggregated"' in table.group(0) and 'href="#disagg-plans"' in table.group(0)
    assert 'id="disagg-aggregated"' in section and 'id="disagg-plans"' in section


def test_the_strip_gives_the_claim_and_the_results_the_reason_once(client: TestClient) -> None:
    page, body = _page_and_body(client, DEFAULT)
    headline = body["verdict"]["headline"]
    strip = re.search(r'<p class="answer-strip">(.*?)</p>', page, re.S)
    assert strip
    claim = headline.split(", because ")[0]
    assert _text(html.unescape(strip.group(1))) == f"{claim}. — the details ↓"
    assert html.unescape(page).count(headline) == 1  # the whole sentence, in the results' verdict
    assert html.unescape(page).index(headline) > page.index('<section class="results"')


def test_the_claim_is_the_whole_headline_where_it_gives_no_reason() -> None:
    claim = "Aggregated is as good or better: $3,772 a month against $19,827 (426% more)"
    assert verdict_claim({"headline": f"{claim}, because it needs 2 GPUs."}) == f"{claim}."
    short = "Only disaggregated meets the limits: 8P:8D for $125,348 a month; no aggregated option keeps both."
    assert verdict_claim({"headline": short}) == short


def test_a_layout_with_no_option_says_so_in_its_row(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        patched.setattr("app.scoring.serving.disaggregated.plan.aggregated_option", lambda *args: None)
        page, body = _page_and_body(client, DISAGG_ONLY)
    assert body["verdict"]["winner"] == "disaggregated_only" and body["aggregated"] is None
    table = LAYOUTS.search(page)
    assert table
    assert _text(_row(table.group(0), "aggregated")) == "Aggregated No aggregated option keeps both limits here."
    assert 'href="#disagg-aggregated"' not in page  # no table to link to
    assert f"${body['disaggregated'][0]['monthly_usd']:,.0f}" in _row(table.group(0), "disaggregated")

    page, body = _page_and_body(client, NO_PLAN)
    assert body["aggregated"] is not None and body["disaggregated"] == []
    table = LAYOUTS.search(page)
    assert table
    assert _text(_row(table.group(0), "disaggregated")) == "Disaggregated No disaggregated plan meets the limits here."
    assert 'href="#disagg-plans"' not in page


def test_when_neither_layout_serves_there_is_no_comparison(client: TestClient) -> None:
    url = "/disagg?model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&tpot_ms=40&ttft_ms=800"
    page, body = _page_and_body(client, f"{url}&gpus=H100-SXM,H200,B200")
    assert body["verdict"]["winner"] == "neither"
    assert 'class="verdict warn"' in page and not LAYOUTS.search(page)
