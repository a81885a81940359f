"""The term behind an inference row's ranked cost: $ per million output tokens = GPUs billed × $/GPU-hour / (output
tokens/s × 3,600 s/h) × 10^6. A row's own price makes it, so it is written per row when its terms are read
(service.rank.plain), never while ranking: the configuration's terms are shared by all its offers."""

from __future__ import annotations

from app.scoring.explain import Term, figure, significant


def usd_per_million_term(
    gpu_count: int, usd_per_gpu_hour: float, tokens_per_s: float | None, usd_per_million: float | None
) -> list[Term]:
    """The row's $ per million output tokens as a term ([] where it serves none or is free). The GPUs billed per copy
    follow from the cost the ranking priced (ConfigurationPricing.output_factor): the layout's GPUs, or more where a
    fixed load bills whole rented instances its copies share, or a short job's floor."""
    if not tokens_per_s or usd_per_million is None or usd_per_gpu_hour <= 0:
        return []
    billed = usd_per_million * tokens_per_s * 3600 / 1e6 / usd_per_gpu_hour
    share = (
        "the layout's GPUs"
        if abs(billed - gpu_count) <= 1e-6 * gpu_count
        else f"the layout's {gpu_count}, with its share of the whole rented instances (and a job's floor) billed"
    )
    detail = (
        f"{figure(billed)} GPUs × {significant(usd_per_gpu_hour)} USD/GPU-h / ({figure(tokens_per_s)} tokens/s × "
        f"3,600 s/h) × 10^6; GPUs billed per copy: {share}"
    )
    return [Term("$ per million output tokens", usd_per_million, "$/Mtok", detail)]
