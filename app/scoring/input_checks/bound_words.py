"""A range check's bound in the field's own unit and words: "must be at least 0.001 ms", "must be at most
1,000,000 tokens", not pydantic's unitless "Input should be greater than or equal to 0.001" (found by qa36).

The unit is read from the field's name, as the API names its fields with their unit (ttft_ms, input_len, memory_gb,
usd_per_kwh …); a name with no unit in it gets the bound alone.
"""

from __future__ import annotations

import math
from typing import Any

# pydantic's range error type -> (its ctx key, the words before the bound)
RANGE_WORDS = {
    "greater_than_equal": ("ge", "must be at least"),
    "greater_than": ("gt", "must be more than"),
    "less_than_equal": ("le", "must be at most"),
    "less_than": ("lt", "must be less than"),
}
# A field name's ending -> its unit as written after a number ("{} ms"); the first ending that matches wins, so
# the longer endings come first. "$" units put the dollar sign before the number.
UNIT_BY_ENDING: tuple[tuple[str, str], ...] = (
    ("usd_per_mtok", "${} per million tokens"),
    ("usd_per_kwh", "${} per kWh"),
    ("usd_per_gpu_hour", "${} per GPU-hour"),
    ("usd_per_hour", "${} per hour"),
    ("_usd_per_server", "${} per server"),
    ("kw_per_server", "{} kW per server"),
    ("requests_per_s", "{} requests/s"),
    ("requests_per_day", "{} requests/day"),
    ("tokens_per_s", "{} tokens/s"),
    ("_params_b", "{} billion parameters"),
    ("params_b", "{} billion parameters"),
    ("_tbs", "{} TB/s"),
    ("_gb", "{} GB"),
    ("_bytes", "{} bytes"),
    ("_ms", "{} ms"),
    ("_len", "{} tokens"),
    ("_tokens", "{} tokens"),
    ("max_context", "{} tokens"),
    ("sliding_window", "{} tokens"),
    ("_pct", "{} %"),
    ("_days", "{} days"),
    ("_hours", "{} hours"),
    ("_years", "{} years"),
    ("months", "{} months"),
    ("_s", "{} s"),
    ("budget_usd", "${}"),
    ("_usd", "${}"),
    ("gpu_count", "{} GPUs"),
    ("_gpus", "{} GPUs"),
)


# A count unit's word for exactly one ("at least 1 GPU", not "1 GPUs").
_ONE = {"GPUs": "GPU", "tokens": "token", "days": "day", "hours": "hour", "years": "year", "months": "month"}
_ONE |= {"bytes": "byte", "requests/s": "request/s", "requests/day": "request/day"}


def number_words(value: float) -> str:
    """A bound as a person writes it: 1,000,000 (not 1000000 or 1e+06), 0.001, 0.000001 (never an exponent)."""
    if float(value).is_integer():
        return f"{int(value):,}"
    places = max(0, 12 - math.floor(math.log10(abs(value))))
    return f"{value:,.{places}f}".rstrip("0").rstrip(".")


def with_unit(field: str, value: float) -> str:
    """`value` in `field`'s unit, read from its name: ("ttft_ms", 0.001) -> "0.001 ms"; a unitless name -> "0.001"."""
    number = number_words(value)
    for ending, unit in UNIT_BY_ENDING:
        if field == ending.lstrip("_") or field.endswith(ending):
            text = unit.format(_cents(value) if unit.startswith("$") else number)
            return _one(text) if number == "1" else text
    return number


def bound_message(error: Any) -> str | None:
    """A pydantic range error's message in the field's unit ("must be at least 0.001 ms"); None where the error is
    no range check on a number (pydantic's own words then stand)."""
    words = RANGE_WORDS.get(error.get("type"))
    if words is None:
        return None
    bound = (error.get("ctx") or {}).get(words[0])
    if isinstance(bound, bool) or not isinstance(bound, int | float) or not math.isfinite(bound):
        return None
    loc = [str(part) for part in error.get("loc", ()) if not isinstance(part, int)]
    return f"{words[1]} {with_unit(loc[-1] if loc else '', bound)}"


def _one(text: str) -> str:
    number, _, unit = text.partition(" ")
    return f"{number} {_ONE.get(unit, unit)}" if unit else text


def _cents(value: float) -> str:
    """Dollars as money is written: $0.50 (not $0.5) where the bound is whole cents, else as number_words has it."""
    number = number_words(value)
    return f"{value:,.2f}" if not float(value).is_integer() and round(value, 2) == value else number
