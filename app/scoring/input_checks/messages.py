"""Pydantic's errors as a person reads them, at the field they are about.

The message drops pydantic's "Value error, " prefix, a range check says its bound in the field's unit
("must be at least 0.001 ms", bound_words), and a number that is not finite (NaN, ±inf, 1e400) says
so instead of quoting a range it was never in. A check across fields at the model itself (a model validator:
its error has no location) names its field first, `requests_per_s: required for ...`; `error_location` puts
the error there and `error_message` leaves the name out.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

from app.scoring.input_checks.bound_words import bound_message
from app.scoring.input_checks.type_words import shape_message, type_message

NOT_FINITE = "must be a finite number"
# The range checks that NaN and infinity fail, quoting a bound the input is not "beyond".
_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal", "finite_number"})


class FieldError(ValueError):
    """An input that only the catalog (or the engine) can reject, naming the request field it came from.
    `errors` holds every such field found at once (`field` and the message first)."""

    def __init__(self, field: str, message: str, others: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.errors = {field: message, **(others or {})}


def _not_finite(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def _named_field(error: Any) -> tuple[str, str] | None:
    """(field, rest of the message) for a model-level error whose message starts `field: `: the body's own model
    (no location) or one nested in it (/disagg's `workload`, whose input is that model's object), not a field's own
    check that names itself (`hf_config: ...` at hf_config)."""
    loc = tuple(error.get("loc", ()))
    if loc and not isinstance(error.get("input"), dict):
        return None
    name, sep, rest = str(error.get("msg", "")).removeprefix("Value error, ").partition(": ")
    named = sep and name.isidentifier() and rest and (not loc or name != str(loc[-1]))
    return (name, rest) if named else None


def error_message(error: Any) -> str:
    """The text of one pydantic error (a dict from ValidationError.errors())."""
    if error.get("type") in _RANGE_ERRORS and _not_finite(error.get("input")):
        return NOT_FINITE
    named = _named_field(error)
    if named is not None:
        return named[1]
    bounded = bound_message(error) or type_message(error) or shape_message(error)
    if bounded is not None:
        return bounded
    return str(error["msg"]).removeprefix("Value error, ") + _choice_hint(error)


def _plain_choice(text: str) -> str:
    return re.sub(r"[\s-]", "_", text.strip().lower())


def _choice_hint(error: Any) -> str:
    """'; did you mean full_ft?' after a choice typed near one of the field's (method=full, price_types=on-demand,
    engine=vLLM); '' for a value near none (found by qa38: pydantic lists the choices but leaves the reader to
    spot the one they meant)."""
    typed = error.get("input")
    if error.get("type") not in ("literal_error", "enum") or not isinstance(typed, str) or not typed.strip():
        return ""
    choices = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
    by_plain = {_plain_choice(c): c for c in choices}
    wanted = _plain_choice(typed)
    close = [by_plain[wanted]] if wanted in by_plain else difflib.get_close_matches(wanted, list(by_plain), n=1)
    meant = [by_plain.get(c, c) for c in close]
    return f"; did you mean {meant[0]}?" if meant and meant[0] != typed else ""


def error_location(error: Any) -> tuple[str, ...]:
    """Where one pydantic error belongs: its location, or the field a model-level check names (empty when it
    names none)."""
    loc = tuple(str(part) for part in error.get("loc", ()))
    named = _named_field(error)
    return loc if named is None else (*loc, named[0])
