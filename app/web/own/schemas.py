"""Response model of the own-vs-rent API (what /docs shows; the service builds the same dict)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.scoring.serving.ownership.question import OwnershipQuestion
from app.web.json_api.report_schemas import TermOut


class InputUsed(BaseModel):
    name: str
    value: float
    unit: str
    overridden: bool = Field(description="true when the request gave it; else the sourced default")
    source: str = Field(description="the tco.csv row (or offer) the default came from")
    as_of: str
    source_url: str


class CumulativePoint(BaseModel):
    month: int
    owning_usd: float = Field(
        description="purchase + energy and colocation so far (carried forward at the cost of capital, if given)"
    )
    renting_usd: float


class OwnResponse(BaseModel):
    question: OwnershipQuestion
    gpu_name: str
    servers: int
    inputs: list[InputUsed]
    purchase_usd: float
    depreciation_usd_per_month: float
    capital_usd_per_month: float = Field(description="cost of capital: the annuity's interest part (0 when none given)")
    energy_usd_per_month: float
    colocation_usd_per_month: float
    owning_usd_per_month: float
    running_usd_per_month: float
    renting_usd_per_month: float = Field(description="at the question's utilisation")
    renting_usd_per_month_full: float = Field(description="at 100 % utilisation")
    break_even_utilisation_pct: float | None = Field(description="null: owning costs more than renting at 100 %")
    break_even_months: float | None = Field(description="null: renting at this utilisation never repays the purchase")
    break_even_usd: float | None = Field(description="what each side has spent at the break-even (cumulative)")
    depreciation_months: float
    cheaper: str = Field(description="own | rent, per month at the utilisation")
    terms: list[TermOut]
    cumulative: list[CumulativePoint]
    notes: list[str]
    catalog_version: str
    share_url: str
