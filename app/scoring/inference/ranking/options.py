"""What a ranking of inference offers returns, and how one row of it is built.

`InferenceOption` is one row: its configuration, the offer's price terms, the estimate's measures and its costs in
every metric; `InferenceRanking` holds the rows best first (built lazily, on first access). RANK_UNITS, RANK_HEADERS
and RANK_METRIC_FIELDS name each rank_by's metric for the pages and the CLI. `feasible_option` and
`infeasible_option` turn an offer and its configuration's pricing (pricing.py) into a row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from app.scoring.explain import Band, Term
from app.scoring.hardware.cluster_caveat import unstated_cluster_caveat
from app.scoring.hardware.machines import nodes_for, rented_gpus, shared_rack_assumption, shared_rack_caveat
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.explanation.cost_terms import usd_per_million_term
from app.scoring.inference.explanation.software_era import stale_software_note
from app.scoring.inference.ranking.nearest_miss import NearestMiss
from app.scoring.inference.ranking.pricing import ConfigurationPricing, cost_band
from app.scoring.pricing.offers import RowKey, offer_fields, with_assumption
from app.scoring.pricing.price_terms import min_term_hours, spot_serving_assumption
from app.scoring.serving.spare_gpus import peak_row_spare_words, peak_spread_words
from app.scoring.specs import Offer

RANK_UNITS = {
    "output_tokens": "$ per million output tokens",
    "all_tokens": "$ per million tokens in and out",
    "requests": "$ per thousand requests",
    "fleet": "$ a month for the replicas the peak needs",
}
# Each rank_by's metric as a table's column heads it (the pages and the CLI).
RANK_HEADERS = {
    "output_tokens": "$/M out tok",
    "all_tokens": "$/M tok in+out",
    "requests": "$/1k req",
    "fleet": "$/mo at peak",
}
# The option field that holds each rank_by's metric (and whose band the option carries).
RANK_METRIC_FIELDS = {
    "output_tokens": "usd_per_million_output_tokens",
    "all_tokens": "usd_per_million_tokens",
    "requests": "usd_per_thousand_requests",
    "fleet": "usd_per_month_at_peak",
}


@dataclass(slots=True)  # not frozen: a frozen init costs several µs per offer, and rankings build many
class InferenceOption:
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool
    reason: str
    close_call: bool = False  # another configuration whose band overlaps the winner's (the winner: one exists)
    terms: Sequence[Term] = field(default_factory=list)  # the estimate's (LazyTerms: written on the first read)
    # The estimate's measures: None on an infeasible option (it runs at no latency and serves no tokens)
    ttft_ms: float | None = None  # mean (deprecated name of ttft_mean_ms)
    tpot_ms: float | None = None  # mean (deprecated name of tpot_mean_ms)
    ttft_median_ms: float | None = None
    ttft_p99_ms: float | None = None  # what the request's ttft_ms limit is checked against
    tpot_p99_ms: float | None = None  # what the request's tpot_ms limit is checked against
    batch: int | None = None
    output_tokens_per_s: float | None = None
    usd_per_million_output_tokens: float | None = None
    usd_per_million_tokens: float | None = None  # input and output tokens together
    usd_per_thousand_requests: float | None = None
    memory_gb: dict[str, float] = field(default_factory=dict)
    band: Band | None = None  # low/high of the ranked metric (workload.rank_by)
    replicas: int | None = None  # None on an infeasible option
    pipeline_parallel: int = 1
    nodes: int = 1
    machine: str = ""  # the offer's machine as the ranking read it
    price_note: str = ""
    price_caveats: tuple[str, ...] = ()  # price_terms.price_caveats of the note: labels a row shows
    price_source_url: str = ""  # where the price was read (the offer's source_url)
    stale: bool = False
    interruptible: bool = False  # spot: may be taken back at short notice
    min_term_hours: float = 0.0  # reserved / capacity block: paid for at least this long
    offer_id: int | None = None
    attention_parallel: str = "tp"  # "dp": data-parallel attention over the TP group (estimate.solve_inference)
    expert_parallel: str = "tp"  # "ep": MoE experts placed whole over the TP group
    job_hours: float | None = None  # a batch job (workload.job_requests): start-up and its time, on `replicas` replicas
    job_billed_hours: float | None = None  # rounded up to the provider's billing unit, a committed term paid whole
    job_usd: float | None = None  # what the job is billed: replicas x GPUs x price x billed hours
    over_limits: str = ""  # at a live-traffic load, the latency limits it misses (ranked after those meeting them)
    assumptions: list[str] = field(default_factory=list)  # what the estimate assumes, its band's evidence last
    instance_gpus: int = 1  # GPUs one rental of the offer bills (an 8-GPU VM is rented whole)
    copies_per_instance: int = 1  # copies of this layout one rented instance runs (an 8-GPU VM holds four TP2)
    instances: int | None = None  # rented instances the `replicas` need (None on an infeasible option)
    usd_per_month_at_peak: float | None = None  # with a peak: its rented fleet (whole instances) x price x 730 h
    # Added after the fields above (a payload's and a CSV's new keys come last): explicit names of the means, and the
    # field the band is on (RANK_METRIC_FIELDS of rank_by)
    ttft_mean_ms: float | None = None
    tpot_mean_ms: float | None = None
    band_metric: str | None = None
    ttft_p99_band: Band | None = None  # ms: the p99 TTFT's band (latency_bands), None on an infeasible option
    tpot_p99_band: Band | None = None  # ms
    limits_at_risk: str = ""  # the limits a p99 at its band's slow end would pass (limits.limits_at_risk)
    instance_type: str = ""  # the offer's instance as its provider names it ("" where the catalog has none)
    region: str = ""  # where the offer's price applies ("" where not stated)
    requests_in_flight: float | None = None  # below one in flight: the mean that meets the limits (estimate's)
    cluster_caveat: str = ""  # a replica over more nodes than one of an offer that states no node count
    requests_per_s: float | None = None  # one replica sustains: in flight / a request's life (estimate's)
    idle_gpus: int = 0  # at a fixed load: GPUs of its rented instances its one replica leaves idle, billed with it
    idle_gpus_at_peak: int = 0  # at a peak: GPUs of its rented instances beyond the replicas it needs (/plan's name)
    fleet_note: str = ""  # idle_gpus_at_peak in /plan's words (spare_gpus.peak_row_spare_words)
    # At a fixed load spread over the copies its rented instances hold (estimates.spread_load): the copies (= replicas),
    # the p99s one copy alone would serve the whole load at (None where it would not keep up, or with one copy) and
    # the spread in words
    copies_sharing_load: int = 1
    one_copy_ttft_p99_ms: float | None = None
    one_copy_tpot_p99_ms: float | None = None
    spread_note: str = ""
    # At a peak whose billed instances hold more copies than it needs (found by spread2): every copy they hold, and the
    # p99s the peak's load spread over them runs at (replicas, $ and the sized latencies unchanged); None otherwise
    copies_at_peak_if_spread: int | None = None
    spread_ttft_p99_ms: float | None = None
    spread_tpot_p99_ms: float | None = None
    # Where the engine or ROCm factors it reads rest only on builds over a year older than its price's date: which
    # builds, and that the band's upper edge is no evidence of newer ones (explanation.software_era); else ""
    software_era_note: str = ""

    def to_dict(self) -> dict:
        return asdict(replace(self, terms=list(self.terms)))  # LazyTerms written out, as asdict copies lists

    def priced_terms(self, memo: dict[Any, Any] | None = None) -> list[Term]:
        """The terms this row's own price makes (its $ per million output tokens), written when read; with a `memo`,
        the words its configuration (its shared terms) and its price share with other rows are written once."""
        configuration = id(self.terms) if memo is not None else None
        return usd_per_million_term(
            self.gpu_count,
            self.usd_per_gpu_hour,
            self.output_tokens_per_s,
            self.usd_per_million_output_tokens,
            memo,
            configuration,
        )

    @property
    def rented_gpus(self) -> int:
        """GPUs one rented unit bills: the whole instance (with every copy it holds), or the layout's own."""
        return rented_gpus(self.instance_gpus, self.gpu_count)

    @property
    def rented_tokens_per_s(self) -> float:
        """Output tokens/s one rented unit serves: every copy it holds."""
        return (self.output_tokens_per_s or 0.0) * self.copies_per_instance  # an infeasible option serves none

    @property
    def rented_requests_per_s(self) -> float:
        """Requests/s one rented unit sustains for traffic: every copy it holds (requests_per_s, Little's law)."""
        return (self.requests_per_s or 0.0) * self.copies_per_instance


