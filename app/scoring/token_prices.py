"""Which per-token (serverless API) prices a comparison may stand on, and how their dates read.

A per-token price is compared (the cheapest serverless price, the break-even, a batch job through an API) only
when a buyer can act on it today: not flagged unverified by the reference (a placeholder-looking figure), not
for a model the provider has deprecated or retired, and not stale (older than the stale-after days) unless the
question opts in to stale prices (`include_stale`, as for GPU offers). Every other price is still listed where
prices are listed, with its labels, and never chosen as the cheapest.

Pure: works on any row with the token-price attributes (scoring specs and catalog rows alike).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Protocol, TypeVar

# How a price's `as_of` reads: a day the price was read on (exact), an upper bound ("<=2026-12-01": read from
# a maintained table on that day, the entry's own date unknown), or an approximate date ("~2025": year only).
AS_OF_BASES = ("exact", "on_or_before", "approximate")


class PricedRow(Protocol):
    """What the rules read of a price (read-only: scoring specs are frozen, catalog rows are not)."""

    @property
    def provider_id(self) -> str: ...
    @property
    def model_id(self) -> str | None: ...
    @property
    def provider_model_id(self) -> str: ...
    @property
    def input_usd_per_mtok(self) -> float: ...
    @property
    def output_usd_per_mtok(self) -> float: ...
    @property
    def cached_input_usd_per_mtok(self) -> float | None: ...
    @property
    def lora_serving(self) -> str: ...
    @property
    def as_of(self) -> date | None: ...


Row = TypeVar("Row", bound=PricedRow)


def as_of_label(as_of: date | None, basis: str) -> str:
    """The date as the reference gives it: `2026-11-05`, `≤2026-12-01` (on or before), `~2025`, or `undated`."""
    if as_of is None:
        return "undated"
    if basis == "on_or_before":
        return f"≤{as_of.isoformat()}"
    if basis == "approximate":
        return f"~{as_of.year}"
    return as_of.isoformat()


def flags(unverified: bool, deprecated: bool, stale: bool) -> tuple[str, ...]:
    """The labels a listed price carries, in a fixed order."""
    return tuple(name for name, on in (("unverified", unverified), ("deprecated", deprecated), ("stale", stale)) if on)


def comparable(unverified: bool, deprecated: bool, stale: bool, include_stale: bool = False) -> bool:
    """May this price be the cheapest serverless price, the break-even's basis or a batch job's API price?"""
    return not unverified and not deprecated and (include_stale or not stale)


def same_terms(a: PricedRow, b: PricedRow) -> bool:
    """Two entries of one provider and model sell on the same terms: the same input and output prices, the same
    cached-input price where both publish one, and the same LoRA serving where both say."""
    if (a.input_usd_per_mtok, a.output_usd_per_mtok) != (b.input_usd_per_mtok, b.output_usd_per_mtok):
        return False
    cached = (a.cached_input_usd_per_mtok, b.cached_input_usd_per_mtok)
    if None not in cached and cached[0] != cached[1]:
        return False
    lora = {a.lora_serving, b.lora_serving} - {"unknown"}
    return len(lora) <= 1


def one_per_provider_model(rows: Iterable[Row]) -> list[Row]:
    """One entry per provider and model: of entries on the same terms (say, one model listed under two of the
    provider's model names at one price), the latest is kept (ties: the one that publishes a cached-input price,
    then the first). Entries that differ in terms (a fast and a basic tier, two checkpoints at two prices) all
    stay. Rows without a catalog model are never merged. The kept rows keep their input order."""
    listed = list(rows)
    order = sorted(
        range(len(listed)),
        key=lambda i: (
            -(listed[i].as_of or date.min).toordinal(),
            listed[i].cached_input_usd_per_mtok is None,
            i,
        ),
    )
    kept: dict[tuple[str, str], list[Row]] = {}
    keep: set[int] = set()
    for i in order:
        row = listed[i]
        model = (row.model_id or "").lower()
        group = kept.setdefault((row.provider_id, model or "\0" + row.provider_model_id), [])
        if any(same_terms(row, other) for other in group):
            continue
        group.append(row)
        keep.add(i)
    return [row for i, row in enumerate(listed) if i in keep]
