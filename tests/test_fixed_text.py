"""fixed() reads its text back only where rounding might show a non-zero value as 0: every value it writes reads as
the function that always read it back (kept here as the reference)."""

import math
import random

from app.scoring.explain import fixed


def read_back_always(value: float, decimals: int = 1, thousands: bool = True) -> str:
    value += 0.0
    text = f"{value:{',' if thousands else ''}.{decimals}f}"
    if value == 0 or not math.isfinite(value) or float(text.replace(",", "")) != 0:
        return text
    places = 1 - math.floor(math.log10(abs(value)))
    return f"{value:.{places}f}".rstrip("0")


def test_fixed_writes_every_value_as_the_text_read_back_always() -> None:
    rng = random.Random(15)
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.05, 0.95, 0.995, 0.9999999, 1 - 1e-16, 1e-300, 5e-324, 1e15, 1e300]
    edges += [math.inf, -math.inf, math.nan, 0.049999999, 0.0500000001, 0.00049, 0.0005, 0.00051]
    values = edges + [-v for v in edges] + [10 ** rng.uniform(-12, 12) * rng.choice((1, -1)) for _ in range(20_000)]
    checked = 0
    for value in values:
        for decimals in (0, 1, 2, 3, 4):
            for thousands in (True, False):
                assert fixed(value, decimals, thousands) == read_back_always(value, decimals, thousands), (
                    value,
                    decimals,
                )
                checked += 1
    assert checked > 200_000
