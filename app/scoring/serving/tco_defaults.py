"""The own-vs-rent question and its sourced defaults from tco.csv (every input overridable).

Which tco.csv row fills an input left empty (each choice is stated in the answer with its source):
- purchase: the newest dated 8-GPU server price of that GPU; else a rack price (GB200 NVL72: the rack's CPUs, switches
  and network included) shared per GPU, its confidence stated; else the user must give one (a bare GPU price leaves
  out the CPUs, memory and network, so it is never used as a server price);
- power draw: the midpoint of the published typical draw under load; for a server tco.csv gives as the same chassis
  as one with a typical draw (the DGX H200 is the DGX H100's, at the same maximum input), that server's; else the
  maximum input, said to be a worst case (energy overstated against a GPU priced at its typical draw);
- provisioned kW (colocation): the maximum input;
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

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlparse

from pydantic import ConfigDict, Field

from app.scoring.input_checks.messages import FieldError
from app.scoring.input_checks.numbers_only import NumbersNotBooleans
from app.scoring.pricing.price_terms import price_caveats
from app.scoring.serving.ownership import OwnershipInputs
from app.scoring.specs import CatalogSnapshot, Offer, TcoInput
from app.scoring.workload import ShortId

CENTS_PER_USD = 100.0
# GPUs in every server whose price or power tco.csv gives (DGX H100/H200/B200, "8x H100 node"): the defaults scale
# from it to the question's gpus_per_server.
SOURCED_SERVER_GPUS = 8


class OwnershipQuestion(NumbersNotBooleans):
    """Own N GPUs or rent them; empty fields take the sourced default named in the answer."""

    model_config = ConfigDict(extra="forbid")

    gpu: ShortId = Field("H100-SXM", description="catalog GPU id")
    gpu_count: int = Field(8, ge=1, le=4_096, description="GPUs owned (or rented)")
    utilisation_pct: float = Field(60, gt=0, le=100, description="share of hours the GPUs do useful work")
    gpus_per_server: int = Field(
        8,
        ge=1,
        le=72,
        description="GPUs in one server; the default price and power are an 8-GPU server's per-GPU share times this",
    )
    purchase_usd_per_server: float | None = Field(None, gt=0, le=1e8)
    power_kw_per_server: float | None = Field(None, gt=0, le=200, description="average draw while on")
    provisioned_kw_per_server: float | None = Field(None, gt=0, le=200, description="colocation kW contracted")
    usd_per_kwh: float | None = Field(None, gt=0, le=5)
    pue: float | None = Field(None, ge=1, le=3, description="facility power ÷ IT power")
    colocation_usd_per_kw_month: float | None = Field(None, ge=0, le=5_000)
    depreciation_years: float | None = Field(None, ge=1, le=20, description="straight-line life, years")
    rental_usd_per_gpu_hour: float | None = Field(
        None,
        gt=0,
        le=1_000,
        description="default: the cheapest fresh on-demand $/GPU-hour of this GPU in an instance of gpus_per_server "
        "GPUs (the server owned), else in one of any size",
    )
    cost_of_capital_pct: float = Field(
        0,
        ge=0,
        le=50,
        description="% a year: interest on the purchase, or the return its cash forgoes; 0 = not counted "
        "(no sourced default)",
    )
    resale_pct: float = Field(
        0,
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


def _rows(tco: tuple[TcoInput, ...], item: str, gpu_id: str = "") -> list[TcoInput]:
    return [t for t in tco if t.item == item and t.gpu_id == gpu_id and t.value is not None]


def _from_row(name: str, row: TcoInput, unit: str, scale: float = 1.0, why: str = "") -> ResolvedInput:
    assert row.value is not None
    text = f"{row.value_text} {row.unit}" + (f" ({why})" if why else "")
    return ResolvedInput(name, row.value * scale, unit, False, text, row.as_of, row.source_url)


def _per_server_size(gpus_per_server: int) -> tuple[float, str]:
    """(scale, why) of an 8-GPU server's figure for a server of `gpus_per_server` GPUs."""
    if gpus_per_server == SOURCED_SERVER_GPUS:
        return 1.0, ""
    return gpus_per_server / SOURCED_SERVER_GPUS, (
        f"; × {gpus_per_server}/{SOURCED_SERVER_GPUS} for {gpus_per_server} GPUs per server: the "
        f"{SOURCED_SERVER_GPUS}-GPU server's per-GPU share, assuming its CPUs, memory, network and power scale "
        "with the GPUs"
    )


