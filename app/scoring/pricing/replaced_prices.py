"""The price that replaced a superseded one: what an old link's offer id, or a GPU's earlier price, is told to rent.

A superseded price (specs.Offer.superseded) is history; scripts/offer_notes.py mark_superseded wrote its note from the
provider's newest dated price of the same GPU on the same terms, of the same instance size where there is one, the
cheapest on a tie. The same rule reads that price back from the catalog, so the answer can name the offer by id.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Protocol, TypeVar

from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE


class PriceRow(Protocol):
    """An offer's price as the catalog (a stored row) or a snapshot (specs.Offer) holds it."""

    @property
    def provider_id(self) -> str: ...
    @property
    def gpu_id(self) -> str: ...
    @property
    def gpu_count(self) -> int: ...
    @property
    def price_type(self) -> str: ...
    @property
    def price_note(self) -> str: ...
    @property
    def as_of(self) -> date | None: ...
    @property
    def usd_per_gpu_hour(self) -> float: ...


Row = TypeVar("Row", bound=PriceRow)


def is_superseded(row: PriceRow) -> bool:
    return SUPERSEDED_BY_NEWER_PRICE in row.price_note


def replacement(earlier: PriceRow, rows: Iterable[Row]) -> Row | None:
    """The current, dated price of `earlier`'s provider, GPU and terms (same instance size first, then the latest,
    the cheapest on a tie); None where the catalog no longer holds one."""
    same = [
        r
        for r in rows
        if r.as_of is not None
        and not is_superseded(r)
        and (r.provider_id, r.gpu_id, r.price_type) == (earlier.provider_id, earlier.gpu_id, earlier.price_type)
    ]
    return max(same, key=lambda r: (r.gpu_count == earlier.gpu_count, r.as_of, -r.usd_per_gpu_hour), default=None)
