"""`gpumatch catalog gpus|offers|models|providers`: the catalog's lists as their pages show them. Each flag is a field
of the list's query model (app.service.catalog.list_filters), read by the same parse and catalog checks as the page, its
`.json` twin and the API, so a script asks for what a page shows, in the same order, and a bad value is refused with
the page's words, named by its flag."""

from __future__ import annotations

import argparse
import json
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session

from app.cli.common import catalog_session, help_text, print_field_error
from app.cli.tables.writer import table
from app.scoring.specs import CatalogSnapshot
from app.service.catalog.list_filters import GpuListQuery, GpuOffersQuery, ModelListQuery, ProviderListQuery
from app.service.catalog.list_query import ListQuery
from app.service.catalog.paging import Page, PageQuery, page_of


@dataclass(frozen=True)
class CatalogList:
    """One list: its query model, the page it mirrors, and its rows (a JSON-ready payload) and text table."""

    query: type[ListQuery]
    page: str
    rows: Callable[[Session, Any, argparse.Namespace], Any]  # (session, query, args) -> the page's JSON payload
    text: Callable[[Any, Any], str]  # (rows, query) -> the table under a line counting them
    paged: bool = True  # --limit/--offset, as the API's list of the same rows takes them


def _stale_after_days() -> int:
    from app.config import get_settings

    return get_settings().stale_after_days


def choices_of(annotation: Any) -> list[str]:
    """The words a Literal field (or an optional one) takes, for its flag's --help."""
    if typing.get_origin(annotation) is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    return [c for arg in typing.get_args(annotation) for c in choices_of(arg)]


def add_query_flags(parser: argparse.ArgumentParser, model: type[BaseModel]) -> None:
    """`--flag-name` per field of the list's query, read as text, as the page reads its query string."""
    for name, info in model.model_fields.items():
        choices = choices_of(info.annotation)
        metavar = "{" + ",".join(choices) + "}" if choices else None
        default = f" (default {info.default})" if info.default is not None else ""
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, metavar=metavar, help=help_text(f"{info.description}{default}")
        )


def cmd_catalog_list(args: argparse.Namespace) -> int:
    from app.service.catalog.list_checks import read_list_query

    listed: CatalogList = args.catalog_list
    items = [(name, value) for name in listed.query.model_fields if (value := getattr(args, name)) is not None]
    with catalog_session() as (session, snapshot):
        parsed = read_list_query(items, listed.query, snapshot, f"gpumatch catalog {args.list_name}")
        paging, paging_errors = _paging(args) if listed.paged else (None, {})
        errors = {**_gpu_errors(args, snapshot), **parsed.errors, **paging_errors}
        if errors or parsed.query is None:
            for field, message in errors.items():
                if field in listed.query.model_fields or field in PageQuery.model_fields:
                    print_field_error(field, message)
                else:
                    print(message, file=sys.stderr)
            return 2
        rows = listed.rows(session, parsed.query, args)
    page = page_of(rows, paging) if paging else None
    rows = page.rows if page else rows
    if args.json:
        print(json.dumps(_jsonable(rows), indent=2))
    else:
        print(listed.text(rows, parsed.query) + (_page_words(page, paging) if page and paging else ""))
    return 0


def _paging(args: argparse.Namespace) -> tuple[PageQuery | None, dict[str, str]]:
    """--limit and --offset read as the API reads ?limit= and ?offset= (1e1 is 10), refused in its words."""
    from pydantic import ValidationError

    from app.scoring.input_checks.messages import error_location, error_message
    from app.service.query.form_numbers import as_typed_number

    given = {k: as_typed_number(v.strip()) for k in ("limit", "offset") if (v := getattr(args, k)) is not None}
    try:
        return PageQuery.model_validate(given), {}
    except ValidationError as exc:
        return None, {next(iter(error_location(e)), "limit"): error_message(e) for e in exc.errors()}


def _page_words(page: Page[Any], paging: PageQuery) -> str:
    """Where the rows sit in the list, once a page is asked for: "rows 11-20 of 37; --offset 20 for the next"."""
    if paging.limit is None and paging.offset == 0:
        return ""
    first, last = paging.offset + 1, paging.offset + len(page.rows)
    where = f"rows {first}-{last} of {page.total}" if page.rows else f"no rows past {page.total}"
    return f"\n{where}" + (f"; --offset {page.next_offset} for the next" if page.next_offset is not None else "")


def _jsonable(rows: Any) -> Any:
    return [r.model_dump(mode="json") for r in rows] if isinstance(rows, list) else rows.model_dump(mode="json")


def _gpu_errors(args: argparse.Namespace, snapshot: CatalogSnapshot) -> dict[str, str]:
    """An unknown GPU of `catalog offers`, said beside its flags' errors."""
    from app.service.catalog_ids import catalog_id, unknown_one_message

    gpu = getattr(args, "gpu", None)
    if gpu is None or catalog_id(snapshot, "gpus", gpu) in snapshot.gpus:
        return {}
    return {"gpu": f"gpumatch catalog offers: {unknown_one_message(snapshot, 'gpus', gpu)}"}


