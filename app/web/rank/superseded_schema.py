"""The `offer_superseded` block of an estimate asked for on an offer whose price a newer one replaced."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field


class OfferSupersededOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(
        description="in words: the offer's price is history, replaced by which price since when (with its offer id), "
        "and that the estimate is of the offer's machine, which has no price"
    )
    usd_per_gpu_hour: float = Field(description="the superseded price, $ per GPU-hour: no one rents at it")
    as_of: date | None = Field(description="the superseded price's date (null: undated)")
    replaced_by_offer_id: int | None = Field(
        description="the offer whose price replaced it: the provider's current, dated price of the GPU on the same "
        "terms (same instance size first); null where the catalog no longer holds one"
    )
    replaced_by_usd_per_gpu_hour: float | None = Field(description="that price, $ per GPU-hour")
    replaced_since: date | None = Field(description="that price's date")
    url: str = Field(description="the GPU's page at the current offer's row (#offer-{id}), else at its earlier prices")


OFFER_SUPERSEDED = (
    "null unless offer_id names a superseded price, one a newer price of the same offer replaced (an old link's "
    "offer): then what replaced it and since when. The estimate is still of that offer's machine"
)