@dataclass(frozen=True, slots=True)
class InferenceRanking:
    model_id: str
    options: Sequence[InferenceOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    feasible_count: int = 0  # the first feasible_count options are the feasible ones
    rank_by: str = "output_tokens"
    row_keys: Sequence[RowKey] = ()  # per option, its (GPU, count, reason) without building the option
    leaders: Callable[[], list[InferenceOption]] = list  # the best feasible row of each configuration, best first
    over_limits_count: int = 0  # the last of the feasible options are over a latency limit (limits.py)
    # Where every feasible option is over the limits: the lowest p99 TTFT and TPOT any of them reaches at this load,
    # and on what ({"ttft_p99_ms": {"value", "gpu_id", "gpu_count"}, "tpot_p99_ms": {...}}); else empty
    lowest_p99: dict[str, dict[str, object]] = field(default_factory=dict)
    # A feasible option's field by position, read without building the option where its estimate, offer or cost
    # holds it (a view sorted by a column reads one field of every feasible option)
    sort_value: Callable[[int, str], object] | None = None
    # Nothing feasible and the first refusal refused at the limits: it, and the limits that would admit it
    nearest_miss: NearestMiss | None = None

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [o.to_dict() for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
        }


def feasible_option(offer: Offer, p: ConfigurationPricing, rank_by: str, close: bool) -> InferenceOption:
    est, price = p.est, p.billed_price(offer)
    copies = p.machine.copies(est.gpu_count)
    cost = price * p.factor(rank_by)
    era = stale_software_note(est.software_constants, offer.as_of)
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        pipeline_parallel=est.pipeline_parallel,
        attention_parallel=est.attention_parallel,
        expert_parallel=est.expert_parallel,
        nodes=nodes_for(p.machine, est.gpu_count),
        machine=_machine_text(p),
        **offer_fields(offer, shared_rack_caveat(p.machine, est.gpu_count)),
        min_term_hours=min_term_hours(offer.price_type, offer.min_term_hours),
        feasible=True,
        reason=est.reason,
        close_call=close,
        terms=est.terms,
        assumptions=with_assumption(
            with_assumption(
                with_assumption(est.assumptions, shared_rack_assumption(p.machine, est.gpu_count)),
                spot_serving_assumption(offer.price_type, offer.provider_id, batch_job=bool(p.job_hours)),
            ),
            era,
        ),
        ttft_ms=est.ttft_ms,
        tpot_ms=est.tpot_ms,
        ttft_median_ms=est.ttft_median_ms,
        ttft_p99_ms=est.ttft_p99_ms,
        tpot_p99_ms=est.tpot_p99_ms,
        batch=est.batch,
        output_tokens_per_s=est.output_tokens_per_s,
        usd_per_million_output_tokens=price * p.output_factor,
        usd_per_million_tokens=price * p.all_tokens_factor,
        usd_per_thousand_requests=price * p.requests_factor,
        memory_gb=est.memory_gb,
        band=cost_band(cost, p, offer),
        replicas=p.replicas,
        job_hours=p.job_total_hours,
        job_billed_hours=p.job_billed_hours(offer),
        job_usd=price * p.machine.billed_gpus(est.gpu_count) * p.job_hours * p.replicas if p.job_hours else None,
        over_limits=est.over_limits,
        instance_gpus=p.machine.instance_gpus,
        copies_per_instance=copies,
        instances=p.machine.instances(est.gpu_count, p.replicas),
        usd_per_month_at_peak=price * p.fleet_factor if p.fleet_factor else None,
        ttft_mean_ms=est.ttft_ms,
        tpot_mean_ms=est.tpot_ms,
        band_metric=RANK_METRIC_FIELDS[rank_by],
        ttft_p99_band=est.ttft_p99_band,
        tpot_p99_band=est.tpot_p99_band,
        limits_at_risk=est.limits_at_risk,
        requests_in_flight=est.requests_in_flight,
        cluster_caveat=unstated_cluster_caveat(p.machine, est.gpu_count, "replica"),
        requests_per_s=est.requests_per_s,
        idle_gpus=p.idle_gpus,
        **_peak_spare_fields(p),
        copies_sharing_load=est.copies_sharing_load,
        one_copy_ttft_p99_ms=_one_copy_p99(est, 0),
        one_copy_tpot_p99_ms=_one_copy_p99(est, 1),
        spread_note=est.spread_note,
        software_era_note=era,
    )


