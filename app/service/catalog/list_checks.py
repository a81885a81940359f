"""A list filter naming what the catalog lacks (`?family=lama`, `?provider=amazon`, `?vendor=nvida`) is an error naming
the field and what it knows, not an empty list that reads as "none"; a known one is written in the catalog's spelling
(`?vendor=amd` filters, and its canonical URL says, AMD)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from app.catalog.model_families import family_of
from app.scoring.specs import CatalogSnapshot
from app.service.catalog.list_filters import GpuListQuery, GpuOffersQuery, ModelListQuery
from app.service.catalog.list_query import ListQuery, ListRequest, parse_list_query
from app.service.catalog_ids import catalog_id, unknown_ids_message

L = TypeVar("L", bound=ListQuery)


def families(snapshot: CatalogSnapshot) -> list[str]:
    return sorted({family_of(model_id) for model_id in snapshot.models}, key=str.casefold)


def family_errors(snapshot: CatalogSnapshot, family: str | None) -> dict[str, str]:
    known = families(snapshot)
    if family is None or family.lower() in {f.lower() for f in known}:
        return {}
    return {"family": f"unknown model family {family[:40]!r}; known: {', '.join(known)}"}


def provider_errors(snapshot: CatalogSnapshot, provider: str | None) -> dict[str, str]:
    return id_errors(snapshot, "provider", "providers", provider)


def id_errors(snapshot: CatalogSnapshot, field: str, kind: str, given: str | None) -> dict[str, str]:
    message = unknown_ids_message(snapshot, kind, [given]) if given else None
    return {field: message} if message else {}


def _checked(
    parsed: ListRequest[L], field: str, errors: Callable[[str | None], dict[str, str]], spelled: Callable[[str], str]
) -> ListRequest[L]:
    """`parsed` with `field` as typed checked against the catalog (unless its shape was already refused), and where
    all is well the query's value in the catalog's spelling."""
    if field not in parsed.errors:
        parsed.errors.update(errors(parsed.typed.get(field) or None))
    if parsed.errors:
        return ListRequest(None, parsed.typed, parsed.errors)
    value = getattr(parsed.query, field, None)
    if parsed.query is not None and value:
        parsed.query = parsed.query.model_copy(update={field: spelled(value)})
    return parsed


def check_models(parsed: ListRequest[ModelListQuery], snapshot: CatalogSnapshot) -> ListRequest[ModelListQuery]:
    def spelled(family: str) -> str:
        return next(f for f in families(snapshot) if f.lower() == family.lower())

    return _checked(parsed, "family", lambda typed: family_errors(snapshot, typed), spelled)


def check_offers(parsed: ListRequest[GpuOffersQuery], snapshot: CatalogSnapshot) -> ListRequest[GpuOffersQuery]:
    return _id_checked(parsed, snapshot, "provider", "providers")


def check_gpus(parsed: ListRequest[GpuListQuery], snapshot: CatalogSnapshot) -> ListRequest[GpuListQuery]:
    return _id_checked(parsed, snapshot, "vendor", "vendors")


def _id_checked(parsed: ListRequest[L], snapshot: CatalogSnapshot, field: str, kind: str) -> ListRequest[L]:
    return _checked(
        parsed,
        field,
        lambda typed: id_errors(snapshot, field, kind, typed),
        lambda value: catalog_id(snapshot, kind, value),
    )


CHECKS: dict[type[ListQuery], Callable[[Any, CatalogSnapshot], Any]] = {
    GpuListQuery: check_gpus,
    GpuOffersQuery: check_offers,
    ModelListQuery: check_models,
}  # /providers' filters are fixed words, refused on their shape


def read_list_query(
    items: list[tuple[str, str]], model: type[L], snapshot: CatalogSnapshot, where: str
) -> ListRequest[L]:
    """A list's query as its page, its `.json` twin and `gpumatch catalog` read it: its shape (parse_list_query),
    then the catalog ids and families it names."""
    parsed = parse_list_query(items, model, where)
    check = CHECKS.get(model)
    return check(parsed, snapshot) if check else parsed  # type: ignore[no-any-return]
