"""The own-vs-rent question and its inputs as used: each the user's value or a sourced default, or missing.

OwnershipQuestion is what the page, the API and the CLI ask (every costed input optional: an empty one takes the
default tco_defaults.py picks); ResolvedInput is one input as used, with where it came from; MissingInput names each
input that has no sourced default, so the user has to give it. Pure: no web or database imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ConfigDict, Field

from app.scoring.input_checks.messages import FieldError
from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.workload import ShortId

# Under an hour of work a year: below it every rented cost reads $0 and the page wrote 1e-300% (0.01% renders).
MIN_UTILISATION_PCT = 0.01


class OwnershipQuestion(NumbersNotBooleans):
    """Own N GPUs or rent them; empty fields take the sourced default named in the answer."""

    model_config = ConfigDict(extra="forbid")

    gpu: ShortId = Field("H100-SXM", description="catalog GPU id")
    gpu_count: int = Field(8, ge=1, le=4_096, description="GPUs owned (or rented)")
    utilisation_pct: float = Field(
        60.0,
        ge=MIN_UTILISATION_PCT,
        le=100,
        description=f"share of hours the GPUs do useful work, % ({MIN_UTILISATION_PCT:g} to 100)",
    )
    gpus_per_server: int = Field(
        8,
        ge=1,
        le=72,
        description="GPUs in one server; the default price and power are an 8-GPU server's per-GPU share times this",
    )
    # floors of a dollar, a watt and a tenth of a cent: 1e-300 was taken, and its term wrote 300 zeros
    purchase_usd_per_server: float | None = Field(None, ge=1, le=1e8, description="$ to buy one server; empty: tco.csv")
    power_kw_per_server: float | None = Field(None, ge=0.001, le=200, description="average draw while on")
    provisioned_kw_per_server: float | None = Field(None, ge=0.001, le=200, description="colocation kW contracted")
    usd_per_kwh: float | None = Field(None, ge=0.001, le=5, description="$ per kWh of electricity; empty: tco.csv")
    pue: float | None = Field(None, ge=1, le=3, description="facility power ÷ IT power")
    colocation_usd_per_kw_month: float | None = Field(
        None, ge=0, le=5_000, description="$ a month per provisioned kW of colocation; empty: tco.csv"
    )
    depreciation_years: float | None = Field(None, ge=1, le=20, description="straight-line life, years")
    rental_usd_per_gpu_hour: float | None = Field(
        None,
        ge=0.001,
        le=1_000,
        description="default: the cheapest fresh on-demand $/GPU-hour of this GPU in an instance of gpus_per_server "
        "GPUs (the server owned), else in one of any size",
    )
    cost_of_capital_pct: float = Field(
        0.0,
        ge=0,
        le=50,
        description="% a year: interest on the purchase, or the return its cash forgoes; 0 = not counted "
        "(no sourced default)",
    )
    resale_pct: float = Field(
        0.0,
        ge=0,
        lt=100,
        description="% of the purchase the servers sell for at the end of the depreciation life; 0 = not counted "
        "(no sourced default)",
    )


@dataclass(frozen=True, slots=True)
class ResolvedInput:
    """One input as used: its value, and where it came from."""

    name: str
    value: float
    unit: str
    overridden: bool
    source: str  # what the default is (empty when overridden)
    as_of: str = ""
    source_url: str = ""


class MissingInput(FieldError):
    """No sourced default exists for an input: the user has to give it (field names the first such input,
    errors every one, each with its message)."""

    @property
    def fields(self) -> dict[str, str]:
        return self.errors
