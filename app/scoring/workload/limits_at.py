"""limits_at: where on an estimate's p10-p90 band a question's limits (latency, deadline) must hold."""

from __future__ import annotations

from typing import Literal

# Where on a p99 latency's p10-p90 band (inference.latency_bands) the TTFT and TPOT limits must hold.
LimitsAt = Literal["estimate", "band_high"]
LIMITS_AT_DESCRIPTION = (
    "where the p99 TTFT and TPOT limits must hold: estimate (or unset) = on the estimated p99; band_high = even at "
    "the slow end of its p10-p90 band (/methodology): a smaller batch and fewer tokens per GPU, never 'limits at "
    "risk'. latency_bound picks the batch by it, request_rate, concurrency and single_stream rank rows over it last, "
    "fixed_batch and max_throughput only report the limits"
)

TRAINING_LIMITS_AT_DESCRIPTION = (
    "where the deadline (and budget) must hold: estimate (or unset) = on the estimated tokens/s; band_high = even at "
    "the slow end of its p10-p90 band (/methodology): a run counts as on time and within budget only if it is at the "
    "band's low tokens/s, so more GPUs or a faster GPU, never 'deadline at risk'"
)


def estimate_is_unset(value: str | None) -> str | None:
    """limits_at estimate is read as unset, so a question without it is written, linked and echoed exactly as before
    the field existed."""
    return None if value == "estimate" else value
