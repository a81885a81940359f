"""The catalog ids a workload's filters name (`gpus`, `providers`, `vendors`) must exist: an unknown one is an
error naming the field and the ids, with the nearest known ones, not a silently empty ranking.

Ids match the catalog without regard to case, as the offer filter (app/scoring/offers.py) applies them. A known
id that has no offer today (a GPU nobody rents) is no error: its ranking is empty, and says so.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import Filters

LISTED_IN_FULL = 12  # a vocabulary this small is listed whole in the message; a larger one gets the nearest ids
NEAREST = 3

# field -> (what one id names, where the whole list is)
KINDS = {
    "gpus": ("GPU", "/gpus and GET /api/v1/gpus list all {n}"),
    "providers": ("provider", "/providers and GET /api/v1/providers list all {n}"),
    "vendors": ("vendor", "GET /api/v1/gpus gives each GPU's vendor ({n})"),
}


def known_ids(snapshot: CatalogSnapshot, name: str) -> tuple[str, ...]:
    """The catalog's ids for a filter field, sorted (remembered per snapshot)."""
    key = ("known_ids", name)
    found = snapshot.memo.get(key)
    if found is None:
        if name == "gpus":
            ids: Iterable[str] = snapshot.gpus
        elif name == "providers":
            ids = snapshot.providers or {o.provider_id for o in snapshot.offers}
        else:
            ids = {g.vendor for g in snapshot.gpus.values() if g.vendor}
        found = snapshot.memo[key] = tuple(sorted(set(ids), key=str.lower))
    return found  # type: ignore[return-value]


def _quoted(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in ids)


def unknown_message(name: str, unknown: list[str], known: tuple[str, ...]) -> str:
    noun, where = KINDS[name]
    plural = "s" if len(unknown) > 1 else ""
    message = f"unknown {noun} id{plural} {_quoted(unknown)}"
    if len(known) <= LISTED_IN_FULL:
        return f"{message}; known: {', '.join(known)}"
    by_lower = {k.lower(): k for k in known}
    nearest: list[str] = []
    for wanted in unknown:
        for close in difflib.get_close_matches(wanted.lower(), list(by_lower), n=NEAREST, cutoff=0.6):
            if by_lower[close] not in nearest:
                nearest.append(by_lower[close])
    hint = f"did you mean {', '.join(nearest[:NEAREST])}? " if nearest else ""
    return f"{message}; {hint}{where.format(n=len(known))}"


def unknown_id_errors(filters: Filters, snapshot: CatalogSnapshot) -> dict[str, str]:
    """{field: message} for each filter field naming ids the catalog lacks (empty: every id is known)."""
    errors: dict[str, str] = {}
    for name in KINDS:
        given: list[str] = getattr(filters, name)
        if not given:
            continue
        known = known_ids(snapshot, name)
        lowered = {k.lower() for k in known}
        unknown = list(dict.fromkeys(g for g in given if g.lower() not in lowered))
        if unknown:
            errors[name] = unknown_message(name, unknown, known)
    return errors
