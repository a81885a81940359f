"""Own GPU servers or rent them: monthly cost of owning, and where owning breaks even with renting.

Pure arithmetic on resolved inputs (tco_defaults.py picks the sourced defaults from tco.csv):
- owning per month = purchase ÷ (depreciation years × 12) + cost of capital + energy + colocation, per server;
  with a cost of capital r a year (the user's: no sourced default, 0 = not counted) the purchase is repaid as an
  annuity at r / 12 a month over the life, and the cost of capital is that payment less the straight-line part;
  energy = power draw (kW) × PUE × hours × $/kWh (servers stay on every hour, busy or not);
  colocation = provisioned kW (the server's maximum input) × $/kW-month;
- renting per month = GPUs × $/GPU-hour × hours × utilisation (on-demand: pay only the hours used);
- break-even utilisation = owning per month ÷ renting per month at 100 %;
- break-even months = purchase ÷ (renting per month − running cost per month), at the utilisation (cash); with a
  cost of capital, the months after which those monthly savings, discounted at r / 12, repay the purchase;
- a resale value (the user's, % of the purchase at the end of the life) lowers depreciation and the annuity; the
  break-even months leave it out (it arrives at the end).
Not modelled (no source in tco.csv): staff, spares and failures; cost of capital and resale only when given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.scoring.explain import Term, percent, significant, usd_price
from app.scoring.serving.plans.verdict import usd
from app.scoring.serving.traffic.week import HOURS_PER_MONTH


@dataclass(frozen=True, slots=True)
class OwnershipInputs:
    """Every number the comparison uses, resolved (user override or sourced default)."""

    gpu_id: str
    gpu_count: int
    gpus_per_server: int
    utilisation: float  # share of the month's hours the GPUs do useful work (0-1]
    purchase_usd_per_server: float
    power_kw_per_server: float  # average draw while on
    provisioned_kw_per_server: float  # the colocation contract's kW (the server's maximum input)
    usd_per_kwh: float
    pue: float
    colocation_usd_per_kw_month: float
    depreciation_years: float
    rental_usd_per_gpu_hour: float
    cost_of_capital_pct: float = 0.0  # a year: interest on the purchase, or the return the cash forgoes
    resale_pct: float = 0.0  # of the purchase, what the servers sell for at the end of the depreciation life
    hours_per_month: float = HOURS_PER_MONTH

    @property
    def monthly_rate(self) -> float:
        return self.cost_of_capital_pct / 100 / 12

    @property
    def life_months(self) -> float:
        return self.depreciation_years * 12

    @property
    def servers(self) -> int:
        return math.ceil(self.gpu_count / self.gpus_per_server)


@dataclass(frozen=True, slots=True)
class Ownership:
    inputs: OwnershipInputs
    purchase_usd: float
    depreciation_usd_per_month: float
    capital_usd_per_month: float  # the annuity's interest part, averaged over the life (0 without a rate)
    energy_usd_per_month: float
    colocation_usd_per_month: float
    owning_usd_per_month: float
    running_usd_per_month: float  # energy + colocation: what owning costs each month once bought
    renting_usd_per_month: float  # at the utilisation
    renting_usd_per_month_full: float  # at 100%
    break_even_utilisation: float | None  # None: owning costs more than renting every hour of the month
    break_even_months: float | None  # None: renting at this utilisation never repays the purchase
    cheaper: str  # own | rent
    terms: list[Term]


def _energy_per_server(i: OwnershipInputs) -> float:
    return i.power_kw_per_server * i.pue * i.hours_per_month * i.usd_per_kwh


def annuity_payment(principal: float, monthly_rate: float, months: float, final_value: float = 0.0) -> float:
    """The level monthly payment that repays `principal` over `months` at `monthly_rate`, less what is left worth
    `final_value` at the end (straight line at a rate of 0)."""
    if monthly_rate <= 0:
        return (principal - final_value) / months
    log_growth = months * math.log1p(monthly_rate)  # log1p/expm1: a rate of 1e-200 neither rounds to 0 nor divides by 0
    discount, paid_down = math.exp(-log_growth), -math.expm1(-log_growth)
    return (principal - final_value * discount) * monthly_rate / paid_down


def payback_months(purchase: float, saving_per_month: float, monthly_rate: float) -> float | None:
    """Months until the monthly savings, discounted at `monthly_rate`, add up to the purchase; None when they
    never do (no saving, or a saving the purchase's interest alone exceeds)."""
    if saving_per_month <= 0:
        return None
    if monthly_rate <= 0:
        months = purchase / saving_per_month
    elif purchase * monthly_rate >= saving_per_month:
        return None
    else:
        months = -math.log1p(-purchase * monthly_rate / saving_per_month) / math.log1p(monthly_rate)
    return months if math.isfinite(months) else None  # a margin of a fraction of a cent: never, in practice


def compare_ownership(i: OwnershipInputs) -> Ownership:
    """Owning N GPUs against renting the same N at the same utilisation."""
    purchase = i.purchase_usd_per_server * i.servers
    resale = purchase * i.resale_pct / 100
    depreciation = (purchase - resale) / i.life_months
    capital = annuity_payment(purchase, i.monthly_rate, i.life_months, resale) - depreciation
    energy = _energy_per_server(i) * i.servers
    colocation = i.provisioned_kw_per_server * i.colocation_usd_per_kw_month * i.servers
    owning = depreciation + capital + energy + colocation
    running = energy + colocation
    full = i.gpu_count * i.rental_usd_per_gpu_hour * i.hours_per_month
    renting = full * i.utilisation
    even_u = owning / full if full > 0 and owning <= full else None
    even_m = payback_months(purchase, renting - running, i.monthly_rate)
    cheaper = "own" if owning < renting else "rent"
    result = Ownership(
        inputs=i,
        purchase_usd=purchase,
        depreciation_usd_per_month=depreciation,
        capital_usd_per_month=capital,
        energy_usd_per_month=energy,
        colocation_usd_per_month=colocation,
        owning_usd_per_month=owning,
        running_usd_per_month=running,
        renting_usd_per_month=renting,
        renting_usd_per_month_full=full,
        break_even_utilisation=even_u,
        break_even_months=even_m,
        cheaper=cheaper,
        terms=[],
    )
    result.terms.extend(ownership_terms(result))
    return result


def ownership_terms(o: Ownership) -> list[Term]:
    i = o.inputs
    # "1 server of 8 × $317,000" read as 8 × $317k: the count says GPUs, and the price says it is per server
    gpus = f"{i.gpus_per_server} GPU{'s' if i.gpus_per_server != 1 else ''}"
    servers = f"{i.servers} server{'s' if i.servers != 1 else ''} of {gpus}"
    terms = [
        Term("purchase", o.purchase_usd, "$", f"{servers} × {usd(i.purchase_usd_per_server)} a server"),
        Term(
            "depreciation",
            o.depreciation_usd_per_month,
            "$/month",
            f"{usd(o.purchase_usd)} ÷ ({significant(i.depreciation_years)} years × 12), straight line, no resale value"
            if i.resale_pct <= 0
            else f"{usd(o.purchase_usd)} × (1 − {significant(i.resale_pct)}% resale at the end) ÷ "
            f"({significant(i.depreciation_years)} years × 12), straight line",
        ),
        Term(
            "energy",
            o.energy_usd_per_month,
            "$/month",
            f"{i.servers} × {significant(i.power_kw_per_server)} kW × PUE {significant(i.pue)} × "
            f"{significant(i.hours_per_month)} h × "
            f"{usd_price(i.usd_per_kwh)}/kWh (on every hour)",
        ),
        Term(
            "colocation",
            o.colocation_usd_per_month,
            "$/month",
            f"{i.servers} × {significant(i.provisioned_kw_per_server)} kW provisioned × "
            f"{usd_price(i.colocation_usd_per_kw_month)}/kW-month",
        ),
        *([_capital_term(o)] if i.monthly_rate > 0 else []),
        Term(
            "owning",
            o.owning_usd_per_month,
            "$/month",
            "depreciation + cost of capital + energy + colocation"
            if i.monthly_rate > 0
            else "depreciation + energy + colocation (no cost of capital given)",
        ),
        Term(
            "renting",
            o.renting_usd_per_month,
            "$/month",
            f"{i.gpu_count} GPU{'s' if i.gpu_count != 1 else ''} × {usd_price(i.rental_usd_per_gpu_hour)}/GPU-h × "
            f"{significant(i.hours_per_month)} h × "
            f"{percent(i.utilisation)} utilisation (on-demand: only the hours used are paid)",
        ),
    ]
    if o.break_even_utilisation is not None:
        terms.append(
            Term(
                "break-even utilisation",
                o.break_even_utilisation * 100,
                "%",
                f"{usd(o.owning_usd_per_month)} owning ÷ {usd(o.renting_usd_per_month_full)} renting at 100%",
            )
        )
    if o.break_even_months is not None:
        terms.append(
            Term(
                "break-even months",
                o.break_even_months,
                "months",
                (
                    f"{usd(o.purchase_usd)} purchase ÷ ({usd(o.renting_usd_per_month)} renting − "
                    f"{usd(o.running_usd_per_month)} energy and colocation) per month"
                )
                if i.monthly_rate <= 0
                else (
                    f"months until ({usd(o.renting_usd_per_month)} renting − {usd(o.running_usd_per_month)} energy "
                    f"and colocation) a month, discounted at {significant(i.cost_of_capital_pct)}% a year, repays the "
                    f"{usd(o.purchase_usd)} purchase"
                )
                + ("; the resale, at the end of the life, is not counted" if i.resale_pct > 0 else ""),
            )
        )
    return terms


def _capital_term(o: Ownership) -> Term:
    i = o.inputs
    payment = o.depreciation_usd_per_month + o.capital_usd_per_month
    repaid = usd(o.purchase_usd)
    if i.resale_pct > 0:  # the annuity repays the purchase less the resale's value today (annuity_payment)
        resale_now = o.purchase_usd * i.resale_pct / 100 * (1 + i.monthly_rate) ** -i.life_months
        repaid += f" less the {significant(i.resale_pct)}% resale's value today ({usd(resale_now)})"
    return Term(
        "cost of capital",
        o.capital_usd_per_month,
        "$/month",
        f"{repaid} repaid at {significant(i.cost_of_capital_pct)}% a year over "
        f"{significant(i.life_months)} months "
        f"({usd(payment)}/month) less the straight-line depreciation",
    )


def cumulative_usd(o: Ownership, months: float) -> tuple[float, float]:
    """(owning, renting) spent after `months`: the purchase up front, then running costs, against rent. With a cost
    of capital each amount is carried forward to that month at it (month-m dollars), so the lines cross at the
    discounted break-even; without one it is cash."""
    rate = o.inputs.monthly_rate
    growth = (1 + rate) ** months
    flows = months if rate <= 0 else (growth - 1) / rate  # $1 a month, carried to month m
    return o.purchase_usd * growth + o.running_usd_per_month * flows, o.renting_usd_per_month * flows
