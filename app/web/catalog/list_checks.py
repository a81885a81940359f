"""A list filter naming what the catalog lacks (`?family=lama`, `?provider=amazon`) is an error naming the field and
what it knows, not an empty list that reads as "none"; a known one is written in the catalog's spelling."""

from __future__ import annotations

from app.catalog.model_families import family_of
from app.scoring.specs import CatalogSnapshot
from app.service.catalog_ids import catalog_id, unknown_ids_message
from app.web.catalog.list_filters import GpuOffersQuery, ModelListQuery
from app.web.catalog.list_query import ListRequest


def families(snapshot: CatalogSnapshot) -> list[str]:
    return sorted({family_of(model_id) for model_id in snapshot.models}, key=str.casefold)


def family_errors(snapshot: CatalogSnapshot, family: str | None) -> dict[str, str]:
    known = families(snapshot)
    if family is None or family.lower() in {f.lower() for f in known}:
        return {}
    return {"family": f"unknown model family {family[:40]!r}; known: {', '.join(known)}"}


def provider_errors(snapshot: CatalogSnapshot, provider: str | None) -> dict[str, str]:
    message = unknown_ids_message(snapshot, "providers", [provider]) if provider else None
    return {"provider": message} if message else {}


def check_models(parsed: ListRequest[ModelListQuery], snapshot: CatalogSnapshot) -> ListRequest[ModelListQuery]:
    typed = parsed.typed.get("family") or None
    if "family" not in parsed.errors:
        parsed.errors.update(family_errors(snapshot, typed))
    if parsed.errors:
        return ListRequest(None, parsed.typed, parsed.errors)
    query = parsed.query
    if query is not None and query.family:  # ?family=qwen lists Qwen: its canonical URL and the form say Qwen
        spelled = next(f for f in families(snapshot) if f.lower() == query.family.lower())
        parsed.query = query.model_copy(update={"family": spelled})
    return parsed


def check_offers(parsed: ListRequest[GpuOffersQuery], snapshot: CatalogSnapshot) -> ListRequest[GpuOffersQuery]:
    typed = parsed.typed.get("provider") or None
    if "provider" not in parsed.errors:
        parsed.errors.update(provider_errors(snapshot, typed))
    if parsed.errors:
        return ListRequest(None, parsed.typed, parsed.errors)
    query = parsed.query
    if query is not None and query.provider:
        parsed.query = query.model_copy(update={"provider": catalog_id(snapshot, "providers", query.provider)})
    return parsed
