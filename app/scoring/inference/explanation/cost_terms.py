"""The term behind an inference row's ranked cost: $ per million output tokens = GPUs billed × $/GPU-hour / (output
tokens/s × 3,600 s/h) × 10^6. A row's own price makes it, so it is written per row when its terms are read
(service.rank.plain), never while ranking: the configuration's terms are shared by all its offers."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from app.scoring.explain import Term, figure, significant


def usd_per_million_term(
    gpu_count: int,
    usd_per_gpu_hour: float,
    tokens_per_s: float | None,
    usd_per_million: float | None,
    memo: dict[Any, Any] | None = None,
    configuration: Hashable = None,
) -> list[Term]:
    """The row's $ per million output tokens as a term ([] where it serves none or is free). The GPUs billed per copy
    follow from the cost the ranking priced (ConfigurationPricing.output_factor, one per configuration): the layout's
    GPUs, or more where a fixed load bills whole rented instances its copies share, or a short job's floor. With a
    `memo` (a ranking's answer), the words of each `configuration` and each price are written once."""
    if not tokens_per_s or usd_per_million is None or usd_per_gpu_hour <= 0:
        return []
    memo = {} if memo is None else memo
    words = memo.get(("usd/Mtok words", configuration)) if configuration is not None else None
    if words is None:
        words = _configuration_words(gpu_count, usd_per_million * tokens_per_s * 3600 / 1e6 / usd_per_gpu_hour)
        words = (words[0], f" USD/GPU-h / ({figure(tokens_per_s)} tokens/s × 3,600 s/h) × 10^6; {words[1]}")
        if configuration is not None:
            memo[("usd/Mtok words", configuration)] = words
    price = memo.get(("usd", usd_per_gpu_hour))
    if price is None:
        price = memo[("usd", usd_per_gpu_hour)] = significant(usd_per_gpu_hour)
    return [Term("$ per million output tokens", usd_per_million, "$/Mtok", f"{words[0]}{price}{words[1]}")]


def _configuration_words(gpu_count: int, billed: float) -> tuple[str, str]:
    if abs(billed - gpu_count) <= 1e-6 * gpu_count:
        return f"{gpu_count:,} GPU{'s' if gpu_count != 1 else ''} × ", "GPUs billed per copy: the layout's GPUs"
    share = f"the layout's {gpu_count}, with its share of the whole rented instances (and a job's floor) billed"
    return f"{figure(billed)} GPUs × ", f"GPUs billed per copy: {share}"
