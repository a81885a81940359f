"""A mix row's billed copies sharing its load, as /rank's peak rows say theirs (found by mix3).

A row's replicas are whole rented instances; the program counts the busiest hour's requests onto the copies they need
(copies_at_peak), each at what one copy sustains at the limits, and the other copies' GPUs are billed, spare. Run
every copy the instances hold behind a load balancer and each serves the row's requests/s over them all, at the same
bill. A row that serves one bucket is then a fixed request rate of one request length, timed as /rank times its peak
rows spread over their copies (spread_load.peak_copies_if_spread, peak_as_fixed_load). A row that serves several
buckets sends each copy a stream of several lengths at once, which no one estimate times (every estimate is of one
prompt and output length): its copies and each one's load are said, its p99s are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.scoring.explain import significant
from app.scoring.serving.mix.candidates import BucketDemand, ReplicaType
from app.scoring.serving.spare_gpus import peak_spread_words, spare_gpus_words


@dataclass(frozen=True, slots=True)
class RowSpread:
    """A row's load over every copy its billed instances hold (copies 0: they hold no more than it needs)."""

    requests_per_s: float  # the row's share of the busiest hour: Σ share × the bucket's demand
    one_copy_requests_per_s: float  # what one copy sustains at the limits on the row's buckets, in its proportions
    copies: int = 0
    requests_per_s_each: float | None = None
    p99_ms: tuple[float, ...] = ()  # () where it serves several buckets, or where a copy would not keep up
    note: str = ""


def row_requests_per_s(shares: Sequence[float], demands: Sequence[BucketDemand]) -> float:
    return sum(s * d.requests_per_s for s, d in zip(shares, demands, strict=True))


def one_copy_requests_per_s(replica: ReplicaType, requests_per_s: float, load_replicas: float) -> float:
    """One copy's capacity on the row's requests as the program adds them up: its requests/s over the copies its load
    needs (load_replicas instances × copies each), the buckets' capacities weighed by the shares the row serves."""
    copies_loaded = load_replicas * replica.copies
    return requests_per_s / copies_loaded if copies_loaded > 0 else 0.0


def row_spread(
    replica: ReplicaType,
    replicas: int,
    load_replicas: float,
    shares: Sequence[float],
    demands: Sequence[BucketDemand],
    copies_needed: int,
    spare_gpus: int,
) -> RowSpread:
    """The row's load spread over every copy its `replicas` instances hold, where they hold more than `copies_needed`;
    its note says so, or the spare GPUs as /plan says them."""
    rate = row_requests_per_s(shares, demands)
    one = one_copy_requests_per_s(replica, rate, load_replicas)
    rented = replica.rented_gpus or replica.gpu_count
    size = replica.instance_gpus or rented
    instances = replicas * max(rented // size, 1)
    spare = spare_gpus_words(spare_gpus, instances, size, copies_needed)
    held = replicas * replica.copies
    if held <= copies_needed or rate <= 0:
        return RowSpread(rate, one, note=spare)
    served = [b for b, s in enumerate(shares) if s > 1e-9]
    solve = replica.spreads[served[0]] if len(served) == 1 and replica.spreads else None
    if solve is not None:
        copies, p99 = solve(rate, instances)
        if not p99:  # as /rank's rows: a copy that would not keep up with its share is no spread to offer
            return RowSpread(rate, one, note=spare)
        words = peak_spread_words(copies_needed, copies, replica.gpu_count, instances * size, p99)
        return RowSpread(rate, one, copies, rate / copies, p99, f"{words} ({_each_words(rate / copies, one)})")
    names = " and ".join(demands[b].name for b in served)
    untimed = (
        f"all {held} copies {'it holds' if instances == 1 else 'they hold'} could share the peak, "
        f"{_each_words(rate / held, one)}; no p99 is given for them: a copy would serve {names} together, and an "
        "estimate times one request length at a time"
    )
    return RowSpread(rate, one, held, rate / held, (), f"{spare}: {untimed}")


def _each_words(each: float, one: float) -> str:
    """'0.41 requests/s each, of the 3.3 one copy sustains at the limits'."""
    return f"{significant(each, 3)} requests/s each, of the {significant(one, 3)} one copy sustains at the limits"
