"""The catalog ids a workload's filters name (`gpus`, `providers`, `vendors`), or a catalog list's filter (GET
/api/v1/offers?gpu=…), must exist: an unknown one is an error naming the field and the ids, with the nearest known
ones, not a silently empty ranking or list.

Ids match the catalog without regard to case, as the offer filter (app/scoring/pricing/offers.py) applies them. A known
id that has no offer today (a GPU nobody rents) is no error: its ranking is empty, and says so.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping

from app.scoring.pricing.snapshot_memo import MemoKind
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import Filters

LISTED_IN_FULL = 12  # a vocabulary this small is listed whole in the message; a larger one gets the nearest ids
NEAREST = 3

# field -> (what one id names, where the whole list is)
KINDS = {
    "gpus": ("GPU", "/gpus and GET /api/v1/gpus list all {n}"),
    "providers": ("provider", "/providers and GET /api/v1/providers list all {n}"),
    "vendors": ("vendor", "GET /api/v1/gpus gives each GPU's vendor ({n})"),
    "models": ("model", "/models and GET /api/v1/models list all {n}"),
}
FILTER_FIELDS = ("gpus", "providers", "vendors")  # a workload's offer filters (app.scoring.workload.Filters)
KNOWN_IDS: MemoKind[tuple[str, ...]] = MemoKind("known_ids")  # known_ids per field name


def known_ids(snapshot: CatalogSnapshot, name: str) -> tuple[str, ...]:
    """The catalog's ids for a filter field, sorted (remembered per snapshot)."""

    def build() -> tuple[str, ...]:
        if name == "gpus":
            ids: Iterable[str] = snapshot.gpus
        elif name == "providers":
            ids = snapshot.providers or {o.provider_id for o in snapshot.offers}
        elif name == "models":
            ids = snapshot.models
        else:
            ids = {g.vendor for g in snapshot.gpus.values() if g.vendor}
        return tuple(sorted(set(ids), key=str.lower))

    return snapshot.memo.get(KNOWN_IDS, name, build)


def _quoted(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in ids)


def unknown_message(name: str, unknown: list[str], known: tuple[str, ...]) -> str:
    noun, where = KINDS[name]
    plural = "s" if len(unknown) > 1 else ""
    message = f"unknown {noun} id{plural} {_quoted(unknown)}"
    if len(known) <= LISTED_IN_FULL:
        return f"{message}; known: {', '.join(known)}"
    return f"{message}; {did_you_mean(known, unknown)}{where.format(n=len(known))}"


def did_you_mean(known: tuple[str, ...], unknown: list[str]) -> str:
    """'did you mean A, B, C? ' for the known ids nearest the unknown ones ('' where none is near)."""
    by_lower = {k.lower(): k for k in known}
    nearest: list[str] = []
    for wanted in unknown:
        # an id's family first (`H100` -> H100-SXM, H100-PCIe), then the spellings difflib finds close
        family = [k for k in by_lower if k.startswith(wanted.lower())]
        for close in family + difflib.get_close_matches(wanted.lower(), list(by_lower), n=NEAREST, cutoff=0.6):
            if by_lower[close] not in nearest:
                nearest.append(by_lower[close])
    return f"did you mean {', '.join(nearest[:NEAREST])}? " if nearest else ""


def catalog_id(snapshot: CatalogSnapshot, kind: str, wanted: str) -> str:
    """The catalog's spelling of an id of a kind (a KINDS key), matched without regard to case as the filters match
    (`h100-sxm` -> H100-SXM); `wanted` itself where no id matches, for the caller's unknown-id error."""
    return next((k for k in known_ids(snapshot, kind) if k.lower() == wanted.lower()), wanted)


UNKNOWN_ONE = {"gpus": ("GPU", "/api/v1/gpus", "GPUs"), "models": ("model", "/api/v1/models", "models")}


