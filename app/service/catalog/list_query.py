"""One catalog list's sort and filters, read from its query string by one pydantic model: the page, its `.json` twin
and the API route share it, and the page's canonical URL is written back from it (app.service.catalog.list_filters holds
each list's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ValidationError, field_validator
from pydantic_core import PydanticUseDefault

from app.scoring.input_checks.messages import error_location, error_message
from app.service.query.fields import unknown_key_errors
from app.service.query.values import format_value, query_shape_errors


class ListQuery(BaseModel):
    """A list's filters (None: any) and its `sort`; subclasses declare them, sort last."""

    # sort key -> the order its column header shows (aria-sort): "ascending" or "descending"
    SORT_ORDERS: ClassVar[dict[str, str]] = {}

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if value == "":  # an untouched form field submits "": the field left out (no filter, the default sort)
            raise PydanticUseDefault
        return value

    def _parts(self, with_sort: bool) -> list[str]:
        parts = []
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None or value == info.default or (name == "sort" and not with_sort):
                continue
            text = format_value(value) if isinstance(value, float) else str(value)
            parts.append(f"{name}={quote(text)}")
        return parts

    def base_query(self) -> str:
        """The filters without the sort: what a sortable column header's link keeps."""
        return "&".join(self._parts(with_sort=False))

    def canonical(self) -> str:
        return "&".join(self._parts(with_sort=True))


Q = TypeVar("Q", bound=ListQuery)


@dataclass
class ListRequest(Generic[Q]):
    """The list's query as parsed (None where any part is wrong), what was typed (to refill the form), each error."""

    query: Q | None
    typed: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)


def parse_list_query(items: list[tuple[str, str]], model: type[Q], where: str) -> ListRequest[Q]:
    """The query with an error per field: a key given twice or not taken, a value its filter refuses."""
    typed = dict(items)
    errors = query_shape_errors(items)
    errors.update(unknown_key_errors(typed, model.model_fields, where))
    query: Q | None = None
    try:
        query = model.model_validate({k: v for k, v in typed.items() if k in model.model_fields})
    except ValidationError as exc:
        for error in exc.errors():
            errors.setdefault(next(iter(error_location(error)), "query"), error_message(error))
    return ListRequest(None if errors else query, typed, errors)


def form_values(request: ListRequest[Any]) -> dict[str, Any]:
    """What the filter form shows: the values as typed where any was wrong, else the parsed ones."""
    if request.errors or request.query is None:
        return request.typed
    return request.query.model_dump(exclude_none=True)


def sort_links(path: str, query: ListQuery) -> dict[str, str]:
    """Each sort key's canonical URL, the filters kept: a sortable column header's link."""
    links = {}
    for key in query.SORT_ORDERS:
        canonical = query.model_copy(update={"sort": key}).canonical()
        links[key] = f"{path}?{canonical}" if canonical else path
    return links
