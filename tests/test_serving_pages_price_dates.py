"""The serving pages' prices carry their date, linked to where each was read, as a results page's rows do. Found by
qa13: /mix's fleet rows ("2× B200 · Lambda on demand $6.89") and /disagg's aggregated row and pools showed their
$/GPU-h with neither, and mix's JSON fleet rows had no `as_of` at all (its replica types had)."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

from fastapi.testclient import TestClient

MIX = "model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8"
DISAGG = "model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&ttft_ms=2000&tpot_ms=40"


def _dated_links(html: str) -> list[tuple[str, str]]:
    """(source URL, date) of every price date the page links."""
    found = re.findall(r'<a class="muted price-source" href="([^"]+)"[^>]*>([^<]+)</a>', html)
    return [(unescape(url), text) for url, text in found]


def _rows_dated(rows: list[dict[str, Any]], html: str) -> None:
    links = _dated_links(html)
    for row in rows:
        assert row["as_of"], row
        assert (row["price_source_url"], str(row["as_of"])) in links, row


def test_mix_rows_say_their_price_date_and_source(client: TestClient) -> None:
    body = client.get(f"/mix.json?{MIX}").json()
    rows = [*body["mix"]["rows"], *body["best_single"]["rows"]]
    _rows_dated(rows, client.get(f"/mix?{MIX}").text)


def test_disagg_rows_say_their_price_date_and_source(client: TestClient) -> None:
    body = client.get(f"/disagg.json?{DISAGG}").json()
    pools = [pool for plan in body["disaggregated"][:1] for pool in (plan["prefill"], plan["decode"])]
    _rows_dated([body["aggregated"], *pools], client.get(f"/disagg?{DISAGG}").text)


def _cli_prices(capsys: Any, argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    from app.cli.main import main as cli

    assert cli([*argv, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert cli(argv) == 0
    lines = capsys.readouterr().out.split("\nprices:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return body, lines


def _priced(rows: list[dict[str, Any]], lines: list[str]) -> None:
    """Each row's price line: its price and terms, every caveat the page badges, STALE, the date and the source."""
    for r in rows:
        said = f"{r['provider_name']} {r['gpu_id']} ${r['usd_per_gpu_hour']:,.2f}/GPU-h {r['price_type']}"
        line = next(line for line in lines if line.startswith(said)), r
        assert line[0].endswith(f" {r['as_of']}, {r['price_source_url']}"), r
        assert all(caveat in line[0] for caveat in r["price_caveats"]) and ("STALE" in line[0]) == r["stale"], r


def test_the_mix_and_disagg_commands_date_and_source_their_prices(database: str, capsys: Any) -> None:
    mix = ["mix", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--requests-per-day", "200000"]
    body, lines = _cli_prices(capsys, [*mix, "--mix", "chat:0.7,rag:0.3"])
    _priced([*body["mix"]["rows"], *body["best_single"]["rows"]], lines)
    disagg = ["disagg", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "32000"]
    body, lines = _cli_prices(capsys, [*disagg, "--output-len", "1000", "--ttft-ms", "2000", "--tpot-ms", "40"])
    _priced([body["aggregated"], *(p for d in body["disaggregated"] for p in (d["prefill"], d["decode"]))], lines)