def _one_copy_p99(est: InferenceEstimate, which: int) -> float | None:
    """The p99 TTFT (`which` 0) or TPOT (1) one copy alone would serve a fixed load at, where several copies share it
    (None where one copy would not keep up, or runs it alone)."""
    p99 = est.one_copy_p99_ms
    return p99[which] if p99 else None


def _peak_spare_fields(p: ConfigurationPricing) -> dict[str, Any]:
    """At a peak, the GPUs its whole rented instances bill beyond the replicas the peak needs, as /plan's rows carry
    them (idle_gpus_at_peak, fleet_note); none without a peak (found by tidy: the page said them, the JSON did not)."""
    instances = p.machine.instances(p.est.gpu_count, p.replicas)
    spare = instances * p.machine.instance_gpus - p.replicas * p.est.gpu_count if p.fleet_factor else 0
    if spare <= 0:
        return {}
    note = peak_row_spare_words(p.replicas, p.est.gpu_count, instances, p.machine.instance_gpus)
    return {"idle_gpus_at_peak": spare, "fleet_note": note, **_peak_spread_fields(p, instances)}


def _peak_spread_fields(p: ConfigurationPricing, instances: int) -> dict[str, Any]:
    """Where a peak row's spare GPUs hold whole copies, the peak's p99s spread over every copy its billed instances
    hold, said in place of 'spare at peak' (found by spread2); none where they hold no more copies, or where a copy
    would not keep up with its share. Its replicas and $ stay the sized fleet's."""
    solve, peak = p.est.peak_spread_p99, p.peak_load
    if solve is None or peak is None or p.machine.copies(p.est.gpu_count) * instances <= p.replicas:  # no room
        return {}
    copies, p99 = solve(peak, instances)
    if copies <= p.replicas or not p99:
        return {}
    count, billed = p.est.gpu_count, instances * p.machine.instance_gpus
    return {
        "copies_at_peak_if_spread": copies,
        "spread_ttft_p99_ms": p99[0],
        "spread_tpot_p99_ms": p99[1],
        "fleet_note": peak_spread_words(p.replicas, copies, count, billed, p99),
    }


