"""/mix and /disagg badge a price not read from a price list (a provider's article, a consumer card on marketplace
hosts) and a stale one beside each offer they price; `gpumatch mix` and `gpumatch disagg` say the same (found by qa23:
their rows and price lines gave the bare price type and date)."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from app.cli.main import main as cli


def _cli(capsys: Any, argv: list[str]) -> str:
    assert cli(argv) == 0
    return str(capsys.readouterr().out)


def test_the_mix_page_and_cli_name_the_caveat_of_the_price_they_rent(
    client: TestClient, database: str, capsys: Any
) -> None:
    row = client.get("/mix.json?model=llama-3.1-8b").json()["mix"]["rows"][0]
    caveats = row["price_caveats"]
    assert caveats, "the mix must rent a price with a caveat for this test to mean anything"
    page = client.get("/mix?model=llama-3.1-8b").text.replace("&#39;", "'")
    out = _cli(capsys, ["mix", "--model", "llama-3.1-8b"])
    fleet_line = next(line for line in out.splitlines() if line.startswith(f"{row['replicas']} × "))
    price_line = out.split("\nprices:\n", 1)[1].splitlines()[0]
    note = row["price_note"]
    for position, caveat in enumerate(caveats):  # the note said once, with the first caveat (trust7)
        said = f'<span class="sr-only">: {note}</span>' if position == 0 else ""
        assert f'caveat" title="{note}">{caveat}{said}</span>' in page
        assert caveat in fleet_line and caveat in price_line


def test_the_disagg_page_and_cli_name_the_caveat_of_the_price_they_rent(
    client: TestClient, database: str, capsys: Any
) -> None:
    body = client.get("/disagg.json?model=llama-3.1-8b").json()
    offers = [body["aggregated"], *(p for d in body["disaggregated"] for p in (d["prefill"], d["decode"]))]
    caveated = next(o for o in offers if o["price_caveats"])
    out = _cli(capsys, ["disagg", "--model", "llama-3.1-8b"])
    line = next(
        line for line in out.split("\nprices:\n", 1)[1].splitlines() if line.startswith(caveated["provider_name"])
    )
    assert all(caveat in line for caveat in caveated["price_caveats"])
    page = client.get("/disagg?model=llama-3.1-8b").text.replace("&#39;", "'")
    assert all(
        re.search(rf">{re.escape(caveat)}(<span class=\"sr-only\">[^<]*</span>)?</span>", page)
        for caveat in caveated["price_caveats"]
    )
