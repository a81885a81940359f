"""The cheapest GPU mix for a request-length distribution, against the best single GPU type.

Candidates come from app.scoring.serving.mix.candidates (the cheapest configuration of each GPU type per
bucket, with its capacity on every bucket); the integer program in app.scoring.serving.mix.solver picks the
replicas. A single type is the same program over that type's candidates only, so the mix never costs
more than the best single type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial

from app.scoring.explain import Term, WrittenOnce, fixed
from app.scoring.pricing.offers import snapshot_offers
from app.scoring.serving.mix.candidates import BucketDemand, ReplicaType, bucket_demands, replica_types
from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.mix.solver import LOAD_TOLERANCE, MixCandidate, MixSolution, solve_mix
from app.scoring.serving.mix.spread import RowSpread, row_spread
from app.scoring.serving.mix.terms import SIZING_NOTE, considered_note, plan_terms, row_terms, unserved_notes
from app.scoring.specs import CatalogSnapshot, ModelSpec

TIE_USD = 0.01  # a cent a month: mixes within it of one GPU type alone are shown as that type


@dataclass(frozen=True, slots=True)
class MixRow:
    replica: ReplicaType
    replicas: int
    load_replicas: float
    shares: tuple[float, ...]  # of each bucket's requests
    usd_per_month: float
    terms: list[Term] = field(default_factory=list)
    # written when first read (a spread of one bucket solves it): the fleets a page does not show never are
    spread_once: WrittenOnce[RowSpread] | None = field(default=None, compare=False, repr=False)

    @property
    def copies_at_peak(self) -> int:
        """Copies of the layout its peak load needs: its fractional replicas (rented instances) × the copies one
        holds, rounded up; never more than its replicas hold."""
        r = self.replica
        needed = max(math.ceil(self.load_replicas * r.copies - LOAD_TOLERANCE), 0)
        return min(self.replicas * r.copies, needed)

    @property
    def idle_gpus_at_peak(self) -> int:
        """GPUs its replicas bill beyond the copies its peak load needs (copies_at_peak, each timed at the limits'
        load): one copy on a whole 8-GPU instance leaves 7 spare; the monthly cost counts them (replicas × rented
        GPUs)."""
        r = self.replica
        return max(0, self.replicas * (r.rented_gpus or r.gpu_count) - self.copies_at_peak * r.gpu_count)

    @property
    def spread(self) -> RowSpread:
        """Its load over every copy its instances hold (mix/spread.py), and its spare GPUs in words."""
        assert self.spread_once is not None, "a fleet's rows are built with their spread (plan._fleet)"
        return self.spread_once.read()

    @property
    def fleet_note(self) -> str:
        """idle_gpus_at_peak in /plan's words: 'one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are
        billed, spare at peak', and where they hold whole copies what running them gives (mix/spread.py)."""
        return self.spread.note


@dataclass(frozen=True, slots=True)
class Fleet:
    label: str
    usd_per_month: float
    rows: list[MixRow]
    gpu_types: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MixPlan:
    model_id: str
    requests_per_day: float
    peak_requests_per_s: float
    buckets: list[BucketDemand]
    replica_types: list[ReplicaType]  # every candidate the program considered
    mix: Fleet | None
    singles: list[Fleet]  # one per GPU type that serves every bucket alone, cheapest first
    saving_usd_per_month: float | None
    saving_pct: float | None
    terms: list[Term]
    notes: list[str]
    gpu_types_considered: int = 0
    offers_considered: int = 0


def _fleet(label: str, types: list[ReplicaType], solution: MixSolution, demands: list[BucketDemand]) -> Fleet:
    by_key = {t.key: t for t in types}
    rows = []
    for a in solution.assignments:
        r = by_key[a.candidate]
        terms = row_terms(r, a.replicas, a.load_replicas, a.shares, demands)
        row = MixRow(r, a.replicas, a.load_replicas, a.shares, a.usd_per_month, terms)
        rows.append(replace(row, spread_once=WrittenOnce(partial(_row_spread, row, demands))))
    rows.sort(key=lambda row: (-row.usd_per_month, row.replica.key))
    return Fleet(label, solution.usd_per_month, rows, tuple(sorted({row.replica.gpu_id for row in rows})))