def idle_gpus_words(idle_gpus: int, instances: int | None, instance_gpus: int) -> str:
    """Why a fixed load's one replica bills more GPUs than it runs on, in the words the page, the CLI and the row's
    machine text all say: 'one copy on a rented 8-GPU instance, 6 GPUs idle at this load' ('' with none idle). A
    traffic's fleet says its spare GPUs in other words (app.scoring.serving.spare_gpus)."""
    if not idle_gpus:
        return ""
    rented = "a rented" if (instances or 1) == 1 else f"{instances} rented"
    plural = "" if (instances or 1) == 1 else "s"
    return (
        f"one copy on {rented} {instance_gpus}-GPU instance{plural}, {idle_gpus} GPU{'s' if idle_gpus != 1 else ''} "
        "idle at this load"
    )


def _machine_text(p: ConfigurationPricing) -> str:
    """The offer's machine as the ranking read it, and at a fixed load the copies that share it on the instance
    (spread_load.spread_words) or the GPUs its one copy leaves idle."""
    idle = idle_gpus_words(p.idle_gpus, p.machine.instances(p.est.gpu_count, 1), p.machine.instance_gpus)
    note = p.est.spread_note or idle
    return p.machine.describe() + (f"; {note}" if note else "")


def infeasible_option(offer: Offer, p: ConfigurationPricing) -> InferenceOption:
    est = p.est
    return InferenceOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        tensor_parallel=est.tensor_parallel,
        pipeline_parallel=est.pipeline_parallel,
        attention_parallel=est.attention_parallel,  # an overloaded refusal's is the layout its capacity is
        expert_parallel=est.expert_parallel,
        machine=p.machine.describe(),
        **offer_fields(offer),
        min_term_hours=min_term_hours(offer.price_type, offer.min_term_hours),
        feasible=False,
        reason=est.reason,
        memory_gb=est.memory_gb,
    )
