"""Which per-token (serverless API) prices a comparison may stand on, at what figures, and how their dates read.

A per-token price is compared (the cheapest serverless price, the break-even, a batch job through an API) only
when a buyer can act on it today: not flagged unverified by the reference (a placeholder-looking figure), not
for a model the provider has deprecated or retired, and not stale (older than the stale-after days) unless the
question opts in to stale prices (`include_stale`, as for GPU offers). Every other price is still listed where
prices are listed, with its labels, and never chosen as the cheapest.

Three other doubts the reference states leave a price comparable, labelled (DOUBTS):
- disputed: another source gives other figures. Compared at the higher of the two, input and output each
  (compared_figures): a buyer choosing between dedicated GPUs and an API must not be told the API wins on a figure
  they may not be charged. So a disputed price chosen as the cheapest is the cheapest at either figure.
- availability_unconfirmed: the provider may have retired the endpoint. The price is not in doubt, only whether it is
  still sold, so leaving it out could hide the real cheapest; it is compared, and where it is the one chosen the plan
  names the cheapest price without a doubt and says whether the answer turns on it (serving/serverless/notes.py).
- weak_source: the source the figure was read from does not back it (it cites another model's page), while nothing
  says the figure is wrong: compared and, where chosen, named the same way.

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


# Doubts that leave a price comparable, labelled (the module's docstring says why), as the labels name them.
DOUBTS = ("disputed", "availability_unconfirmed", "weak_source")


def flags(
    unverified: bool,
    deprecated: bool,
    stale: bool,
    *,
    disputed: bool = False,
    availability_unconfirmed: bool = False,
    weak_source: bool = False,
) -> tuple[str, ...]:
    """The labels a listed price carries, in a fixed order: never compared, compared with a doubt, stale."""
    named = (
        ("unverified", unverified),
        ("deprecated", deprecated),
        ("disputed", disputed),
        ("availability_unconfirmed", availability_unconfirmed),
        ("weak_source", weak_source),
        ("stale", stale),
    )
    return tuple(name for name, on in named if on)


class DoubtedRow(Protocol):
    """What the labels read of a price (scoring specs and catalog rows alike)."""

    @property
    def unverified(self) -> bool: ...
    @property
    def deprecated(self) -> bool: ...
    @property
    def disputed_input_usd_per_mtok(self) -> float | None: ...
    @property
    def availability_unconfirmed(self) -> bool: ...
    @property
    def weak_source(self) -> bool: ...


def row_flags(row: DoubtedRow, stale: bool) -> tuple[str, ...]:
    """A listed price's labels from its row (stale as of the day asked)."""
    return flags(
        row.unverified,
        row.deprecated,
        stale,
        disputed=row.disputed_input_usd_per_mtok is not None,
        availability_unconfirmed=row.availability_unconfirmed,
        weak_source=row.weak_source,
    )


def comparable(unverified: bool, deprecated: bool, stale: bool, include_stale: bool = False) -> bool:
    """May this price be the cheapest serverless price, the break-even's basis or a batch job's API price?
    The DOUBTS do not enter: such prices are compared, labelled (a disputed one at compared_figures)."""
    return not unverified and not deprecated and (include_stale or not stale)


def compared_figures(
    input_usd_per_mtok: float,
    output_usd_per_mtok: float,
    disputed_input_usd_per_mtok: float | None,
    disputed_output_usd_per_mtok: float | None,
) -> tuple[float, float]:
    """The input and output prices a comparison uses: the listed ones, or for a disputed price the higher of the
    listed and the other source's figure, each (conservative: the lower may not be what a buyer pays)."""
    return (
        max(input_usd_per_mtok, disputed_input_usd_per_mtok or 0.0),
        max(output_usd_per_mtok, disputed_output_usd_per_mtok or 0.0),
    )


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
