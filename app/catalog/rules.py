"""What a catalog row may say, checked the same way for the seed, the CLI import and the admin API.

Each check raises ValueError with a short reason; pydantic turns it into an error naming the field.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

from app.scoring.explain import significant
from app.scoring.pricing.token_prices import AS_OF_BASES
from app.scoring.specs import PRICE_TYPES

# Vocabularies of shared/reference/README.md ("Topology columns of prices.csv"); "" = unknown.
INTRA_NODE_LINKS = ("nvlink", "xgmi", "pcie", "none")
INTER_NODE_FABRICS = ("infiniband", "roce", "efa", "ethernet", "none")
LORA_SERVING = ("yes", "no", "unknown")
# Status of the 16-bit tensor peak a GPU is estimated with (scripts/build_seed_specs.py); "" = not recorded.
PEAK_VERIFICATION = ("verified", "derived", "unverified", "missing")

# Bounds on an offer: the largest rentable cluster in the reference is a 72-GPU rack and AWS sells
# 64-node capacity blocks; 1024 GPUs leaves room without letting 10**30 through (issue 11).
MAX_GPU_COUNT = 1024
# $/GPU-hour: the cheapest reference row is ~$0.05 (marketplace consumer cards), the dearest ~$15
# (hyperscaler B300 with host). Outside 0.01..200 a price is a typo or an attack, not a bargain.
MIN_USD_PER_GPU_HOUR = 0.01
MAX_USD_PER_GPU_HOUR = 200.0
# Time zones: a price dated "today" in UTC+14 is tomorrow in UTC; one day of slack, no more.
FUTURE_SLACK = timedelta(days=1)


def one_of(value: str, allowed: tuple[str, ...], allow_empty: bool = False) -> str:
    if (allow_empty and value == "") or value in allowed:
        return value
    raise ValueError(f"must be one of {', '.join(allowed)}" + (" (or empty)" if allow_empty else ""))


def price_type(value: str) -> str:
    return one_of(value, PRICE_TYPES)


def not_future(value: date | None) -> date | None:
    if value is not None and value > datetime.now(UTC).date() + FUTURE_SLACK:
        raise ValueError("as_of is in the future")
    return value


def is_http_url(value: str | None) -> bool:
    """True for absolute http(s) URLs with a host: the only links a page may render."""
    if not value:
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def http_url(value: str, allow_empty: bool = False) -> str:
    if (allow_empty and value == "") or is_http_url(value):
        return value
    raise ValueError("must be an http(s) URL")


def consistent_total(usd_per_gpu_hour: float, usd_per_hour: float | None, gpu_count: int | None) -> float:
    """The instance price is the per-GPU price times the count (1 % slack for rounded sources)."""
    if usd_per_hour is not None and gpu_count:
        expected = usd_per_gpu_hour * gpu_count
        if abs(expected - usd_per_hour) > 0.01 * expected + 1e-6:
            raise ValueError(f"is not usd_per_hour / gpu_count ({significant(usd_per_hour)} / {gpu_count})")
    return usd_per_gpu_hour


def as_of_basis(value: str) -> str:
    """How a token price's as_of reads (app.scoring.pricing.token_prices.AS_OF_BASES); "" = not stated (exact)."""
    return one_of(value, AS_OF_BASES, allow_empty=True)
