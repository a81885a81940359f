"""/mix's folded list of the replica types considered names each price as its chosen rows do: the price type, the
caveats a buyer must know (a price read from the provider's article, capacity not guaranteed), stale and the dated
source. Before, '1×B200 at GMI Cloud $2,920' stood there bare while the JSON's price_caveats said 'provider's
article, not its price list' (found by qa31)."""

from __future__ import annotations

import re

from markupsafe import escape

MIX = "model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8"


def _replica_type_rows(html: str) -> list[str]:
    table = html.split("replica types considered", 1)[1]
    return re.findall(r'<tr role="row"><th scope="row"[^>]*>(.*?)</th>', table, flags=re.S)


def test_each_replica_type_says_its_price_terms_caveats_and_date(client):  # type: ignore[no-untyped-def]
    types = client.get(f"/mix.json?{MIX}").json()["replica_types"]
    rows = _replica_type_rows(client.get(f"/mix?{MIX}").text)
    assert len(rows) == len(types)
    caveated = [(t, row) for t, row in zip(types, rows, strict=True) if t["price_caveats"]]
    assert caveated, "the seeded catalog has GMI Cloud's article prices among them"
    for t, row in zip(types, rows, strict=True):
        assert str(escape(t["label"])) in row
        assert f'<span class="badge">{t["price_type"].replace("_", " ")}</span>' in row
        assert f'href="{t["price_source_url"]}"' in row and f">{t['as_of']}</a>" in row
        for caveat in t["price_caveats"]:
            assert str(escape(caveat)) in row, (t["label"], caveat)
