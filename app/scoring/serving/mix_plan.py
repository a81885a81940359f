"""The cheapest GPU mix for a request-length distribution, against the best single GPU type.

Candidates: for each length bucket, the cheapest configuration (offer x GPU count x layout) of each GPU
type that serves it at the latency limits (the inference ranking's order). Each candidate's capacity is
then estimated on every bucket with its own layout (a replica keeps its layout whatever it serves), and
the integer program in app.scoring.serving.mix picks the replicas. A single type is the same program
over that type's candidates only, so the mix never costs more than the best single type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import islice

from app.scoring.explain import Term
from app.scoring.inference.configurations import solve_on
from app.scoring.inference.estimate import Solution
from app.scoring.inference.rank import InferenceOption, rank_inference
from app.scoring.machines import Machine, machine_of
from app.scoring.offers import snapshot_offers
from app.scoring.serving.mix import MixCandidate, MixSolution, solve_mix
from app.scoring.serving.mix_question import LengthBucket, MixQuestion
from app.scoring.serving.request_shapes import SHAPES
from app.scoring.serving.traffic import HOURS_PER_MONTH, SECONDS_PER_DAY
from app.scoring.specs import CatalogSnapshot, ModelSpec, Offer

TIE_USD = 0.01  # a cent a month: mixes within it of one GPU type alone are shown as that type
SIZING_NOTE = (
    "The fleet is sized for the busiest hour's request rate and billed for every hour of the month "
    f"({HOURS_PER_MONTH:g} h, always on); autoscaling a mix hour by hour is not modelled."
)


@dataclass(frozen=True, slots=True)
class BucketDemand:
    name: str
    label: str
    input_len: int
    output_len: int
    share: float  # of all requests, normalised
    requests_per_s: float  # at the busiest hour
    source: str = ""
    source_url: str = ""


@dataclass(frozen=True, slots=True)
class BucketFit:
    """One replica type on one bucket at the latency limits (requests_per_s 0: it cannot serve it)."""

    requests_per_s: float
    output_tokens_per_s: float = 0.0
    batch: int = 0
    ttft_ms: float = 0.0
    tpot_ms: float = 0.0
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ReplicaType:
    key: str
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    machine: str
    usd_per_replica_month: float
    fits: tuple[BucketFit, ...]  # one per bucket
    cheapest_for: tuple[str, ...]  # buckets where this is its GPU type's cheapest configuration

    @property
    def label(self) -> str:
        return f"{self.gpu_count}×{self.gpu_id} at {self.provider_name}"


@dataclass(frozen=True, slots=True)
class MixRow:
    replica: ReplicaType
    replicas: int
    load_replicas: float
    shares: tuple[float, ...]  # of each bucket's requests
    usd_per_month: float
    terms: list[Term] = field(default_factory=list)


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


def bucket_demands(question: MixQuestion, peak_rps: float) -> list[BucketDemand]:
    buckets = question.buckets()
    total = sum(b.share for b in buckets)
    out = []
    for b in buckets:
        assert b.input_len is not None and b.output_len is not None
        named = SHAPES.get(b.shape or "")
        out.append(
            BucketDemand(
                name=b.name,
                label=named.label if named else f"{b.input_len} in / {b.output_len} out",
                input_len=b.input_len,
                output_len=b.output_len,
                share=b.share / total,
                requests_per_s=peak_rps * b.share / total,
                source=named.source if named else "your histogram",
                source_url=named.source_url if named else "",
            )
        )
    return out


def _offer_of(option: InferenceOption, offers: Sequence[Offer]) -> Offer:
    for offer in offers:
        if option.offer_id is not None and offer.offer_id == option.offer_id:
            return offer
    return next(
        o
        for o in offers
        if (o.provider_id, o.gpu_id, o.price_type, o.usd_per_gpu_hour)
        == (option.provider, option.gpu_id, option.price_type, option.usd_per_gpu_hour)
    )


def _fit(
    snapshot: CatalogSnapshot,
    offer: Offer,
    layout: tuple[int, int, int],
    model: ModelSpec,
    question: MixQuestion,
    bucket: LengthBucket,
) -> BucketFit:
    gpu = snapshot.gpus[offer.gpu_id]
    solved = solve_on(gpu, machine_of(offer, gpu), *layout, model, question.workload(bucket))
    if not isinstance(solved, Solution):
        return BucketFit(0.0, reason=solved.reason)
    assert bucket.output_len is not None
    point = solved.point
    return BucketFit(
        requests_per_s=point.tokens_per_s / bucket.output_len,
        output_tokens_per_s=point.tokens_per_s,
        batch=solved.batch,
        ttft_ms=point.ttft_ms,
        tpot_ms=point.tpot_ms,
    )


def replica_types(question: MixQuestion, snapshot: CatalogSnapshot, model: ModelSpec) -> list[ReplicaType]:
    """The cheapest configuration of each GPU type per bucket, with its capacity on every bucket."""
    offers = snapshot_offers(snapshot, question)
    buckets = question.buckets()
    picked: dict[tuple, tuple[Offer, tuple[int, int, int], list[str]]] = {}
    for bucket in buckets:
        ranking = rank_inference(question.workload(bucket), snapshot, model)
        types: set[str] = set()
        for option in islice(ranking.options, ranking.feasible_count):
            if option.gpu_id in types:
                continue
            types.add(option.gpu_id)
            offer = _offer_of(option, offers)
            layout = (option.gpu_count, option.tensor_parallel, option.pipeline_parallel)
            key = (offer.provider_id, offer.gpu_id, offer.price_type, offer.offer_id, offer.usd_per_gpu_hour, layout)
            picked.setdefault(key, (offer, layout, []))[2].append(bucket.name)
    out = []
    for index, (offer, layout, cheapest_for) in enumerate(picked.values()):
        gpu = snapshot.gpus[offer.gpu_id]
        machine: Machine = machine_of(offer, gpu)
        out.append(
            ReplicaType(
                key=f"r{index}",
                gpu_id=offer.gpu_id,
                gpu_count=layout[0],
                tensor_parallel=layout[1],
                pipeline_parallel=layout[2],
                provider=offer.provider_id,
                provider_name=offer.provider_name,
                price_type=offer.price_type,
                usd_per_gpu_hour=offer.usd_per_gpu_hour,
                as_of=offer.as_of,
                machine=machine.describe(),
                usd_per_replica_month=offer.usd_per_gpu_hour * layout[0] * HOURS_PER_MONTH,
                fits=tuple(_fit(snapshot, offer, layout, model, question, b) for b in buckets),
                cheapest_for=tuple(cheapest_for),
            )
        )
    return out


def _row_terms(
    r: ReplicaType, replicas: int, load: float, shares: Sequence[float], demands: list[BucketDemand]
) -> list[Term]:
    parts = [
        f"{s:.0%} of {d.name} {d.requests_per_s:.3g} req/s ÷ {f.requests_per_s:.3g} req/s"
        for s, d, f in zip(shares, demands, r.fits, strict=True)
        if s > 1e-9
    ]
    terms = [
        Term("load", load, "replicas", " + ".join(parts) + " (share × demand ÷ one replica's capacity)"),
        Term("replicas", replicas, "replicas", f"the program's whole number ≥ load {load:.3f}"),
        Term(
            "monthly cost",
            replicas * r.usd_per_replica_month,
            "$/month",
            f"{replicas} × {r.gpu_count} GPU × ${r.usd_per_gpu_hour:.2f}/GPU-h × {HOURS_PER_MONTH:g} h",
        ),
    ]
    for d, f in zip(demands, r.fits, strict=True):
        if f.requests_per_s > 0:
            terms.append(
                Term(
                    f"capacity on {d.name}",
                    f.requests_per_s,
                    "requests/s per replica",
                    f"{f.output_tokens_per_s:,.0f} output tok/s at the limits (batch {f.batch}, TTFT "
                    f"{f.ttft_ms:,.0f} ms, TPOT {f.tpot_ms:.1f} ms) ÷ {d.output_len} output tokens",
                )
            )
        else:
            terms.append(Term(f"capacity on {d.name}", 0.0, "requests/s per replica", f.reason))
    return terms


def _fleet(label: str, types: list[ReplicaType], solution: MixSolution, demands: list[BucketDemand]) -> Fleet:
    by_key = {t.key: t for t in types}
    rows = []
    for a in solution.assignments:
        r = by_key[a.candidate]
        rows.append(
            MixRow(
                r,
                a.replicas,
                a.load_replicas,
                a.shares,
                a.usd_per_month,
                _row_terms(r, a.replicas, a.load_replicas, a.shares, demands),
            )
        )
    rows.sort(key=lambda row: (-row.usd_per_month, row.replica.key))
    return Fleet(label, solution.usd_per_month, rows, tuple(sorted({row.replica.gpu_id for row in rows})))


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


def _plan_terms(question: MixQuestion, peak_rps: float, demands: list[BucketDemand]) -> list[Term]:
    traffic = question.traffic()
    terms = [
        Term(
            "busiest-hour request rate",
            peak_rps,
            "requests/s",
            f"{question.requests_per_day:,.0f} requests/day ÷ {SECONDS_PER_DAY:,} s × peak/mean "
            f"{max(traffic.multipliers()):.2f} ({question.profile})",
        )
    ]
    for d in demands:
        terms.append(
            Term(
                f"demand, {d.name}",
                d.requests_per_s,
                "requests/s",
                f"{d.share:.1%} of {peak_rps:.3g} req/s; {d.input_len} in / {d.output_len} out ({d.source})",
            )
        )
    return terms


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
            Term("saving", saving, "$/month", f"best single type − mix = {pct:.1f} % of the single-type cost"),
        ],
    )


def plan_mix(question: MixQuestion, snapshot: CatalogSnapshot, model: ModelSpec) -> MixPlan:
    traffic = question.traffic()
    peak_rps = traffic.peak_rate_per_s()
    demands = bucket_demands(question, peak_rps)
    types = replica_types(question, snapshot, model)
    mix = solve_fleet("cheapest mix", types, demands)
    singles = single_type_fleets(types, demands)
    if mix is not None and singles and mix.usd_per_month >= singles[0].usd_per_month - TIE_USD:
        # no cheaper than one type alone (or dearer by a solver tolerance): show the simpler fleet
        mix = replace(singles[0], label="cheapest mix")
    terms = _plan_terms(question, peak_rps, demands)
    saving = pct = None
    if mix is not None and singles:
        saving, pct, more = _saving_terms(mix, singles[0])
        terms += more
    notes = [SIZING_NOTE, considered_note(types, demands, len(snapshot_offers(snapshot, question)))]
    notes += unserved_notes(types, demands)
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
        offers_considered=len(snapshot_offers(snapshot, question)),
    )


def considered_note(types: list[ReplicaType], demands: list[BucketDemand], offers: int) -> str:
    gpu_types = len({t.gpu_id for t in types})
    return (
        f"Considered {len(types)} replica types from {offers} offers: for each of the {len(demands)} buckets, the "
        f"cheapest configuration (offer × GPU count × layout, by $ per request) of each of {gpu_types} GPU types "
        f"that can serve it; each estimated on every bucket ({len(types)} × {len(demands)} estimates), then one "
        f"integer program with {len(types)} integer replica counts and up to {len(types) * len(demands)} shares "
        "(SciPy milp, HiGHS)."
    )


def unserved_notes(types: list[ReplicaType], demands: list[BucketDemand]) -> list[str]:
    notes = []
    for b, d in enumerate(demands):
        if not any(t.fits[b].requests_per_s > 0 for t in types):
            notes.append(f"No offer serves {d.name} ({d.input_len} in / {d.output_len} out) at these limits.")
    return notes