def _row_spread(row: MixRow, demands: list[BucketDemand]) -> RowSpread:
    copies, spare = row.copies_at_peak, row.idle_gpus_at_peak
    return row_spread(row.replica, row.replicas, row.load_replicas, row.shares, demands, copies, spare)


def solve_fleet(label: str, types: list[ReplicaType], demands: list[BucketDemand]) -> Fleet | None:
    candidates = [MixCandidate(t.key, t.usd_per_replica_month, tuple(f.requests_per_s for f in t.fits)) for t in types]
    solution = solve_mix(candidates, [d.requests_per_s for d in demands])
    return None if solution is None else _fleet(label, types, solution, demands)


def single_type_fleets(types: list[ReplicaType], demands: list[BucketDemand]) -> list[Fleet]:
    """One GPU type serving every bucket (its candidates only), cheapest first; types missing a bucket drop out."""
    fleets = []
    for gpu_id in sorted({t.gpu_id for t in types}):
        own = [t for t in types if t.gpu_id == gpu_id]
        fleet = solve_fleet(f"{gpu_id} only", own, demands)
        if fleet is not None:
            fleets.append(fleet)
    return sorted(fleets, key=lambda f: (f.usd_per_month, f.label))


def _saving_terms(mix: Fleet, best: Fleet) -> tuple[float, float, list[Term]]:
    saving = best.usd_per_month - mix.usd_per_month
    pct = saving / best.usd_per_month * 100 if best.usd_per_month else 0.0
    return (
        saving,
        pct,
        [
            Term(
                "mix monthly cost",
                mix.usd_per_month,
                "$/month",
                " + ".join(f"{r.replicas} × {r.replica.label}" for r in mix.rows),
            ),
            Term(
                "best single type",
                best.usd_per_month,
                "$/month",
                best.label + ": " + " + ".join(f"{r.replicas} × {r.replica.label}" for r in best.rows),
            ),
            Term("saving", saving, "$/month", f"best single type − mix = {fixed(pct, 1)}% of the single-type cost"),
        ],
    )


def plan_mix(question: MixQuestion, snapshot: CatalogSnapshot, model: ModelSpec) -> MixPlan:
    traffic = question.traffic()
    peak_rps = traffic.peak_rate_per_s()
    demands = bucket_demands(question, peak_rps)
    types = replica_types(question, snapshot, model, peak_rps)
    mix = solve_fleet("cheapest mix", types, demands)
    singles = single_type_fleets(types, demands)
    if mix is not None and singles and mix.usd_per_month >= singles[0].usd_per_month - TIE_USD:
        # no cheaper than one type alone (or dearer by a solver tolerance): show the simpler fleet
        mix = replace(singles[0], label="cheapest mix")
    terms = plan_terms(question, peak_rps, demands)
    saving = pct = None
    if mix is not None and singles:
        saving, pct, more = _saving_terms(mix, singles[0])
        terms += more
    share_note = question.share_note()
    notes = [share_note] if share_note else []
    offers = len(snapshot_offers(snapshot, question))
    notes += [SIZING_NOTE, considered_note(types, demands, offers)]
    notes += unserved_notes(types, demands, offers)
    if mix is not None and len(mix.gpu_types) == 1 and singles:
        notes.append(
            f"The cheapest mix is one GPU type ({mix.gpu_types[0]}): no second type lowers the cost at this traffic "
            "and these request lengths (replicas come whole, so small fleets rarely gain from a second type)."
        )
    if mix is not None and not singles:
        notes.append("No single GPU type serves every bucket at these limits: only a mix does.")
    return MixPlan(
        model_id=model.id,
        requests_per_day=question.requests_per_day,
        peak_requests_per_s=peak_rps,
        buckets=demands,
        replica_types=types,
        mix=mix,
        singles=singles,
        saving_usd_per_month=saving,
        saving_pct=pct,
        terms=terms,
        notes=notes,
        gpu_types_considered=len({t.gpu_id for t in types}),
        offers_considered=offers,
    )
