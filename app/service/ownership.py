"""Own hardware or rent it, for the /own page, its .json twin, the API and `gpumatch own`.

The query string is the OwnershipQuestion's fields by name; defaults and empty fields are left out
(an empty field means the sourced default), so the canonical link holds only what the user changed.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlencode

from pydantic import ValidationError

from app.scoring.explain import fixed, significant
from app.scoring.input_checks.messages import error_location, error_message
from app.scoring.serving.ownership.cost import compare_ownership, cumulative_usd
from app.scoring.serving.ownership.question import MissingInput, OwnershipQuestion
from app.scoring.serving.ownership.tco_defaults import (
    UNITS,
    inputs_to_give,
    missing_defaults,
    ownership_inputs,
    resolve_each,
    resolve_inputs,
)
from app.scoring.serving.ownership.tco_rows import WORST_CASE_POWER
from app.scoring.specs import CatalogSnapshot
from app.service.catalog_ids import catalog_id, unknown_one_message
from app.service.charts import own_cost
from app.service.query.fields import query_fields
from app.service.query.phase import QuestionKind
from app.service.query.values import format_value, non_default_fields, query_shape_errors, read_numbers
from app.service.rank.plain import plain

MAX_CHART_MONTHS = 240  # 20 years, the longest depreciation life the question accepts
NOT_MODELLED = "staff, spares and failures (no source in tco.csv)"
# what a GPU without sourced defaults needs, as the form's GPU list says it (both power fields share one tco.csv row)
TO_ENTER = {"purchase_usd_per_server": "a server price", "power_kw_per_server": "power",
            "provisioned_kw_per_server": "power", "rental_usd_per_gpu_hour": "a rental price"}  # fmt: skip
UNLESS_GIVEN = {"cost_of_capital_pct": "cost of capital", "resale_pct": "resale value"}  # tco.csv has neither


@dataclass
class OwnQuery:
    kind: ClassVar[QuestionKind] = "own"  # what typed_question_errors checks of a refused one
    question: OwnershipQuestion | None
    values: dict[str, Any]  # what was typed, to refill the form
    errors: dict[str, str] = field(default_factory=dict)
    canonical: str = ""


OWN_FIELDS = query_fields(OwnershipQuestion.model_fields)
ALWAYS = ("gpu", "gpu_count", "utilisation_pct")  # a link always says what is owned and how busy it is


def canonical_own_query(question: OwnershipQuestion) -> str:
    pairs = [(k, format_value(getattr(question, k))) for k in ALWAYS]
    pairs += [(k, format_value(v)) for k, v in non_default_fields(question) if k not in ALWAYS]
    return urlencode(pairs)


def with_catalog_gpu(question: OwnershipQuestion, snapshot: CatalogSnapshot) -> OwnershipQuestion:
    """The question under the catalog's GPU id (`h100-sxm` -> H100-SXM, as the filters match), so its echo and
    share link name the catalog's GPU; an unknown id stays as given, for own_payload's error."""
    return question.model_copy(update={"gpu": catalog_id(snapshot, "gpus", question.gpu)})


def parse_own(items: list[tuple[str, str]], snapshot: CatalogSnapshot | None = None) -> OwnQuery:
    typed = {k: v.strip() for k, v in items if OWN_FIELDS.takes(k) and v.strip() != ""}
    values = read_numbers(typed)
    errors = query_shape_errors(items)  # a key given twice answers 422, as on every page, not its last value
    errors.update(OWN_FIELDS.errors(k for k, _ in items))
    try:
        question = OwnershipQuestion.model_validate(values)
    except ValidationError as exc:
        for error in exc.errors():
            name = next(iter(error_location(error)), "gpu")
            errors.setdefault(name, error_message(error))
        return OwnQuery(None, typed, errors)
    if errors:
        return OwnQuery(None, typed, errors)
    question = question if snapshot is None else with_catalog_gpu(question, snapshot)
    return OwnQuery(question, typed, canonical=canonical_own_query(question))


DEFAULTS_READ = ("gpu", "gpus_per_server")  # what decides whether an input has a sourced default (tco.csv, offers)


def typed_missing_defaults(
    typed: Mapping[str, Any], snapshot: CatalogSnapshot, wrong: Collection[str]
) -> dict[str, str]:
    """A question refused on its shape still names the inputs it leaves empty that have no sourced default for its
    GPU (`gpu_count=0` beside an MI355X named gpu_count, then its server price, power and rental price once that was
    fixed). Skipped where the GPU or its server size is wrong or unknown; a field given, even wrongly, is not empty."""
    if any(name in wrong for name in DEFAULTS_READ):
        return {}
    given = read_numbers({k: v for k, v in typed.items() if k not in wrong and k in OwnershipQuestion.model_fields})
    try:
        question = with_catalog_gpu(OwnershipQuestion.model_validate(given), snapshot)
    except ValidationError:
        return {}
    if question.gpu not in snapshot.gpus:
        return {}
    return {k: v for k, v in missing_defaults(question, snapshot).items() if k not in typed}


def catalog_gaps(errors: Mapping[str, str], typed: Mapping[str, Any], snapshot: CatalogSnapshot) -> dict[str, str]:
    """Of a refused question's errors, those saying a cost the user left empty has no sourced default for the GPU:
    the catalog's gap, not the user's mistake (the page asks for them apart from the fields to correct)."""
    gaps = typed_missing_defaults(typed, snapshot, errors.keys())
    return {k: v for k, v in errors.items() if gaps.get(k) == v}


def _check_gpu(question: OwnershipQuestion, snapshot: CatalogSnapshot) -> None:
    if question.gpu not in snapshot.gpus:
        raise MissingInput("gpu", unknown_one_message(snapshot, "gpus", question.gpu))


def _words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def gpu_choices(snapshot: CatalogSnapshot) -> list[dict[str, str]]:
    """The form's GPUs: those whose every default is sourced first, then the rest, each saying what to enter
    (`{"id", "to_enter"}`; to_enter is empty when nothing is needed)."""
    listed = {o.gpu_id for o in snapshot.offers} | {t.gpu_id for t in snapshot.tco if t.gpu_id}
    ids = sorted(listed & set(snapshot.gpus))
    choices = []
    for gpu, fields in inputs_to_give(snapshot, ids).items():
        needed = list(dict.fromkeys(TO_ENTER.get(f, f) for f in fields))
        choices.append({"id": gpu, "to_enter": f"enter {_words(needed)}" if needed else ""})
    return sorted(choices, key=lambda c: (c["to_enter"] != "", c["id"]))


def sourced_gpus(snapshot: CatalogSnapshot, gpu_ids: list[str]) -> set[str]:
    """Those of `gpu_ids` that /own answers with no input given (links to /own go only to these)."""
    return {gpu for gpu, fields in inputs_to_give(snapshot, gpu_ids).items() if not fields}


def form_defaults(question: OwnershipQuestion, snapshot: CatalogSnapshot) -> dict[str, dict[str, Any]]:
    """Each cost field's hint, also when an input is missing: the default used, or `missing` (its message)."""
    hints: dict[str, dict[str, Any]] = {}
    for name, resolved in resolve_each(question, snapshot).items():
        if isinstance(resolved, MissingInput):
            hints[name] = {"name": name, "unit": UNITS[name], "overridden": False, "missing": str(resolved)}
        else:
            hints[name] = plain(resolved)
    return hints


