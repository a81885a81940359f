"""A parsed question's catalog ids in the catalog's own spelling: `model=Llama-3.1-70B&gpus=h100-sxm` asks what
`model=llama-3.1-70b&gpus=H100-SXM` asks, so both have the latter's one link (catalog pages redirect the same way:
/gpus/h100-sxm -> /gpus/H100-SXM). An id the catalog lacks stays as typed, for its unknown-id error."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import quote_plus, unquote_plus

from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.catalog_ids import FILTER_FIELDS, catalog_id, id_field_kind
from app.service.query.canonical import canonical_query
from app.service.query.question import ParsedQuery
from app.service.query.view import with_view

Workload = InferenceWorkload | TrainingWorkload


def catalog_spelled(workload: Workload, snapshot: CatalogSnapshot) -> Workload:
    """The workload with its model and filter ids (gpus, providers, vendors) as the catalog spells them; the same
    object where each already is."""
    update: dict[str, Any] = {}
    if workload.model and workload.model not in snapshot.models:
        spelled = catalog_id(snapshot, "models", workload.model)
        if spelled != workload.model:
            update["model"] = spelled
    for name in FILTER_FIELDS:
        given: list[str] = getattr(workload, name)
        spelled_ids = [catalog_id(snapshot, name, i) for i in given]
        if spelled_ids != given:
            update[name] = spelled_ids
    if not update:
        return workload
    # model_copy keeps the fields the question set (weight_dtype given at its default stays in the link)
    return workload.model_copy(update=update)


def in_catalog_spelling(parsed: ParsedQuery, snapshot: CatalogSnapshot) -> ParsedQuery:
    """The parsed question with its ids in the catalog's spelling and its links (question, canonical) written from
    them; the same object where nothing is respelled or the question has errors."""
    if parsed.errors or parsed.workload is None:
        return parsed
    workload = catalog_spelled(parsed.workload, snapshot)
    if workload is parsed.workload:
        return parsed
    question = canonical_query(parsed.phase, workload)
    return replace(parsed, workload=workload, question=question, canonical=with_view(question, parsed.view))


def respelled_query(query: str, snapshot: CatalogSnapshot) -> str:
    """A canonical query string with the catalog ids its fields name (model, gpu, gpus, providers, vendors, and
    /plan's train_ ones) in the catalog's spelling, every other pair left as written: the pages other than / and
    /compare, whose questions are not one workload, redirect to it. `query` itself where no id is respelled."""
    return "&".join(_respelled(pair, snapshot) for pair in query.split("&")) if query else query


def _respelled(pair: str, snapshot: CatalogSnapshot) -> str:
    key, sep, value = pair.partition("=")
    kind = id_field_kind(unquote_plus(key))
    if kind is None or not sep:
        return pair
    ids = [catalog_id(snapshot, kind, part) for part in unquote_plus(value).split(",")]
    return f"{key}={quote_plus(','.join(ids), safe=',')}"


def typed_in_another_spelling(items: list[tuple[str, str]], snapshot: CatalogSnapshot) -> bool:
    """Whether a question's pairs, as typed, name a catalog id in another spelling (`gpu=h100-sxm`): its JSON twin
    moves to the catalog's, even where the parser respelled it already (/own's gpu)."""
    for key, value in items:
        kind = id_field_kind(key)
        if kind and any(catalog_id(snapshot, kind, i) != i for i in value.split(",")):
            return True
    return False
