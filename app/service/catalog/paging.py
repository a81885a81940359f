"""A catalog list's page: `limit` rows from `offset` of the filtered, sorted list, with the total it holds and where the
next page starts. Without `limit` the whole list, as before paging, so a client that sends neither sees no change; the
API (/api/v1/gpus, /offers, /models, /providers, /token-prices) and `gpumatch catalog … --limit/--offset` share it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

# as the rankings' ?limit= (app.web.rank.api): a page of more rows than the catalog lists is the whole list
MAX_PAGE_LIMIT = 1000
# SQL INTEGER range, as an offer id's: a larger offset is no page of any list
MAX_OFFSET = 2**31 - 1
LIMIT_HELP = f"list at most this many rows (1 to {MAX_PAGE_LIMIT}); unset: every row"
OFFSET_HELP = "skip this many rows of the filtered, sorted list first; past its end: no rows"

T = TypeVar("T")


class PageQuery(BaseModel):
    limit: int | None = Field(None, ge=1, le=MAX_PAGE_LIMIT, description=LIMIT_HELP)
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description=OFFSET_HELP)


EVERY_ROW = PageQuery()


@dataclass(frozen=True)
class Page(Generic[T]):
    rows: list[T]
    total: int  # rows the list holds, every page together
    next_offset: int | None  # where the next page starts; None on the last


def page_of(rows: Sequence[T], paging: PageQuery) -> Page[T]:
    end = len(rows) if paging.limit is None else paging.offset + paging.limit
    return Page(list(rows[paging.offset : end]), len(rows), end if end < len(rows) else None)
