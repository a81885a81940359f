"""A results page's view: which rows of a ranking it shows (`sort`, `show`, `page`), read from its query after the
question and written back into its canonical link."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.scoring.input_checks.messages import error_location, error_message
from app.service.query.phase import Phase
from app.service.rank import rank_sort

ROWS_PER_PAGE = 25  # rows a results page shows by default: the best few to compare at a glance (issue 12)
MAX_ROWS_PER_PAGE = 1000  # the same bound as the rank API's `limit`
VIEW_FIELDS = ("sort", "show", "page")


class ResultsView(BaseModel):
    """Which rows of a ranking a results page shows: the feasible options sorted by `sort` (ranked order when
    None), `show` rows (or `all`) from page `page`. Part of the page's canonical query, so a link reproduces
    the view; the `.json`/`.csv` twins give every option, in the view's sort."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sort: str | None = Field(None, max_length=20, description="a ranked table's column, -column for largest first")
    show: int | Literal["all"] = Field(ROWS_PER_PAGE, description="rows per page, or all")
    page: int = Field(1, ge=1, le=1_000_000, description="1-based page of `show` rows")

    @field_validator("show", mode="before")
    @classmethod
    def _rows_or_all(cls, value: Any) -> int | str:
        if isinstance(value, str) and value.strip().lower() == "all":
            return "all"
        try:
            rows = int(value)
        except (TypeError, ValueError):
            rows = 0
        if not 1 <= rows <= MAX_ROWS_PER_PAGE or str(value).strip() not in (str(rows), f"{rows}.0"):
            raise ValueError(f"must be a whole number of rows from 1 to {MAX_ROWS_PER_PAGE}, or all")
        return rows

    @field_validator("sort")
    @classmethod
    def _a_column(cls, value: str | None) -> str | None:
        if value is None or value == rank_sort.RANK:
            return None  # ranked order is the default: `sort=rank` is another spelling of no sort
        return rank_sort.check(value)

    @model_validator(mode="before")
    @classmethod
    def _one_page_when_all(cls, data: Any) -> Any:
        # every row is on page 1: `show=all&page=3` is another spelling of `show=all`, not an error
        if isinstance(data, dict) and str(data.get("show", "")).strip().lower() == "all":
            return {k: v for k, v in data.items() if k != "page"}
        return data

    @property
    def rows(self) -> int | None:
        """Rows per page; None = every row."""
        return None if self.show == "all" else int(self.show)

    @property
    def start(self) -> int:
        """Position (0-based) of the first row on this page."""
        return 0 if self.rows is None else (self.page - 1) * self.rows


def parse_view(values: dict[str, Any], errors: dict[str, str], phase: Phase) -> ResultsView:
    """`sort`, `show` and `page` taken out of `values`; a bad one (or a column the phase's table lacks) is an
    error naming it, and the default view."""
    given = {key: values.pop(key) for key in VIEW_FIELDS if key in values}
    sort = given.get("sort")
    if isinstance(sort, str) and sort != rank_sort.RANK and (wrong_column := rank_sort.sort_error(phase, sort)):
        errors["sort"] = wrong_column  # checked against this phase's columns before the phase-blind validator
        return ResultsView()
    try:
        return ResultsView.model_validate(given)
    except ValidationError as exc:
        for error in exc.errors():
            name = next(iter(error_location(error)), "page")
            errors.setdefault(name, error_message(error))
        return ResultsView()


def view_pairs(view: ResultsView) -> list[tuple[str, str]]:
    """The view's non-default fields, in canonical order."""
    defaults = ResultsView()
    return [(name, str(getattr(view, name))) for name in VIEW_FIELDS if getattr(view, name) != getattr(defaults, name)]


def with_view(query: str, view: ResultsView) -> str:
    """A query string (the question, or empty) followed by the view's non-default pairs."""
    pairs = urlencode(view_pairs(view))
    return f"{query}&{pairs}" if query and pairs else query or pairs
