"""The tco.csv rows behind the owning defaults: server purchase, power draw, and the first or shortest sourced row.

tco.csv prices and powers 8-GPU servers (SOURCED_SERVER_GPUS); a server of another size takes their per-GPU share
times its GPUs. A server price wins over a rack price shared per GPU; a typical draw (own, or a same-chassis twin's)
wins over the maximum input, said to be a worst case. Each pick raises MissingInput where tco.csv has no row, and
tco_defaults.py states the rules. Pure: no web or database imports.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from app.scoring.explain import significant
from app.scoring.serving.ownership.question import MissingInput, ResolvedInput
from app.scoring.specs import TcoInput

# GPUs in every server whose price or power tco.csv gives (DGX H100/H200/B200, "8x H100 node"): the defaults scale
# from it to the question's gpus_per_server.
SOURCED_SERVER_GPUS = 8


def _rows(tco: tuple[TcoInput, ...], item: str, gpu_id: str = "") -> list[TcoInput]:
    return [t for t in tco if t.item == item and t.gpu_id == gpu_id and t.value is not None]


def from_row(name: str, row: TcoInput, unit: str, scale: float = 1.0, why: str = "") -> ResolvedInput:
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
        return from_row("purchase_usd_per_server", row, "$ per server", gpus_per_server / rack_gpus, why)
    return None


def purchase_default(tco: tuple[TcoInput, ...], gpu: str, gpus_per_server: int = SOURCED_SERVER_GPUS) -> ResolvedInput:
    rows = sorted(_rows(tco, "purchase_price_server", gpu), key=lambda t: t.as_of, reverse=True)
    if not rows and (rack := _rack_purchase(tco, gpu, gpus_per_server)) is not None:
        return rack
    if not rows:
        gpu_price = _rows(tco, "purchase_price_gpu", gpu)
        hint = f", only a bare GPU price, {gpu_price[0].value_text} USD, without the server" if gpu_price else ""
        raise MissingInput(
            "purchase_usd_per_server",
            f"the catalog has no server price for {gpu} (tco.csv lists none{hint}): enter yours, in $ per server",
        )
    scale, size = _per_server_size(gpus_per_server)
    return from_row("purchase_usd_per_server", rows[0], "$ per server", scale, "newest dated server price" + size)


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
        assert own_max[0].value is not None  # _rows keeps valued rows only
        return typical[0], (
            f"midpoint of the {twin} server's typical draw: tco.csv gives the {gpu} server as the same chassis, at "
            f"the same {significant(own_max[0].value)} kW maximum input, and no typical draw of its own"
        )
    return None


def power_default(
    tco: tuple[TcoInput, ...], gpu: str, field: str, typical_first: bool, gpus_per_server: int = SOURCED_SERVER_GPUS
) -> ResolvedInput:
    """The average draw (typical_first) or the provisioned kW (the maximum input) of one server."""
    scale, size = _per_server_size(gpus_per_server)
    if typical_first and (typical := _typical_draw(tco, gpu)) is not None:
        row, why = typical
        return from_row(field, row, "kW per server", scale, why + size)
    if rows := _rows(tco, "system_power_max", gpu):
        why = "maximum input" if not typical_first else WORST_CASE_POWER
        return from_row(field, rows[0], "kW per server", scale, why + size)
    raise MissingInput(
        field,
        f"the catalog has no {POWER_WORDS[field]} for {gpu} servers (tco.csv lists none): enter "
        "yours, in kW per server, or only the other power figure (this one is then derived from it)",
    )


# tco.csv's one server with both a typical draw and a maximum input (DGX H100: 6.5-8.5 kW typical, 10.2 kW maximum):
# their ratio is the headroom a colocation contract provisions over the draw, for a server tco.csv gives neither for.
HEADROOM_SERVER_GPU = "H100-SXM"


def power_headroom(tco: tuple[TcoInput, ...]) -> tuple[float, str, TcoInput] | None:
    """(maximum input ÷ typical draw, that in words, the maximum's row) of HEADROOM_SERVER_GPU's server; None where
    tco.csv lacks either row."""
    typical, most = (
        _rows(tco, "system_power_typical", HEADROOM_SERVER_GPU),
        _rows(tco, "system_power_max", HEADROOM_SERVER_GPU),
    )
    if not (typical and most):
        return None
    assert typical[0].value and most[0].value  # _rows keeps valued rows only
    ratio = most[0].value / typical[0].value
    words = (
        f"the DGX H100's {significant(most[0].value)} kW maximum input over its {typical[0].value_text} kW typical "
        f"draw (midpoint {significant(typical[0].value)}), as tco.csv gives them"
    )
    return ratio, words, most[0]


# what each power field holds, in the words a missing one is asked for
POWER_WORDS = {
    "power_kw_per_server": "power draw",
    "provisioned_kw_per_server": "provisioned power (the maximum input, which colocation bills)",
}
WORST_CASE_POWER = (
    "maximum input, a worst case: tco.csv has no typical draw for this server, so the energy is overstated beside "
    "a GPU priced at its typical draw; give your measured draw"
)


def first_row(tco: tuple[TcoInput, ...], item: str, field: str, pick: str = "") -> TcoInput:
    rows = _rows(tco, item)
    chosen = [t for t in rows if pick in t.unit or pick in urlparse(t.source_url).netloc] if pick else rows
    if not (chosen or rows):
        raise MissingInput(field, f"the catalog has no {item.replace('_', ' ')} (tco.csv lists none): enter yours")
    return (chosen or rows)[0]


def shortest_life(tco: tuple[TcoInput, ...]) -> TcoInput:
    rows = _rows(tco, "depreciation_life")
    if not rows:
        raise MissingInput(
            "depreciation_years", "the catalog has no depreciation life (tco.csv lists none): enter yours"
        )
    return min(rows, key=lambda t: t.value or 0)