def _rack_purchase(tco: tuple[TcoInput, ...], gpu: str, gpus_per_server: int) -> ResolvedInput | None:
    """A whole rack's price (tco.csv purchase_price_rack, 'USD per GB200 NVL72 rack') shared per GPU, times the GPUs
    per server: a system price (CPUs, switches, network in it), unlike a bare GPU price."""
    for row in _rows(tco, "purchase_price_rack", gpu):
        rack = re.search(r"NVL(\d+)", row.unit)
        if rack is None:
            continue
        rack_gpus = int(rack.group(1))
        confidence = "; tco.csv rates it low confidence (secondary, undated)" if "low confidence" in row.note else ""
        why = (
            f"a rack price, ÷ {rack_gpus} GPUs per rack × {gpus_per_server} GPUs per server{confidence}: give your "
            "quote where you have one"
        )
        return _from_row("purchase_usd_per_server", row, "$ per server", gpus_per_server / rack_gpus, why)
    return None


def _purchase(tco: tuple[TcoInput, ...], gpu: str, gpus_per_server: int = SOURCED_SERVER_GPUS) -> ResolvedInput:
    rows = sorted(_rows(tco, "purchase_price_server", gpu), key=lambda t: t.as_of, reverse=True)
    if not rows and (rack := _rack_purchase(tco, gpu, gpus_per_server)) is not None:
        return rack
    if not rows:
        gpu_price = _rows(tco, "purchase_price_gpu", gpu)
        hint = (
            f" (tco.csv has a bare GPU price, {gpu_price[0].value_text} USD, without the server)" if gpu_price else ""
        )
        raise MissingInput("purchase_usd_per_server", f"no sourced server price for {gpu} in tco.csv{hint}; give one")
    scale, size = _per_server_size(gpus_per_server)
    return _from_row("purchase_usd_per_server", rows[0], "$ per server", scale, "newest dated server price" + size)


# tco.csv's system_power_max rows: DGX H100 "/ DGX H200 (max input)", "Applies to H200 DGX too"; DGX H200 "Same chassis
# power spec as DGX H100". A server with no typical draw of its own takes its chassis twin's (checked: same max input).
SAME_CHASSIS = {"H200": "H100-SXM"}


def _typical_draw(tco: tuple[TcoInput, ...], gpu: str) -> tuple[TcoInput, str] | None:
    """The typical draw row for `gpu`'s server, or its same-chassis twin's, with why it applies."""
    if rows := _rows(tco, "system_power_typical", gpu):
        return rows[0], "midpoint of the typical draw"
    twin = SAME_CHASSIS.get(gpu)
    own_max, twin_max = _rows(tco, "system_power_max", gpu), _rows(tco, "system_power_max", twin or "")
    typical = _rows(tco, "system_power_typical", twin or "")
    if twin and typical and own_max and twin_max and own_max[0].value == twin_max[0].value:
        return typical[0], (
            f"midpoint of the {twin} server's typical draw: tco.csv gives the {gpu} server as the same chassis, at "
            f"the same {own_max[0].value:g} kW maximum input, and no typical draw of its own"
        )
    return None


def _power(
    tco: tuple[TcoInput, ...], gpu: str, field: str, typical_first: bool, gpus_per_server: int = SOURCED_SERVER_GPUS
) -> ResolvedInput:
    """The average draw (typical_first) or the provisioned kW (the maximum input) of one server."""
    scale, size = _per_server_size(gpus_per_server)
    if typical_first and (typical := _typical_draw(tco, gpu)) is not None:
        row, why = typical
        return _from_row(field, row, "kW per server", scale, why + size)
    if rows := _rows(tco, "system_power_max", gpu):
        why = "maximum input" if not typical_first else WORST_CASE_POWER
        return _from_row(field, rows[0], "kW per server", scale, why + size)
    raise MissingInput(field, f"no sourced system power for {gpu} servers in tco.csv; give one")


WORST_CASE_POWER = (
    "maximum input, a worst case: tco.csv has no typical draw for this server, so the energy is overstated beside "
    "a GPU priced at its typical draw; give your measured draw"
)


def _first(tco: tuple[TcoInput, ...], item: str, field: str, pick: str = "") -> TcoInput:
    rows = _rows(tco, item)
    chosen = [t for t in rows if pick in t.unit or pick in urlparse(t.source_url).netloc] if pick else rows
    if not (chosen or rows):
        raise MissingInput(field, f"no sourced {item} in tco.csv; give one")
    return (chosen or rows)[0]


def _shortest_life(tco: tuple[TcoInput, ...]) -> TcoInput:
    rows = _rows(tco, "depreciation_life")
    if not rows:
        raise MissingInput("depreciation_years", "no sourced depreciation life in tco.csv; give one")
    return min(rows, key=lambda t: t.value or 0)