def unknown_one_message(snapshot: CatalogSnapshot, kind: str, wanted: str) -> str:
    """Why one id of a kind ("gpus" or "models") is not the catalog's, with the nearest ids as the filters' messages
    give them: the rank, estimate, precision and own APIs name a model or GPU the same way."""
    noun, path, plural = UNKNOWN_ONE[kind]
    hint = did_you_mean(known_ids(snapshot, kind), [wanted])
    return f"unknown {noun} {wanted!r}; {hint}GET {path} lists the catalog's {plural}"


def unknown_ids_message(snapshot: CatalogSnapshot, kind: str, given: list[str]) -> str | None:
    """Why ids of a kind (a KINDS key) are not the catalog's, or None when every one is."""
    known = known_ids(snapshot, kind)
    lowered = {k.lower() for k in known}
    unknown = list(dict.fromkeys(g for g in given if g.lower() not in lowered))
    return unknown_message(kind, unknown, known) if unknown else None


def unknown_id_errors(filters: Filters, snapshot: CatalogSnapshot) -> dict[str, str]:
    """{field: message} for each filter field naming ids the catalog lacks (empty: every id is known)."""
    errors: dict[str, str] = {}
    for name in FILTER_FIELDS:
        given: list[str] = getattr(filters, name)
        message = unknown_ids_message(snapshot, name, given) if given else None
        if message:
            errors[name] = message
    return errors


# A question's fields that name catalog ids, by their last name (`model`, `workload.model`, `train_gpus`): one id
# (its message names the nearest, as the service's own check would) or a list of them.
ONE_ID_FIELDS = {"model": "models", "gpu": "gpus"}
PREFIXES = ("train_",)  # /plan's training run: `train_gpus` is the run's `gpus`


def _id_field(field: str) -> tuple[str, bool] | None:
    """(the KINDS key, whether it holds one id) for a field naming catalog ids; None for any other field."""
    name = field.rpartition(".")[2]
    for prefix in PREFIXES:
        name = name.removeprefix(prefix)
    if name in ONE_ID_FIELDS:
        return ONE_ID_FIELDS[name], True
    return (name, False) if name in FILTER_FIELDS else None


def id_field_kind(field: str) -> str | None:
    """The KINDS key of a question field naming catalog ids (`model`, `train_gpus`, `providers`); None for another."""
    found = _id_field(field)
    return found[0] if found else None


def typed_ids(value: object) -> list[str]:
    """The ids a value names as typed (a string, comma-separated on a form, or a list of strings); none where it is
    no id in shape (a number, an object): its shape error, if any, says so."""
    parts = value if isinstance(value, list) else [value]
    if not all(isinstance(p, str) for p in parts):
        return []
    return [i.strip() for p in parts for i in str(p).split(",") if i.strip()]


def _unknown(snapshot: CatalogSnapshot, kind: str, one: bool, ids: list[str]) -> str | None:
    if not one:
        return unknown_ids_message(snapshot, kind, ids)
    known = {k.lower() for k in known_ids(snapshot, kind)}
    return None if ids[0].lower() in known else unknown_one_message(snapshot, kind, ids[0])


def typed_id_errors(typed: Mapping[str, object], snapshot: CatalogSnapshot, skip: Collection[str]) -> dict[str, str]:
    """{field: message} for each catalog id field of a question as typed whose ids the catalog lacks, for a question
    refused on its shape: the unknown ids are named in the same answer, not after the shape is fixed. A field in
    `skip` (its own shape is wrong, so its ids are not read) is not checked."""
    errors: dict[str, str] = {}
    for field, value in typed.items():
        wrong_shape = field in skip or any(s.startswith(f"{field}.") for s in skip)  # gpus.0: an id's own shape
        id_field = None if wrong_shape else _id_field(field)
        ids = typed_ids(value) if id_field else []
        message = _unknown(snapshot, *id_field, ids) if id_field and ids else None
        if message:
            errors[field] = message
    return errors
