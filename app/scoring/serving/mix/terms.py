"""How the GPU mix explains itself: the terms behind each fleet row and the totals, and the plan's notes."""

from __future__ import annotations

from collections.abc import Sequence

from app.scoring.explain import Term, batch_words, fixed, percent, significant, usd_price
from app.scoring.serving.mix.candidates import BucketDemand, BucketFit, ReplicaType
from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.traffic.week import HOURS_PER_MONTH, SECONDS_PER_DAY

SIZING_NOTE = (
    "The fleet is sized for the busiest hour's request rate and billed for every hour of the month "
    f"({significant(HOURS_PER_MONTH)} h, always on); autoscaling a mix hour by hour is not modelled."
)


def _load_words(f: BucketFit) -> str:
    """The fit's batch, or where the limits hold only below one request in flight, the mean in flight."""
    if f.requests_in_flight is None:
        return f"batch {f.batch}"
    return f"{batch_words(f.requests_in_flight)}, below one: one always in flight misses the limits"


def row_terms(
    r: ReplicaType, replicas: int, load: float, shares: Sequence[float], demands: list[BucketDemand]
) -> list[Term]:
    parts = [
        f"{percent(s)} of {d.name} {significant(d.requests_per_s, 3)} req/s ÷ {significant(f.requests_per_s, 3)} req/s"
        for s, d, f in zip(shares, demands, r.fits, strict=True)
        if s > 1e-9
    ]
    terms = [
        Term("load", load, "replicas", " + ".join(parts) + " (share × demand ÷ one replica's capacity)"),
        Term("replicas", replicas, "replicas", f"the program's whole number ≥ load {fixed(load, 3)}"),
        Term(
            "monthly cost",
            replicas * r.usd_per_replica_month,
            "$/month",
            f"{replicas} × {r.rented_gpus or r.gpu_count} GPU × {usd_price(r.usd_per_gpu_hour)}/GPU-h"
            f" × {significant(HOURS_PER_MONTH)} h",
        ),
    ]
    for d, f in zip(demands, r.fits, strict=True):
        if f.requests_per_s > 0:
            terms.append(
                Term(
                    f"capacity on {d.name}",
                    f.requests_per_s,
                    "requests/s per replica",
                    f"requests in flight ÷ a request's life ({_load_words(f)}; TTFT {fixed(f.ttft_ms, 0)} ms + "
                    f"{max(d.output_len - 1, 0):,} × TPOT {fixed(f.tpot_ms, 1)} ms; Little's law), at most "
                    f"{fixed(f.output_tokens_per_s, 0)} output tok/s at the limits ÷ {d.output_len:,} output tokens",
                )
            )
        else:
            terms.append(Term(f"capacity on {d.name}", 0.0, "requests/s per replica", f.reason))
    return terms


def plan_terms(question: MixQuestion, peak_rps: float, demands: list[BucketDemand]) -> list[Term]:
    traffic = question.traffic()
    terms = [
        Term(
            "busiest-hour request rate",
            peak_rps,
            "requests/s",
            f"{fixed(question.requests_per_day, 0)} requests/day ÷ {SECONDS_PER_DAY:,} s × peak/mean "
            f"{fixed(max(traffic.multipliers()), 2)} ({question.profile})",
        )
    ]
    for d in demands:
        terms.append(
            Term(
                f"demand, {d.name}",
                d.requests_per_s,
                "requests/s",
                f"{percent(d.share, 1)} of {significant(peak_rps, 3)} req/s; {d.input_len:,} in / {d.output_len:,} out "
                f"({d.source})",
            )
        )
    return terms


def considered_note(types: list[ReplicaType], demands: list[BucketDemand], offers: int) -> str:
    gpu_types, count = len({t.gpu_id for t in types}), len(types)
    buckets = "the one bucket" if len(demands) == 1 else f"each of the {len(demands)} buckets"
    return (
        f"Considered {_counted(count, 'replica type')} from {_counted(offers, 'offer')}: for {buckets}, the "
        f"cheapest configuration (offer × GPU count × layout, by $ per request) of each of "
        f"{_counted(gpu_types, 'GPU type')} that can serve it; each estimated on every bucket ({count} × "
        f"{len(demands)} estimates), then one integer program with {_counted(count, 'integer replica count')} and up "
        f"to {_counted(count * len(demands), 'share')} (SciPy milp, HiGHS)."
    )


def _counted(count: int, noun: str) -> str:
    """`1 offer`, `76 offers`: the note's counts read in the singular where they are one (found by qa36)."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def unserved_notes(types: list[ReplicaType], demands: list[BucketDemand], offers: int) -> list[str]:
    """The buckets nothing serves; where no offer passes the filters, that, not the limits, is why."""
    if offers == 0:
        return ["No offer passes the filters (providers, GPUs, vendors, price terms, stale prices): nothing is served."]
    notes = []
    for b, d in enumerate(demands):
        if not any(t.fits[b].requests_per_s > 0 for t in types):
            notes.append(f"No offer serves {d.name} ({d.input_len:,} in / {d.output_len:,} out) at these limits.")
    return notes
