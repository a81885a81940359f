"""One offer read twice: the same instance on the same terms at the same price, from two copies of a price list.

AWS's p5.48xlarge is in the reference twice at $55.04/h: a 2026-11-09 copy for us-east-1 and a 2026-01-21 copy for
"us-east-1 (same in us-east-2, us-west-2)". Their regions differ in words only, so the catalog's natural key keeps
both, and the older reading (stale) was listed beside the current one as if it were another offer. The seed builder
keeps the newer reading and cites the other (scripts/build_seed_prices.py); the catalog hides an older copy a
database still holds (one seeded before the builder merged them, or an import). The same rule serves both.

Pure: reads plain attributes, so it serves the builder's CSV rows and the catalog's rows alike.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")


def region_named_first(region: str) -> str:
    """The region a reading names before any aside: 'us-east-1 (same in us-east-2, us-west-2)' -> 'us-east-1'."""
    return region.split("(", 1)[0].strip().lower()


def reading_key(
    provider_id: str,
    gpu_id: str,
    gpu_count: int,
    price_type: str,
    instance_type: str,
    region: str,
    usd_per_gpu_hour: float,
) -> tuple[Hashable, ...] | None:
    """What makes two rows readings of one offer; None where the row names no instance (an unnamed instance is
    never taken for another row's)."""
    if not instance_type.strip():
        return None
    return (
        provider_id.lower(),
        gpu_id.lower(),
        int(gpu_count),
        price_type,
        instance_type.strip().lower(),
        region_named_first(region),
        round(float(usd_per_gpu_hour), 6),
    )


def newest_readings(
    rows: Iterable[T], key: Callable[[T], tuple[Hashable, ...] | None], newer: Callable[[T], Hashable]
) -> tuple[list[T], list[tuple[T, T]]]:
    """(the rows in their order, less every older reading of an offer; each (dropped, kept) pair). Of readings with
    one key the newest is kept (`newer` orders them: a later as_of, undated last); on a tie the first."""
    rows = list(rows)
    kept: dict[Hashable, T] = {}
    for row in rows:
        k = key(row)
        if k is None:
            continue
        if k not in kept or newer(row) > newer(kept[k]):  # type: ignore[operator]
            kept[k] = row
    dropped = []
    for row in rows:
        k = key(row)
        if k is not None and kept[k] is not row:
            dropped.append((row, kept[k]))
    gone = {id(row) for row, _ in dropped}
    return [row for row in rows if id(row) not in gone], dropped
