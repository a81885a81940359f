"""Candidates of the GPU mix: the cheapest configuration of each GPU type per length bucket, and what one
replica of it sustains on every bucket.

For each bucket, the inference ranking's cheapest configuration (offer x GPU count x layout, by $ per
request) of each GPU type that serves it at the latency limits is a candidate. Each candidate's capacity
is then estimated on every bucket with its own layout: a replica keeps its layout whatever it serves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import islice

from app.scoring.hardware.machines import Machine, machine_of, shared_rack_caveat
from app.scoring.inference.batching.queueing import sustained_requests_per_s
from app.scoring.inference.estimates.configurations import peak_spread_solver, solve_on
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.explanation.terms import p99_latencies_ms
from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.offers import snapshot_offers
from app.scoring.serving.mix.question import LengthBucket, MixQuestion
from app.scoring.serving.mix.request_shapes import SHAPES
from app.scoring.serving.traffic.week import HOURS_PER_MONTH
from app.scoring.specs import CatalogSnapshot, ModelSpec, Offer
from app.scoring.workload import MIN_REQUESTS_PER_S, InferenceWorkload


@dataclass(frozen=True, slots=True)
class BucketDemand:
    name: str
    label: str
    input_len: int
    output_len: int
    share: float  # of all requests: weight ÷ the weights' total
    requests_per_s: float  # at the busiest hour
    source: str = ""
    source_url: str = ""
    weight: float = 1.0  # the share as given


@dataclass(frozen=True, slots=True)
class BucketFit:
    """One replica type on one bucket at the latency limits (requests_per_s 0: it cannot serve it)."""

    requests_per_s: float
    output_tokens_per_s: float = 0.0
    batch: int = 0
    ttft_ms: float = 0.0  # means, as the ranking's ttft_mean_ms / tpot_mean_ms
    tpot_ms: float = 0.0
    reason: str = ""
    requests_in_flight: float | None = None  # below one in flight: the mean that meets the limits (batch is then 1)
    ttft_p99_ms: float = 0.0  # the p99s the limits are checked against (p99_latencies_ms, as the ranking's rows)
    tpot_p99_ms: float = 0.0


# By one bucket's requests/s at the busiest hour and the instances a row rents: the copies of the layout they hold and
# the p99 TTFT and TPOT each runs at with that rate spread over them (() where a copy would not keep up), as /rank's
# peak rows solve theirs (configurations.peak_spread_solver; found by mix3)
BucketSpread = Callable[[float, int], tuple[int, tuple[float, ...]]]


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
    copies: int = 1  # copies of the layout one rented instance holds (fits are the instance's: all copies)
    rented_gpus: int = 0  # GPUs one replica (a rented instance) bills; 0 = gpu_count
    instance_gpus: int = 0  # GPUs one rented instance of the offer holds; 0 = rented_gpus
    price_note: str = ""  # the offer's price terms in words (price_terms.price_caveats reads its caveats)
    price_source_url: str = ""
    stale: bool = False  # older than the stale-after days, or undated (ranked only with include_stale)
    layout_caveat: str = ""  # what the layout assumes of the offer (machines.shared_rack_caveat)
    # one per bucket, None where it cannot serve it; solved only when a row asks (few rows have copies to spare)
    spreads: tuple[BucketSpread | None, ...] = field(default=(), compare=False, repr=False)

    @property
    def label(self) -> str:
        if self.copies > 1:
            copies = f"({self.copies} copies of {self.gpu_count})"
            return f"{self.rented_gpus}×{self.gpu_id} {copies} at {self.provider_name}"
        return f"{self.gpu_count}×{self.gpu_id} at {self.provider_name}"


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
                label=named.label if named else f"{b.input_len:,} in / {b.output_len:,} out",
                input_len=b.input_len,
                output_len=b.output_len,
                share=b.share / total,
                requests_per_s=peak_rps * b.share / total,
                source=named.source if named else "your histogram",
                source_url=named.source_url if named else "",
                weight=b.share,
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
) -> tuple[BucketFit, BucketSpread | None]:
    """One copy of the layout on the bucket at the limits, and how it would run that bucket spread over more copies."""
    gpu = snapshot.gpus[offer.gpu_id]
    machine = machine_of(offer, gpu)
    workload = question.workload(bucket)
    solved = solve_on(gpu, machine, *layout, model, workload)
    if not isinstance(solved, Solution):
        return BucketFit(0.0, reason=solved.reason), None
    assert bucket.output_len is not None
    spread = peak_spread_solver(gpu, machine, solved)

    def bucket_spread(requests_per_s: float, instances: int) -> tuple[int, tuple[float, ...]]:
        return spread(workload.model_copy(update={"peak_requests_per_s": requests_per_s}), instances)

    point = solved.point
    ttft_p99_ms, tpot_p99_ms = p99_latencies_ms(point, solved.efficiency, solved.workload.prompt_p99_over_mean)
    fit = BucketFit(
        requests_per_s=sustained_requests_per_s(
            point.batch, point.ttft_ms, point.tpot_ms, bucket.output_len, point.tokens_per_s
        ),
        output_tokens_per_s=point.tokens_per_s,
        batch=solved.batch,
        ttft_ms=point.ttft_ms,
        tpot_ms=point.tpot_ms,
        requests_in_flight=point.batch if solved.light_load else None,
        ttft_p99_ms=ttft_p99_ms,
        tpot_p99_ms=tpot_p99_ms,
    )
    return fit, bucket_spread


def _bucket_questions(
    question: MixQuestion, bucket: LengthBucket, peak_rps: float | None
) -> Iterator[tuple[InferenceWorkload, bool]]:
    """The rankings a bucket's candidates come from, each with whether it is ranked per request: per request (the
    cheapest configuration at full load), then by the fleet this bucket's peak and the whole peak rent (a small
    instance beats a cheaper-per-GPU whole 8-GPU VM when the load fills only part of it)."""
    workload = question.workload(bucket)
    yield workload, True
    if not peak_rps:
        return
    total = sum(b.share for b in question.buckets())
    for peak in dict.fromkeys((peak_rps * bucket.share / total, peak_rps)):
        if peak >= MIN_REQUESTS_PER_S:
            yield workload.model_copy(update={"peak_requests_per_s": peak, "rank_by": "fleet"}), False


def replica_types(
    question: MixQuestion, snapshot: CatalogSnapshot, model: ModelSpec, peak_rps: float | None = None
) -> list[ReplicaType]:
    """The cheapest configuration of each GPU type per bucket, per request and (with a peak) by the fleet it rents,
    with its capacity on every bucket."""
    offers = snapshot_offers(snapshot, question)
    buckets = question.buckets()
    picked: dict[tuple, tuple[Offer, tuple[int, int, int], list[str]]] = {}
    for bucket in buckets:
        for workload, per_request in _bucket_questions(question, bucket, peak_rps):
            ranking = rank_inference(workload, snapshot, model)
            types: set[str] = set()
            for option in islice(ranking.options, ranking.feasible_count):
                if option.gpu_id in types:
                    continue
                types.add(option.gpu_id)
                offer = _offer_of(option, offers)
                layout = (option.gpu_count, option.tensor_parallel, option.pipeline_parallel)
                price = offer.usd_per_gpu_hour
                key = (offer.provider_id, offer.gpu_id, offer.price_type, offer.offer_id, price, layout)
                cheapest_for = picked.setdefault(key, (offer, layout, []))[2]
                if per_request:
                    cheapest_for.append(bucket.name)
    out = []
    for index, (offer, layout, cheapest_for) in enumerate(picked.values()):
        gpu = snapshot.gpus[offer.gpu_id]
        machine: Machine = machine_of(offer, gpu)
        copies = machine.copies(layout[0])
        rented = machine.rented_gpus(layout[0])
        fits, spreads = zip(*(_fit(snapshot, offer, layout, model, question, b) for b in buckets), strict=True)
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
                usd_per_replica_month=offer.usd_per_gpu_hour * rented * HOURS_PER_MONTH,
                fits=tuple(_times(f, copies) for f in fits),
                cheapest_for=tuple(cheapest_for),
                copies=copies,
                rented_gpus=rented,
                instance_gpus=machine.instance_gpus,
                price_note=offer.price_note,
                price_source_url=offer.source_url,
                stale=offer.stale,
                layout_caveat=shared_rack_caveat(machine, layout[0]),
                spreads=spreads,
            )
        )
    return out


def _times(fit: BucketFit, copies: int) -> BucketFit:
    """One rented instance's capacity on a bucket: its copies' together (latencies are each copy's)."""
    if copies == 1:
        return fit
    return replace(
        fit, requests_per_s=fit.requests_per_s * copies, output_tokens_per_s=fit.output_tokens_per_s * copies
    )
