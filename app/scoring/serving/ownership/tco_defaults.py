"""The own-vs-rent question's sourced defaults from tco.csv (every input overridable; the question: question.py).

Which tco.csv row fills an input left empty (each choice is stated in the answer with its source):
- purchase: the newest dated 8-GPU server price of that GPU; else a rack price (GB200 NVL72: the rack's CPUs, switches
  and network included) shared per GPU, its confidence stated; else the user must give one (a bare GPU price leaves
  out the CPUs, memory and network, so it is never used as a server price);
- power draw: the midpoint of the published typical draw under load; for a server tco.csv gives as the same chassis
  as one with a typical draw (the DGX H200 is the DGX H100's, at the same maximum input), that server's; else the
  maximum input, said to be a worst case (energy overstated against a GPU priced at its typical draw);
- provisioned kW (colocation): the maximum input;
- one power figure given where tco.csv has neither for the server: the other from it, at the DGX H100's maximum input
  over its typical draw (tco.csv's one server with both), so a buyer who knows a draw is not asked for a second
  figure (tco_rows.power_headroom); a sourced default is never replaced this way;
- purchase and power for a server of another size: the 8-GPU server's per-GPU share times the GPUs per server
  (an assumption: the host's CPUs, memory, network and power scale with its GPUs; tco.csv has no other sizes);
- $/kWh: the first US commercial rate listed (EIA, East North Central, April 2025);
- PUE: the industry average (Uptime Institute 2023);
- colocation: CBRE's own report (cbre.com) rather than secondary summaries;
- depreciation: the shortest life in the filings (5 years: Amazon, Meta), the conservative choice;
- rental: the cheapest fresh on-demand offer of the GPU in an instance of one owned server's GPU count (the machine
  owned, its GPUs and the link between them: a 1-GPU rental is another machine), else of any count; the answer
  names a cheaper offer of another size where there is one;
- cost of capital and resale value: none in tco.csv, so 0 (not counted) unless the user gives them.
"""

from __future__ import annotations

from collections.abc import Callable

from app.scoring.explain import significant
from app.scoring.serving.ownership.cost import OwnershipInputs
from app.scoring.serving.ownership.question import MissingInput, OwnershipQuestion, ResolvedInput
from app.scoring.serving.ownership.rental import rental_default
from app.scoring.serving.ownership.tco_rows import (
    first_row,
    from_row,
    power_default,
    power_headroom,
    purchase_default,
    shortest_life,
)
from app.scoring.specs import CatalogSnapshot

CENTS_PER_USD = 100.0


UNITS = {"purchase_usd_per_server": "$ per server", "power_kw_per_server": "kW per server",
         "provisioned_kw_per_server": "kW per server", "usd_per_kwh": "$ per kWh", "pue": "ratio",
         "colocation_usd_per_kw_month": "$ per kW-month", "depreciation_years": "years",
         "rental_usd_per_gpu_hour": "$ per GPU-hour"}  # fmt: skip


def _defaults(q: OwnershipQuestion, snapshot: CatalogSnapshot) -> dict[str, Callable[[], ResolvedInput]]:
    tco = snapshot.tco
    return {
        "purchase_usd_per_server": lambda: purchase_default(tco, q.gpu, q.gpus_per_server),
        "power_kw_per_server": lambda: power_default(tco, q.gpu, "power_kw_per_server", True, q.gpus_per_server),
        "provisioned_kw_per_server": lambda: power_default(
            tco, q.gpu, "provisioned_kw_per_server", False, q.gpus_per_server
        ),
        "usd_per_kwh": lambda: from_row(
            "usd_per_kwh",
            first_row(tco, "electricity_price", "usd_per_kwh", pick="commercial"),
            "$ per kWh",
            1 / CENTS_PER_USD,
        ),
        "pue": lambda: from_row("pue", first_row(tco, "pue", "pue", pick="industry average"), "ratio"),
        "colocation_usd_per_kw_month": lambda: from_row(
            "colocation_usd_per_kw_month",
            first_row(tco, "colocation_price", "colocation_usd_per_kw_month", pick="cbre.com"),
            "$ per kW-month",
        ),
        "depreciation_years": lambda: from_row(
            "depreciation_years", shortest_life(tco), "years", why="the shortest life in the filings"
        ),
        "rental_usd_per_gpu_hour": lambda: rental_default(snapshot, q),
    }


