"""One serving plan, the same answer on its page and in `gpumatch plan serving`: the cheapest dedicated row's price
terms (caveats, stale, committed), $/GPU-h, tokens/s and utilisation, and the per-token prices to the cent, as the page
shows them (found by qa23: the CLI gave the bare price type, no $/GPU-h, tok/s or utilisation, and $0.40 as 0.4)."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi.testclient import TestClient

from app.cli.main import main as cli

QUESTION = "model=llama-3.1-70b&requests_per_day=500000"
ARGV = ["plan", "serving", "--model", "llama-3.1-70b", "--requests-per-day", "500000", "--limit", "1"]


def _page_best_row(client: TestClient) -> dict[str, str]:
    page = client.get(f"/plan?{QUESTION}").text
    row = page.split('<tr class="best"', 1)[1].split("</tr>", 1)[0]
    cells = re.findall(r'data-label="([^"]+)"[^>]*>(.*?)</t[dh]>', row, re.S)
    return {label: " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split()) for label, text in cells}


def _cli_best_row(capsys: Any) -> tuple[dict[str, str], str]:
    assert cli(ARGV) == 0
    out = str(capsys.readouterr().out)
    lines = out.splitlines()
    names = re.split(r"\s{2,}", lines[1].strip())
    return dict(zip(names, re.split(r"\s{2,}", lines[3].strip()), strict=False)), out


def test_the_plan_page_and_the_cli_show_the_cheapest_dedicated_row_alike(
    client: TestClient, database: str, capsys: Any
) -> None:
    best = client.get(f"/plan.json?{QUESTION}").json()["options"][0]
    assert best["price_caveats"], "the cheapest row must carry a caveat for this test to mean anything"
    page = _page_best_row(client)
    row, _ = _cli_best_row(capsys)
    for caveat in best["price_caveats"]:  # the CLI said only "on_demand"
        assert caveat in page["Price type"] and caveat in row["price terms, as of"]
    assert best["as_of"] in page["Price type"] and best["as_of"] in row["price terms, as of"]
    assert page["$/GPU-h"] == "$" + row["$/GPU-h"]
    assert page["Tok/s per replica"] == row["tok/s"]
    assert page["Utilisation"] == row["util."]
    assert page["Autoscaled $/month"] == "$" + row["autoscaled $/mo"]


def test_the_plan_cli_writes_per_token_prices_to_the_cent_as_the_page(
    client: TestClient, database: str, capsys: Any
) -> None:
    cheapest = client.get(f"/plan.json?{QUESTION}").json()["cheapest_serverless"]
    listed = f"${cheapest['input_usd_per_mtok']:.2f} / ${cheapest['output_usd_per_mtok']:.2f}"
    assert listed == "$0.13 / $0.40" and listed in client.get(f"/plan?{QUESTION}").text
    _, out = _cli_best_row(capsys)
    line = next(line for line in out.splitlines() if line.startswith(cheapest["provider_name"]))
    assert re.split(r"\s{2,}", line)[2:4] == ["0.13", "0.40"]  # the CLI wrote 0.4
