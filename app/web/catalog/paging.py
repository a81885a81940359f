"""`?limit=` and `?offset=` of the catalog API's lists, read once per route (a dependency), and the page's headers:
X-Total-Count and a Link to the next page (RFC 8288), so the body stays the list it was and a client that sends
neither parameter sees no change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query, Request, Response

from app.service.catalog.paging import LIMIT_HELP, MAX_OFFSET, MAX_PAGE_LIMIT, OFFSET_HELP, PageQuery, page_of
from app.web.json_api.query_numbers import AS_TYPED

T = TypeVar("T")

# AS_TYPED after Query, as the rankings' ?limit= (app.web.rank.api): the schema keeps its minimum and maximum
LIMIT_WORDS = (
    f"{LIMIT_HELP}, as before paging. The X-Total-Count header says how many rows the filters keep; a Link header "
    'with rel="next" gives the next page\'s URL while rows remain. Empty: unset'
)
LimitQuery = Annotated[int | None, Query(ge=1, le=MAX_PAGE_LIMIT, description=LIMIT_WORDS), AS_TYPED]
OffsetQuery = Annotated[
    int | None, Query(ge=0, le=MAX_OFFSET, description=f"{OFFSET_HELP}. Default 0; empty: 0"), AS_TYPED
]

PAGE_HEADERS: dict[str, Any] = {
    "X-Total-Count": {"description": "rows the filters keep, every page together", "schema": {"type": "integer"}},
    "Link": {
        "description": 'the next page\'s URL, `</api/v1/…?limit=N&offset=M>; rel="next"`, while rows remain after '
        "this page; absent on the last",
        "schema": {"type": "string"},
    },
}
PAGED_RESPONSES: dict[int | str, dict[str, Any]] = {200: {"description": "the page's rows", "headers": PAGE_HEADERS}}


class Pager:
    """The request's page and the response whose headers say where it sits in the list."""

    def __init__(self, request: Request, response: Response, paging: PageQuery) -> None:
        self.request, self.response, self.paging = request, response, paging

    def take(self, rows: Sequence[T]) -> list[T]:
        page = page_of(rows, self.paging)
        self.response.headers["X-Total-Count"] = str(page.total)
        if page.next_offset is not None:
            self.response.headers["Link"] = f'<{self.url(page.next_offset)}>; rel="next"'
        return page.rows

    def url(self, offset: int) -> str:
        """The request's URL at `offset`, its limit as digits: a relative reference, read against the request's."""
        url = self.request.url.include_query_params(limit=self.paging.limit, offset=offset)
        return f"{url.path}?{url.query}"


def pager(request: Request, response: Response, limit: LimitQuery = None, offset: OffsetQuery = None) -> Pager:
    return Pager(request, response, PageQuery(limit=limit, offset=offset or 0))


PagerDep = Annotated[Pager, Depends(pager)]