def _price(value: float | None) -> str | None:
    from app.scoring.explain import usd_price

    return None if value is None else usd_price(value)


def _gpus(session: Session, query: Any, args: argparse.Namespace) -> Any:
    from app.service.catalog import views

    return views.gpu_list(session, query, _stale_after_days())


def _gpus_text(rows: Any, query: Any) -> str:
    headers = ["GPU", "vendor", "memory GB", "TB/s", "BF16 TFLOPS", "FP8 TFLOPS", "on demand $/GPU-h"]
    cells = [
        [
            g.id,
            g.vendor,
            g.memory_gb,
            g.memory_bandwidth_tbs,
            g.bf16_tflops,
            g.fp8_tflops,
            _price(g.on_demand_usd_per_gpu_hour),
        ]
        for g in rows
    ]
    return f"{len(rows)} GPU{'s' if len(rows) != 1 else ''}\n{table(headers, cells)}"


def _offers(session: Session, query: Any, args: argparse.Namespace) -> Any:
    from app.catalog import queries
    from app.service.catalog import views

    gpu = queries.get_gpu(session, args.gpu)
    assert gpu is not None  # _gpu_errors refused an unknown one
    return views.gpu_detail(session, gpu, _stale_after_days(), query)


def _offers_text(detail: Any, query: Any) -> str:
    headers = ["provider", "price type", "GPUs", "instance", "region", "$/GPU-h", "as of"]
    cells = [
        [
            o.provider_name,
            o.price_type.replace("_", " "),
            o.gpu_count,
            o.instance_type,
            o.region,
            _price(o.usd_per_gpu_hour),
            f"{o.as_of or 'undated'}{' STALE' if o.stale else ''}",
        ]
        for o in detail.offers
    ]
    provider_name = detail.offers[0].provider_name if query.provider and detail.offers else ""
    count, kept = len(detail.offers), query.filter_words(provider_name)
    said = f" the filters keep ({kept})" if kept else ""
    return f"{detail.name} ({detail.id}): {count} offer{'s' if count != 1 else ''}{said}\n{table(headers, cells)}"


def _models(session: Session, query: Any, args: argparse.Namespace) -> Any:
    from app.service.catalog import views

    return views.model_list(session, query)


def _models_text(rows: Any, query: Any) -> str:
    headers = ["model", "family", "kind", "params B", "active B", "context"]
    cells = [
        [m.id, m.family, "MoE" if m.num_experts else "dense", m.params_b, m.active_params_b, m.max_context]
        for m in rows
    ]
    return f"{len(rows)} model{'s' if len(rows) != 1 else ''}\n{table(headers, cells)}"


def _providers(session: Session, query: Any, args: argparse.Namespace) -> Any:
    from app.service.catalog.provider_views import provider_list

    return provider_list(session, _stale_after_days(), query)


def _providers_text(rows: Any, query: Any) -> str:
    headers = ["provider", "name", "kind", "GPU offers", "per-token prices", "H100 on demand $/GPU-h"]
    cells = [[p.id, p.name, p.kind, p.offer_count, p.token_price_count, _price(p.h100_usd_per_gpu_hour)] for p in rows]
    return f"{len(rows)} provider{'s' if len(rows) != 1 else ''}\n{table(headers, cells)}"


LISTS = {
    "gpus": CatalogList(GpuListQuery, "/gpus", _gpus, _gpus_text),
    "offers": CatalogList(GpuOffersQuery, "/gpus/{gpu}", _offers, _offers_text, paged=False),  # one GPU's, not a list
    "models": CatalogList(ModelListQuery, "/models", _models, _models_text),
    "providers": CatalogList(ProviderListQuery, "/providers", _providers, _providers_text),
}
HELPS = {
    "gpus": "the GPUs, filtered and sorted as /gpus lists them",
    "offers": "one GPU's offers, filtered and sorted as its page's table lists them",
    "models": "the models, filtered and sorted as /models lists them",
    "providers": "the providers, filtered and sorted as /providers lists them",
}


def add_catalog_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    catalog = sub.add_parser("catalog", help="list GPUs, a GPU's offers, models or providers, as the catalog pages do")
    lists = catalog.add_subparsers(dest="list_name", required=True)
    for name, listed in LISTS.items():
        parser = lists.add_parser(name, help=HELPS[name])
        if name == "offers":
            parser.add_argument("gpu", help="the GPU's catalog id (`gpumatch catalog gpus` lists them), any case")
        add_query_flags(parser, listed.query)
        if listed.paged:
            add_query_flags(parser, PageQuery)
        page = listed.page.replace("{gpu}", "GPU")
        parser.add_argument("--json", action="store_true", help=f"print {page}.json's JSON: what the page lists")
        parser.set_defaults(func=cmd_catalog_list, catalog_list=listed)
