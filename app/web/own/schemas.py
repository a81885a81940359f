"""Response model of the own-vs-rent API (what /docs shows; the service builds the same dict)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.scoring.serving.ownership.question import OwnershipQuestion
from app.service.charts.tables import ChartTable
from app.web.json_api.report_schemas import CATALOG_VERSION, TermOut


class InputUsed(BaseModel):
    name: str = Field(description="the question's field this input is (purchase_usd_per_server, usd_per_kwh, …)")
    value: float = Field(description="the value used, in `unit`")
    unit: str = Field(description="the value's unit ($ a server, kW a server, $/kWh, % a year, …)")
    overridden: bool = Field(description="true when the request gave it; else the sourced default")
    source: str = Field(description="the tco.csv row (or offer) the default came from")
    as_of: str = Field(description="the default's date as its source gives it; empty when given or undated")
    source_url: str = Field(description="where the default was read; empty when given")


class CumulativePoint(BaseModel):
    month: int = Field(description="months since the purchase (0 = the day of it)")
    owning_usd: float = Field(
        description="purchase + energy and colocation so far (carried forward at the cost of capital, if given)"
    )
    renting_usd: float = Field(description="$ renting the same GPUs on demand has cost so far, at the utilisation")


class OwnResponse(BaseModel):
    question: OwnershipQuestion = Field(description="the question as validated, defaults filled in")
    gpu_name: str = Field(description="the GPU's display name")
    servers: int = Field(description="servers owned to hold the GPUs")
    inputs: list[InputUsed] = Field(description="every input of the costs: its value, unit and where it came from")
    purchase_usd: float = Field(description="$ the servers cost to buy")
    depreciation_usd_per_month: float = Field(description="$ a month: the purchase less resale, straight line")
    capital_usd_per_month: float = Field(description="cost of capital: the annuity's interest part (0 when none given)")
    energy_usd_per_month: float = Field(description="$ a month of power (× PUE) on every hour")
    colocation_usd_per_month: float = Field(description="$ a month of colocation for the provisioned kW")
    owning_usd_per_month: float = Field(description="$ a month: depreciation + cost of capital + energy + colocation")
    running_usd_per_month: float = Field(description="$ a month: energy + colocation (what owning costs once paid)")
    renting_usd_per_month: float = Field(description="at the question's utilisation")
    renting_usd_per_month_full: float = Field(description="at 100% utilisation")
    break_even_utilisation_pct: float | None = Field(description="null: owning costs more than renting at 100%")
    break_even_months: float | None = Field(description="null: renting at this utilisation never repays the purchase")
    break_even_usd: float | None = Field(description="what each side has spent at the break-even (cumulative)")
    depreciation_months: float = Field(description="months the purchase is written off over")
    cheaper: str = Field(description="own | rent, per month at the utilisation")
    terms: list[TermOut] = Field(description="the explanation: each cost with its formula and figures")
    cumulative: list[CumulativePoint] = Field(description="what each side has spent, month by month")
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the own page of this question")
    charts: list[ChartTable] = Field(
        description="the /own page's chart in numbers: (series, months, $ spent so far) rows for owning, for renting "
        "at the utilisation and, where there is one, the break-even; "
        "the same numbers, unrounded, as the page's table under the chart and its JSON twin's `charts`"
    )