def _fresh_on_demand(snapshot: CatalogSnapshot, gpu: str) -> list[Offer]:
    return [o for o in snapshot.offers if o.gpu_id == gpu and o.price_type == "on_demand" and not o.stale]


def _cheapest(offers: list[Offer]) -> Offer | None:
    return min(offers, key=lambda o: (o.usd_per_gpu_hour, o.provider_id), default=None)


def cheapest_rental(snapshot: CatalogSnapshot, gpu: str, gpus_per_server: int) -> Offer | None:
    """The rental compared with owning: the cheapest of the server's size, else of any size."""
    fresh = _fresh_on_demand(snapshot, gpu)
    return _cheapest([o for o in fresh if o.gpu_count == gpus_per_server] or fresh)


def offer_words(offer: Offer) -> str:
    """'Lambda gpu_8x_h100_sxm5', or 'GMI Cloud 1× H100-SXM' for an offer without an instance name, with its price's
    caveats where it has some ('(provider's article, not its price list)'): the rental is a price a buyer is shown."""
    caveats = price_caveats(offer.price_note)
    said = f" ({'; '.join(caveats)})" if caveats else ""
    return f"{offer.provider_name} {offer.instance_type or f'{offer.gpu_count}× {offer.gpu_id}'}{said}"


def _rental(snapshot: CatalogSnapshot, q: OwnershipQuestion) -> ResolvedInput:
    offer = cheapest_rental(snapshot, q.gpu, q.gpus_per_server)
    if offer is None:
        raise MissingInput("rental_usd_per_gpu_hour", f"no fresh on-demand offer of {q.gpu}; give a rental price")
    size = q.gpus_per_server
    if offer.gpu_count == size:
        text = f"cheapest on-demand {size}-GPU instance, the size of the servers owned: {offer_words(offer)}"
        other = _cheapest(_fresh_on_demand(snapshot, q.gpu))
        if other is not None and other.usd_per_gpu_hour < offer.usd_per_gpu_hour:
            text += (
                f"; cheaper in another size: {offer_words(other)} at ${other.usd_per_gpu_hour:.2f} per GPU-hour "
                f"({other.gpu_count}-GPU instance, a different machine): enter it as the rental price to compare"
            )
    else:
        text = (
            f"cheapest on-demand of any size, as no fresh offer is a {size}-GPU instance: {offer_words(offer)} "
            f"({offer.gpu_count}-GPU instance)"
        )
    as_of = offer.as_of.isoformat() if offer.as_of else ""
    return ResolvedInput(
        "rental_usd_per_gpu_hour", offer.usd_per_gpu_hour, "$ per GPU-hour", False, text, as_of, offer.source_url
    )


UNITS = {"purchase_usd_per_server": "$ per server", "power_kw_per_server": "kW per server",
         "provisioned_kw_per_server": "kW per server", "usd_per_kwh": "$ per kWh", "pue": "ratio",
         "colocation_usd_per_kw_month": "$ per kW-month", "depreciation_years": "years",
         "rental_usd_per_gpu_hour": "$ per GPU-hour"}  # fmt: skip


def _defaults(q: OwnershipQuestion, snapshot: CatalogSnapshot) -> dict[str, Callable[[], ResolvedInput]]:
    tco = snapshot.tco
    return {
        "purchase_usd_per_server": lambda: _purchase(tco, q.gpu, q.gpus_per_server),
        "power_kw_per_server": lambda: _power(tco, q.gpu, "power_kw_per_server", True, q.gpus_per_server),
        "provisioned_kw_per_server": lambda: _power(tco, q.gpu, "provisioned_kw_per_server", False, q.gpus_per_server),
        "usd_per_kwh": lambda: _from_row(
            "usd_per_kwh",
            _first(tco, "electricity_price", "usd_per_kwh", pick="commercial"),
            "$ per kWh",
            1 / CENTS_PER_USD,
        ),
        "pue": lambda: _from_row("pue", _first(tco, "pue", "pue", pick="industry average"), "ratio"),
        "colocation_usd_per_kw_month": lambda: _from_row(
            "colocation_usd_per_kw_month",
            _first(tco, "colocation_price", "colocation_usd_per_kw_month", pick="cbre.com"),
            "$ per kW-month",
        ),
        "depreciation_years": lambda: _from_row(
            "depreciation_years", _shortest_life(tco), "years", why="the shortest life in the filings"
        ),
        "rental_usd_per_gpu_hour": lambda: _rental(snapshot, q),
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
    return {name: _resolve(name, getattr(q, name), default) for name, default in _defaults(q, snapshot).items()}


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