def _resolve(name: str, given: float | None, default: Callable[[], ResolvedInput]) -> ResolvedInput | MissingInput:
    if given is not None:
        return ResolvedInput(name, given, UNITS[name], True, "")
    try:
        return default()
    except MissingInput as exc:
        return exc


def resolve_each(q: OwnershipQuestion, snapshot: CatalogSnapshot) -> dict[str, ResolvedInput | MissingInput]:
    """Each costed input as used (the user's value, else the sourced default), or why it has no default:
    the form shows every default beside its field even when another input is missing."""
    each = {name: _resolve(name, getattr(q, name), default) for name, default in _defaults(q, snapshot).items()}
    return {**each, **_paired_power(each, snapshot)}


DRAW, PROVISIONED = "power_kw_per_server", "provisioned_kw_per_server"


def _paired_power(each: dict[str, ResolvedInput | MissingInput], snapshot: CatalogSnapshot) -> dict[str, ResolvedInput]:
    """The power figure tco.csv has no row for, from the one the user gave (draw × headroom, or provisioned ÷ it)."""
    draw, provisioned = each[DRAW], each[PROVISIONED]
    headroom = power_headroom(snapshot.tco)
    if headroom is None:
        return {}
    ratio, words, row = headroom
    if isinstance(provisioned, MissingInput) and isinstance(draw, ResolvedInput) and draw.overridden:
        why = (
            f"your {significant(draw.value)} kW power draw × {significant(ratio, 3)}, {words}; give your colocation "
            "contract's kW to replace it"
        )
        return {
            PROVISIONED: ResolvedInput(
                PROVISIONED, draw.value * ratio, UNITS[PROVISIONED], False, why, row.as_of, row.source_url
            )
        }
    if isinstance(draw, MissingInput) and isinstance(provisioned, ResolvedInput) and provisioned.overridden:
        why = (
            f"your {significant(provisioned.value)} kW provisioned ÷ {significant(ratio, 3)}, {words}; give your "
            "measured draw to replace it"
        )
        return {
            DRAW: ResolvedInput(DRAW, provisioned.value / ratio, UNITS[DRAW], False, why, row.as_of, row.source_url)
        }
    return {}


def missing_defaults(q: OwnershipQuestion, snapshot: CatalogSnapshot) -> dict[str, str]:
    """The inputs the question leaves empty that have no sourced default, each with its message."""
    return {name: str(r) for name, r in resolve_each(q, snapshot).items() if isinstance(r, MissingInput)}


def resolve_inputs(q: OwnershipQuestion, snapshot: CatalogSnapshot) -> list[ResolvedInput]:
    """Each input: the user's value where given, else the sourced default (raises MissingInput naming every
    input without one)."""
    each = resolve_each(q, snapshot)
    missing = {name: str(r) for name, r in each.items() if isinstance(r, MissingInput)}
    if missing:
        first = next(iter(missing))
        raise MissingInput(first, missing[first], missing)
    resolved = [r for r in each.values() if isinstance(r, ResolvedInput)]
    unsourced = (
        ("cost_of_capital_pct", "% a year", "tco.csv has no rate; give yours (a loan's interest, or your return)"),
        ("resale_pct", "% of the purchase", "tco.csv has no resale prices; give yours"),
    )
    for name, unit, why in unsourced:
        value = getattr(q, name)  # 0, given or not, is the default: not counted
        resolved.append(ResolvedInput(name, value, unit, value > 0, "" if value > 0 else f"not counted: {why}"))
    return resolved


def ownership_inputs(q: OwnershipQuestion, resolved: list[ResolvedInput]) -> OwnershipInputs:
    values = {r.name: r.value for r in resolved}
    return OwnershipInputs(
        gpu_id=q.gpu,
        gpu_count=q.gpu_count,
        gpus_per_server=q.gpus_per_server,
        utilisation=q.utilisation_pct / 100,
        **values,
    )


def inputs_to_give(snapshot: CatalogSnapshot, gpu_ids: list[str]) -> dict[str, list[str]]:
    """Per GPU, the inputs without a sourced default that a user must give (empty: every default is sourced)."""
    return {gpu: list(missing_defaults(OwnershipQuestion(gpu=gpu), snapshot)) for gpu in gpu_ids}
