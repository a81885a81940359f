"""Where the prices behind a serving answer were read, for commands whose tables name offers without a rank:
`gpumatch mix` and `gpumatch disagg` (a ranking's rows say theirs by rank: ranking.price_sources)."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import fixed


def offer_prices(rows: list[dict[str, Any]]) -> str:
    """Each offer the rows price, once: its price, its terms with their caveats and STALE (as the pages badge them),
    date and source, as the page's rows link their dates."""
    from app.cli.tables.ranking import price_terms_cell

    seen: dict[tuple[Any, ...], str] = {}
    for r in rows:
        key = (r["provider_name"], r["gpu_id"], r["usd_per_gpu_hour"], r.get("as_of"), r.get("price_source_url"))
        seen.setdefault(
            key,
            f"{r['provider_name']} {r['gpu_id']} ${fixed(r['usd_per_gpu_hour'], 2)}/GPU-h {price_terms_cell(r)}, "
            f"{r.get('price_source_url') or '(no source stated)'}",
        )
    return "prices:\n" + "\n".join(seen.values()) if seen else ""
