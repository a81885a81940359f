"""A body refused for a quoted number or a non-boolean still names its other wrong fields: `{"budget_usd": "lots",
"method": "pretrian", "max_day": 3}` answered budget_usd alone, and method and max_day only once that was fixed
(found by qa32's buyer walk). The body model validates the body with the refused values left out; its errors join
the type checks' (the error handler then adds the unknown catalog ids, as for any refused body)."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel, ValidationError

from app.scoring.input_checks import strict_json


def other_errors(model: Any, body: Any, refused: list[strict_json.Path]) -> list[dict[str, Any]]:
    """Pydantic's errors for `body` without the values at the `refused` paths, located under "body" as FastAPI
    locates a body's errors; none where the body is no object of a body model."""
    if not (isinstance(model, type) and issubclass(model, BaseModel) and isinstance(body, dict)):
        return []
    try:
        model.model_validate(_without(body, refused))
    except ValidationError as exc:
        said = set(refused)
        return [{**e, "loc": ("body", *e["loc"])} for e in exc.errors() if tuple(e["loc"]) not in said]
    except Exception:  # a validator that trips on the pruned body: the type checks' errors still answer, not a 500
        return []
    return []


def _without(body: dict[str, Any], paths: list[strict_json.Path]) -> dict[str, Any]:
    """A copy of `body` without the object keys at `paths` (a list's item stays: removing it would shift the rest)."""
    pruned = copy.deepcopy(body)
    for path in paths:
        parent: Any = pruned
        for step in path[:-1]:
            parent = parent[step]
        if path and isinstance(parent, dict):
            parent.pop(path[-1], None)
    return pruned
