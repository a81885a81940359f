"""A GPU's price chart in numbers: the cheapest $/GPU-hour per provider and price type of the offers its page lists
(those the filters keep), for /gpus/{id}, its JSON twin, GET /api/v1/gpus/{id} and `gpumatch catalog offers --json`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.service.charts.tables import ChartTable, Series, categories_table

CHART_ID = "price-chart"
VALUE_TITLE = "$ per GPU-hour"


class PricedOffer(Protocol):
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    stale: bool


@dataclass(frozen=True, kw_only=True)
class PriceBar:
    label: str  # provider (price type[, stale])
    usd_per_gpu_hour: float
    stale: bool  # drawn grey: listed, not ranked by default


def cheapest_price_bars(offers: Sequence[PricedOffer]) -> list[PriceBar]:
    """Cheapest $/GPU-hour per provider and price type, cheapest first. A fresh price is preferred to a stale one of
    the same provider and type; a bar only a stale price supports says so, as the offers table and the rankings do
    (stale prices stay out of default rankings)."""
    cheapest: dict[tuple[str, str], PricedOffer] = {}
    for offer in offers:
        key = (offer.provider_name, offer.price_type)
        held = cheapest.get(key)
        if held is None or (offer.stale, offer.usd_per_gpu_hour) < (held.stale, held.usd_per_gpu_hour):
            cheapest[key] = offer
    ordered = sorted(cheapest.values(), key=lambda offer: offer.usd_per_gpu_hour)
    return [
        PriceBar(
            label=f"{o.provider_name} ({o.price_type.replace('_', ' ')}{', stale' if o.stale else ''})",
            usd_per_gpu_hour=round(o.usd_per_gpu_hour, 3),
            stale=o.stale,
        )
        for o in ordered
    ]


def price_chart_label(gpu_name: str, filter_words: str, stale_after_days: int) -> str:
    """The chart's caption: what it draws, the filters that narrowed it (in words) and what a grey bar means."""
    kept = f", of the offers the filters keep ({filter_words})" if filter_words else ""
    return (
        f"Cheapest listed $/GPU-hour for {gpu_name} per provider and price type{kept}; grey bars are stale prices "
        f"(older than {stale_after_days} days), left out of default rankings"
    )


def price_charts(bars: list[PriceBar], label: str) -> list[ChartTable]:
    """The `charts` of a GPU's offers: none where no offer is kept (the page draws no chart then)."""
    if not bars:
        return []
    series = Series(name="", y=[bar.label for bar in bars], x=[bar.usd_per_gpu_hour for bar in bars])
    table = categories_table([series], VALUE_TITLE)
    return [table.model_copy(update={"chart_id": CHART_ID, "label": label})]
