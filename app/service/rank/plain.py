"""Engine results as JSON-ready values: dataclasses, lists and dates turned into plain dicts (faster than
dataclasses.asdict, with lists shared between offers converted once), a ranked option as a row with or without its
explanation, and the mean latencies under the names the APIs give them."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import date
from functools import cache
from typing import Any

from app.scoring.explain import LazyTerms, Term
from app.scoring.pricing.offers import LazyOptions
from app.scoring.training.layouts.memory import Layout

# Dataclasses every offer of one configuration shares, converted once per answer by identity as its lists are: a
# training option's layout_detail (its estimate's Layout)
_SHARED_BY_IDENTITY = frozenset({Layout})


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@cache
def _omitted_when_none(cls: type) -> frozenset[str]:
    """Fields a class leaves out of its JSON while None (its OMITTED_WHEN_NONE): a field added later, so rows
    without it read exactly as they did before it existed (Layout.recompute_layers)."""
    return frozenset(getattr(cls, "OMITTED_WHEN_NONE", ()))


_FLOAT_TYPES = {float, "float", "float | None", "Optional[float]"}


@cache
def _float_field_names(cls: type) -> frozenset[str]:
    """The fields declared float: an int the engine stored there (a batch of 7 as a term's value) is written 7.0, as
    the API's response models write it, so the CLI's --json and every API give one field one JSON type."""
    return frozenset(f.name for f in fields(cls) if f.type in _FLOAT_TYPES)


_SCALARS = (str, int, bool, type(None))


def plain(value: Any, shared: dict[int, Any] | None = None) -> Any:
    """Dataclasses, lists and dates → JSON-ready values (faster than dataclasses.asdict).

    `shared` memoises converted lists (and _SHARED_BY_IDENTITY dataclasses) by identity: every offer of one
    configuration carries the same `terms` list, so a ranking converts each configuration's explanation once, not
    once per offer."""
    kind = type(value)
    if kind is LazyTerms:  # shared by every offer of one configuration, as the list it writes
        value, kind = value.written(), list
    if kind in _SCALARS:
        return value
    if kind is float:
        return round(value, 6)
    if kind is list and shared is not None:
        found = shared.get(id(value))
        if found is None:
            found = shared[id(value)] = [plain(v, shared) for v in value]
        return found
    if isinstance(value, list | tuple | LazyOptions):
        return [plain(v, shared) for v in value]
    if isinstance(value, dict):
        return {k: plain(v, shared) for k, v in value.items()}
    if isinstance(value, date):
        return value.isoformat()
    if kind in _SHARED_BY_IDENTITY and shared is not None:
        found = shared.get(id(value))
        if found is None:
            found = shared[id(value)] = _dataclass_plain(value, shared)
        return found
    if is_dataclass(value) and not isinstance(value, type):
        return _dataclass_plain(value, shared)
    return value


def _dataclass_plain(value: Any, shared: dict[int, Any] | None) -> dict[str, Any]:
    row = _fields_plain(value, _field_specs(value.__class__), shared)
    for name in _omitted_when_none(value.__class__):
        if row[name] is None:
            del row[name]
    return row


@cache
def _field_specs(cls: type) -> tuple[tuple[str, bool], ...]:
    """Each field's name, and whether the class declares it float."""
    floats = _float_field_names(cls)
    return tuple((name, name in floats) for name in _field_names(cls))


def _fields_plain(value: Any, specs: tuple[tuple[str, bool], ...], shared: dict[int, Any] | None) -> dict[str, Any]:
    """plain() of each field in `specs`, an int in a field declared float made a float (_float_field_names). The
    scalars, most of a row's fields and a term's, are converted here: a call of plain() apiece cost about a third of
    converting a results page's rows."""
    row = {}
    for name, declared_float in specs:
        field_value = getattr(value, name)
        kind = type(field_value)
        if kind is float:
            row[name] = round(field_value, 6)
        elif kind is int and declared_float:
            row[name] = float(field_value)
        elif kind in _SCALARS:
            row[name] = field_value
        else:
            converted = plain(field_value, shared)
            row[name] = float(converted) if declared_float and type(converted) is int else converted
    return row


EXPLANATION_FIELDS = ("terms", "assumptions")  # what a lean answer (terms=false) leaves out


def mean_latencies(ttft_ms: float | None, tpot_ms: float | None) -> dict[str, float | None]:
    """The mean latencies as the APIs name them (report_schemas.MeanLatencyOut): explicit means, and the old names
    (ttft_ms, tpot_ms) kept as deprecated aliases of the same values, since a request's ttft_ms limits a p99."""
    return {"ttft_mean_ms": ttft_ms, "tpot_mean_ms": tpot_ms, "ttft_ms": ttft_ms, "tpot_ms": tpot_ms}


def plain_row(option: Any, include_terms: bool, shared: dict[int, Any] | None = None) -> dict[str, Any]:
    """One ranked option as a dict; without terms (and assumptions), they are never converted (the costliest part).
    With them, an option's priced terms (its own price's: InferenceOption.priced_terms) follow its configuration's."""
    row = _fields_plain(option, _row_specs(option.__class__, include_terms), shared)
    priced = getattr(option, "priced_terms", None) if include_terms else None
    if priced is not None:  # a copy: the configuration's list is shared
        row["terms"] = [*row["terms"], *(_term_plain(t) for t in priced(shared))]
    return row


def _term_plain(term: Term) -> dict[str, Any]:
    """plain() of a Term, written out (a row's priced term is converted for every row)."""
    return {"name": term.name, "value": round(term.value, 6), "unit": term.unit, "detail": term.detail}


@cache
def _row_specs(cls: type, include_terms: bool) -> tuple[tuple[str, bool], ...]:
    return tuple(spec for spec in _field_specs(cls) if include_terms or spec[0] not in EXPLANATION_FIELDS)