def _curve(ownership: Any, months: int) -> list[dict[str, float]]:
    points = []
    for m in range(months + 1):
        own, rent = cumulative_usd(ownership, m)
        points.append({"month": m, "owning_usd": round(own, 2), "renting_usd": round(rent, 2)})
    return points


def _idle_gpus_note(question: OwnershipQuestion, servers: int) -> list[str]:
    """Whole servers are bought: say so where they hold more GPUs than the question rents."""
    owned = servers * question.gpus_per_server
    idle = owned - question.gpu_count
    if idle <= 0:
        return []
    smaller = (
        f" Set GPUs per server to {question.gpu_count} to price a {question.gpu_count}-GPU server (the default price "
        "and power scale with it)."
        if question.gpu_count < question.gpus_per_server
        else ""
    )
    return [
        f"Owning buys whole servers: {question.gpu_count} GPU{'s take' if question.gpu_count != 1 else ' takes'} "
        f"{servers} server{'s' if servers != 1 else ''} of {question.gpus_per_server} ({owned} GPUs, {idle} more than "
        f"renting pays for), and owning is priced for all {owned}.{smaller}"
    ]


def own_payload(
    question: OwnershipQuestion, snapshot: CatalogSnapshot, share_url: str, charts: bool = True
) -> dict[str, Any]:
    """POST /api/v1/own's body (raises MissingInput naming the field without a sourced default), with the /own
    page's chart in numbers (`charts`) unless `charts` is false (the page, which draws it, adds them itself)."""
    _check_gpu(question, snapshot)
    resolved = resolve_inputs(question, snapshot)
    ownership = compare_ownership(ownership_inputs(question, resolved))
    life_months = ownership.inputs.depreciation_years * 12
    horizon = min(MAX_CHART_MONTHS, math.ceil(max(life_months, (ownership.break_even_months or 0) * 1.25)))
    absent = [words for name, words in UNLESS_GIVEN.items() if getattr(question, name) <= 0]
    notes = [
        f"Not modelled: {NOT_MODELLED}" + (f"; not counted, as none was given: {', '.join(absent)}." if absent else ".")
    ]
    power = next(r for r in resolved if r.name == "power_kw_per_server")
    if WORST_CASE_POWER in power.source:
        notes.append(
            f"Power draw: {significant(power.value)} kW a server is the maximum input, a worst case, as tco.csv gives "
            f"no typical draw for {question.gpu} servers: the energy cost is an upper bound (a GPU whose server has a "
            "published typical draw is priced at it). Enter your measured draw to replace it."
        )
    notes.extend(_idle_gpus_note(question, ownership.inputs.servers))
    if ownership.break_even_months is not None and ownership.break_even_months > life_months:
        notes.append(
            f"The purchase pays back after {fixed(ownership.break_even_months, 1)} months, beyond the "
            f"{significant(life_months)}-month depreciation life."
        )
    payload = {
        "question": question.model_dump(mode="json"),
        "gpu_name": snapshot.gpus[question.gpu].name,
        "servers": ownership.inputs.servers,
        "inputs": plain(resolved),
        "purchase_usd": round(ownership.purchase_usd, 2),
        "depreciation_usd_per_month": round(ownership.depreciation_usd_per_month, 2),
        "capital_usd_per_month": round(ownership.capital_usd_per_month, 2),
        "energy_usd_per_month": round(ownership.energy_usd_per_month, 2),
        "colocation_usd_per_month": round(ownership.colocation_usd_per_month, 2),
        "owning_usd_per_month": round(ownership.owning_usd_per_month, 2),
        "running_usd_per_month": round(ownership.running_usd_per_month, 2),
        "renting_usd_per_month": round(ownership.renting_usd_per_month, 2),
        "renting_usd_per_month_full": round(ownership.renting_usd_per_month_full, 2),
        "break_even_utilisation_pct": (
            None if ownership.break_even_utilisation is None else round(ownership.break_even_utilisation * 100, 3)
        ),
        "break_even_months": None if ownership.break_even_months is None else round(ownership.break_even_months, 3),
        "break_even_usd": None
        if ownership.break_even_months is None
        else round(cumulative_usd(ownership, ownership.break_even_months)[1], 2),
        "depreciation_months": life_months,
        "cheaper": ownership.cheaper,
        "terms": plain(ownership.terms),
        "cumulative": _curve(ownership, horizon),
        "notes": notes,
        "catalog_version": snapshot.version,
        "share_url": share_url,
    }
    if charts:
        payload["charts"] = own_cost.chart_tables(payload)
    return payload


__all__ = [
    "MissingInput",
    "OwnQuery",
    "canonical_own_query",
    "catalog_gaps",
    "form_defaults",
    "gpu_choices",
    "own_payload",
    "parse_own",
    "sourced_gpus",
    "with_catalog_gpu",
]
