"""A display name or a Hugging Face repo typed where a catalog id belongs (`model=Llama 3.1 70B`,
`model=meta-llama/Llama-3.1-70B-Instruct`, `gpu=H100 SXM`): the id's shape check refused it in pydantic's words, a
regular expression ("String should match pattern '^[A-Za-z0-9._\\-]+$'"); it is said instead as what it is, with
the catalog id it most likely means (found by qa38)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping

from app.scoring.specs import CatalogSnapshot
from app.service.catalog_ids import KINDS, UNKNOWN_ONE, did_you_mean, id_field_kind, known_ids, typed_ids

ID_SHAPE = re.compile(r"[A-Za-z0-9._\-]{1,64}")  # app.scoring.workload.field_types.ShortId's pattern and length
NEAREST = 3


def _plain(text: str) -> str:
    """Letters and digits only, lower case: 'Llama 3.1 70B' and 'llama-3.1-70b' both read 'llama3170b'."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _spellings(snapshot: CatalogSnapshot, kind: str) -> dict[str, str]:
    """Each id's plain spelling, and its display name's, -> the id (models and GPUs have names; the rest ids only)."""
    names: dict[str, str] = {}
    specs = snapshot.models if kind == "models" else snapshot.gpus if kind == "gpus" else {}
    for known in known_ids(snapshot, kind):
        names.setdefault(_plain(known), known)
        spec = specs.get(known)
        if spec is not None:
            names.setdefault(_plain(spec.name), known)
    return names


def meant_ids(snapshot: CatalogSnapshot, kind: str, typed: str) -> list[str]:
    """The catalog ids a name most likely means, best first: the one it spells (any case, spaces or punctuation),
    else the longest whose spelling it holds (a repo's '-Instruct' or '-0528', a vendor's 'NVIDIA '), else the
    closest few."""
    wanted = _plain(typed.rpartition("/")[2])  # a repo's organisation is no part of the id
    spellings = _spellings(snapshot, kind)
    if not wanted:
        return []
    if wanted in spellings:
        return [spellings[wanted]]
    held = [s for s in spellings if s in wanted]
    if held:
        return [spellings[max(held, key=len)]]
    close = difflib.get_close_matches(wanted, list(spellings), n=NEAREST * 2, cutoff=0.6)
    return list(dict.fromkeys(spellings[c] for c in close))[:NEAREST]


def not_an_id_message(snapshot: CatalogSnapshot, kind: str, typed: str) -> str:
    """Why a value shaped as no id is refused, and the ids it may mean."""
    meant = meant_ids(snapshot, kind, typed)
    hint = f"did you mean {', '.join(meant)}? " if meant else ""
    noun, where = KINDS[kind][0], KINDS[kind][1].format(n=len(known_ids(snapshot, kind)))
    if kind in UNKNOWN_ONE:
        noun, path, plural = UNKNOWN_ONE[kind]
        where = f"GET {path} lists the catalog's {plural}"
    return f"{typed!r} is not a {noun} id (an id has only letters, digits, '.', '_' and '-'); {hint}{where}"


def typed_name_errors(typed: Mapping[str, object], snapshot: CatalogSnapshot, wrong: Collection[str]) -> dict[str, str]:
    """{field: message} for each catalog id field refused on its shape (in `wrong`) whose value, as typed, is a name
    or a repo rather than an id; the key is the one the shape error sits at (`gpus`, or the API body's `gpus.0`)."""
    errors: dict[str, str] = {}
    for field, value in typed.items():
        kind = id_field_kind(field)
        if kind is None:
            continue
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            key = f"{field}.{index}" if isinstance(value, list) and f"{field}.{index}" in wrong else field
            misshapen = [i for i in typed_ids(item) if not ID_SHAPE.fullmatch(i) and len(i) <= 64]
            if key in wrong and misshapen and key not in errors:
                errors[key] = not_an_id_message(snapshot, kind, misshapen[0])
    return errors


QUERY_ID_KINDS = {"gpu": "gpus", "provider": "providers", "model": "models"}  # a catalog list's one-id filters


def query_name_errors(query: Mapping[str, str], snapshot: CatalogSnapshot, wrong: Collection[str]) -> dict[str, str]:
    """{field: message} for a catalog list's filter refused on its id's shape (`GET /api/v1/offers?gpu=H100 SXM`, or
    `?gpu=-`), said as the rank body's `"gpus": ["H100 SXM"]` is, not as a regular expression (found by qa41); an
    empty one (`?gpu=`) is no filter (app.web.json_api.query_numbers)."""
    errors: dict[str, str] = {}
    for field, kind in QUERY_ID_KINDS.items():
        typed = query.get(field, "").strip()
        if field not in wrong or len(typed) > 64 or ID_SHAPE.fullmatch(typed) or not typed:
            continue
        errors[field] = not_an_id_message(snapshot, kind, typed)
    return errors


def path_id_hint(snapshot: CatalogSnapshot, kind: str, typed: str) -> str:
    """'did you mean …? ' for an id in a path the catalog lacks (/api/v1/gpus/H100, /models/Llama 3.1 70B), as the
    filters' unknown ids are answered; '' where none is near (found by qa41: the 404 named the id alone)."""
    if ID_SHAPE.fullmatch(typed):  # an id mistyped: its family and near spellings, as the filters say
        return did_you_mean(known_ids(snapshot, kind), [typed])
    meant = meant_ids(snapshot, kind, typed)  # a name or repo: the id it spells
    return f"did you mean {', '.join(meant)}? " if meant else ""
