"""Numbers as people type them: `500,000` and `500_000` are 500000, and `1e30` in a whole-number field is too large
rather than "not a valid integer". The pages, the CLI and the mix text form (`2e3x400:1`) all read them this way."""

from __future__ import annotations

import math
import re
from decimal import Decimal

# Thousands grouped by one separator throughout: 1,000 · 12_345_678 · 1,000.5 (not 1,5 or 1,00: a decimal comma).
GROUPED = re.compile(r"[+-]?\d{1,3}([,_])\d{3}(?:\1\d{3})*(?:\.\d+)?")
EXPONENT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)[eE][+-]?\d+")


def as_typed_number(value: str) -> str:
    """Grouped digits without their separators; a whole number in exponent form as plain digits (so a whole-number
    field can say it is out of range); anything else as given."""
    if GROUPED.fullmatch(value):
        return value.replace(",", "").replace("_", "")
    if EXPONENT.fullmatch(value) and math.isfinite(float(value)):  # finite: at most 309 digits to write out
        exact = Decimal(value)  # 1e30 is 1 and 30 zeros, not float's 1000000000000000019884624838656
        if exact == exact.to_integral_value():
            return str(int(exact))
    return value
