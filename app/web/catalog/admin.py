"""Admin API under /api/v1/admin: bulk price updates. Off (404) unless GPUMATCH_ADMIN_TOKEN is set."""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Callable, Coroutine
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.catalog.prices import price_import
from app.catalog.setup.seed import RowError
from app.models.hardware import OfferBase
from app.web.catalog.admin_auth import require_admin
from app.web.errors.error_shape import field_entries
from app.web.json_api.json_body import StrictJsonRoute, media_type

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], route_class=StrictJsonRoute)

ERROR_RESPONSES: dict[int | str, dict[str, str]] = {
    401: {"description": "missing or wrong bearer token"},
    404: {"description": "admin API disabled (no GPUMATCH_ADMIN_TOKEN)"},
}


class OfferImport(OfferBase):
    """One offer, the columns of seed_data/offers.csv."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]


class ImportResult(BaseModel):
    inserted: int = Field(description="rows of offers not in the catalog: added, each with its first price history")
    updated: int = Field(description="offers whose stored fields the rows changed (prices_changed of them in price)")
    unchanged: int = Field(
        description="rows that changed nothing stored: identical to the offer, or differing only in a price older "
        "than the stored one (counted in newer_kept too); inserted + updated + unchanged = the rows sent"
    )
    prices_changed: int = Field(description="updated offers whose price changed: each appended to its history")
    newer_kept: int = Field(
        0,
        description="rows whose price is an older reading than the stored one: the stored price kept (each also "
        "counted in unchanged, or in updated where the row changed other fields)",
    )


OfferBatch = Annotated[list[OfferImport], Body(min_length=1, max_length=price_import.MAX_BATCH_OFFERS)]


@router.post("/offers", response_model=ImportResult, responses=ERROR_RESPONSES)
def import_offers(offers: OfferBatch, request: Request, actor: Annotated[str, Depends(require_admin)]) -> ImportResult:
    """Insert new offers and reprice existing ones (natural key: provider, GPU, count, price type, instance,
    region) in one transaction; every price change is appended to the offer's history."""
    left_out = [set(price_import.KEPT_FIELDS) - offer.model_fields_set for offer in offers]  # kept as stored
    items = [offer.model_dump(exclude=omitted) for offer, omitted in zip(offers, left_out, strict=True)]
    try:
        report = price_import.import_items(request.app.state.engine, items, actor)
    except RowError as error:
        where = f"{error.line}.{error.field}"
        raise HTTPException(status_code=422, detail=field_entries({where: error.message})) from None
    request.app.state.snapshots.invalidate()  # rankings use the new prices on the next request
    return ImportResult(**price_import.summary(report))


MAX_CSV_BYTES = 5_000_000  # MAX_BATCH_OFFERS rows of a wide catalog CSV fit with room to spare
CsvBody = Annotated[
    bytes, Body(media_type="text/csv", description="the CSV file's bytes (UTF-8), sent with Content-Type: text/csv")
]


# A CSV is text; no Content-Type at all is read as the bytes it is. Anything else (JSON, a form, a multipart upload
# from `curl -F`) was parsed as that and failed with a message about JSON or the CSV's header.
CSV_MEDIA_TYPES = ("text/csv", "application/csv", "text/plain")
HOW_TO_SEND_CSV = (
    "send the CSV file's bytes as the request body with Content-Type: text/csv, e.g. curl --data-binary @offers.csv "
    "-H 'Content-Type: text/csv' -H 'Authorization: Bearer …' (not a form or multipart upload: curl -F is not read)"
)


def _reject(field: str, message: str, status: int = 422) -> HTTPException:
    return HTTPException(status_code=status, detail=field_entries({field: message}))


class CsvBodyRoute(StrictJsonRoute):
    """The token first (404/401), then the Content-Type (415 saying how to send a CSV), before FastAPI reads a body
    its Content-Type would have it parse as JSON or a form."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def check_first(request: Request) -> Response:
            require_admin(request)
            media = media_type(request)
            if media and media not in CSV_MEDIA_TYPES:
                raise _reject("content-type", f"expects text/csv, not {media}: {HOW_TO_SEND_CSV}", 415)
            return await handle(request)

        return check_first


csv_router = APIRouter(tags=["admin"], route_class=CsvBodyRoute)
CSV_RESPONSES: dict[int | str, dict[str, str]] = {
    **ERROR_RESPONSES,
    413: {"description": "too big"},
    415: {"description": "not sent as text/csv: the message says how to send it"},
}


@csv_router.post("/offers/csv", response_model=ImportResult, responses=CSV_RESPONSES)
def import_offers_csv(
    body: CsvBody,
    request: Request,
    actor: Annotated[str, Depends(require_admin)],
    format: Annotated[
        Literal["gpumatch", "skypilot", "gpuhunt"] | None, Query(description="default: from the header")
    ] = None,
    provider: Annotated[str | None, Query(min_length=1, max_length=64, description="skypilot/gpuhunt rows")] = None,
    as_of: Annotated[date | None, Query(description="date of skypilot/gpuhunt prices (required for them)")] = None,
    source_url: Annotated[
        str | None, Query(max_length=500, description="where skypilot/gpuhunt prices were read (default: the format's)")
    ] = None,
) -> ImportResult:
    """The CLI's `prices import` over HTTP: an offers.csv, SkyPilot or gpuhunt CSV, all or nothing.
    An upload has no file date, so SkyPilot and gpuhunt files need `as_of` (and `provider`)."""
    if len(body) > MAX_CSV_BYTES:
        raise _reject("body", f"more than {MAX_CSV_BYTES:,} bytes", 413)
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _reject("body", "not UTF-8 text") from None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.csv"
        path.write_text(text, encoding="utf-8")
        try:
            fmt = format or price_import.price_formats.detect_format(price_import.price_formats.read_header(path))
            if fmt != "gpumatch" and as_of is None:
                raise _reject("as_of", f"required for a {fmt} upload (an upload has no file date)")
            if fmt != "gpumatch" and provider is None:
                raise _reject("provider", f"required for a {fmt} upload")
            report, _source = price_import.import_file(
                request.app.state.engine, path, actor, fmt, provider, as_of, source_url
            )
        except RowError as error:  # the file's line as the CLI prints it (`file line N, field F`), not a JSON path
            raise _reject(f"line {error.line}, {error.field}", error.message) from None
        except price_import.BadOption as error:
            raise _reject(error.field, error.message) from None
        except csv.Error as error:  # e.g. a NUL byte: not a CSV at all
            raise _reject("body", f"not a CSV file: {error}") from None
    request.app.state.snapshots.invalidate()
    return ImportResult(**price_import.summary(report))


router.include_router(csv_router)  # after its route is defined: include_router copies the routes it has
