"""/precision's cheapest option says its terms as a ranked row does: spot as interruptible, a stale or undated price as
such, and what its GPU count rents (copies sharing a whole instance, nodes of unstated count), in the answer strip, the
table, the JSON and `gpumatch precision`.

Found by trust6: with price_types=spot the strip read "Cheapest: FP4 (NVFP4 W4A4) on 1×B300 at CoreWeave, $0.425 per
million output tokens": no word that the GPUs are interruptible, nor that one GPU rents CoreWeave's 8-GPU instance
whole (8 copies); with include_stale, an undated snapshot read as a current price; the JSON had no field for either.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from fastapi.testclient import TestClient

from app.cli.main import main as cli

SPOT = "/precision?model=llama-3.1-70b&price_types=spot"


def _strip(page: str) -> str:
    strip = re.search(r'<p class="answer-strip[^"]*">(.*?)</p>', page, re.S)
    assert strip is not None
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", strip.group(1))))


def _bests(client: TestClient, query: str) -> list[dict[str, Any]]:
    return [r["best"] for r in client.get(query.replace("/precision?", "/precision.json?")).json()["rows"] if r["best"]]


def test_spot_is_interruptible_and_a_shared_instance_says_its_copies(client: TestClient) -> None:
    bests = _bests(client, SPOT)
    assert bests and all(b["price_type"] == "spot" and b["interruptible"] for b in bests)
    top = min(bests, key=lambda b: b["ranked_cost"])
    assert top["copies_per_instance"] > 1 and top["instance_gpus"] == 8
    strip = _strip(client.get(SPOT).text)
    copies = f"{top['copies_per_instance']} copies per 8-GPU instance"
    assert f"on {top['gpu_count']}×{top['gpu_id']} · {copies} at CoreWeave ( spot interruptible " in strip
    table = client.get(SPOT).text.split("<tbody", 1)[1]
    said = '>interruptible<span class="sr-only">: the provider may reclaim these GPUs at short notice</span></span>'
    assert table.count(said) == len(bests)  # said without hovering too (trust7)


def test_an_undated_price_is_labelled_when_stale_prices_are_asked_for(client: TestClient) -> None:
    query = "/precision?model=llama-3.1-70b&include_stale=true&providers=oracle-oci"  # its prices are undated
    bests = _bests(client, query)
    undated = [b for b in bests if b["as_of"] is None]
    assert undated and all(b["stale"] for b in undated)
    assert re.search(r"\bundated \)", _strip(client.get(query).text))


def test_the_command_line_prints_the_terms_too(database: str, capsys: Any) -> None:
    assert cli(["precision", "--model", "llama-3.1-70b", "--price-types", "spot"]) == 0
    table = capsys.readouterr().out.split("\nprices:")[0]  # the rows, not the list of where each price was read
    rows = [line for line in table.splitlines() if "CoreWeave" in line]
    assert rows and all(re.search(r"CoreWeave \(spot interruptible \d{4}-\d{2}-\d{2}", line) for line in rows)
