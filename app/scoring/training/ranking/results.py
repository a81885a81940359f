"""What ranking a training workload returns: one TrainingOption per offer, the FrontierPoints of the cost-time
chart and the TrainingRanking that holds them; and how an offer's option is built, from its slot's shared terms
and run cost (priced_training_option) or from an estimate that does not fit (unfit_training_option)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date

from app.scoring.explain import Band, LazyTerms, Term
from app.scoring.hardware.machines import Machine, shared_rack_assumption, shared_rack_caveat
from app.scoring.pricing.offers import RowKey, offer_fields, with_assumption
from app.scoring.specs import Offer
from app.scoring.training.estimate import TrainingEstimate
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.ranking.slot_search import SharedTerms
from app.scoring.training.run.limit_words import deadline_at_risk_text
from app.scoring.training.run.offer_terms import RunCost, RunTerms
from app.scoring.training.run.run_explain import billing_note, run_terms_explained
from app.scoring.workload import TrainingWorkload


@dataclass(slots=True)  # not frozen: a frozen __init__ costs ~3 µs per offer
class TrainingOption:
    gpu_id: str
    gpu_count: int
    layout: str
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    feasible: bool  # fits, and finishes within the deadline and budget under the offer's terms
    reason: str
    close_call: bool = False  # another configuration whose band overlaps the winner's (the winner: one exists)
    terms: Sequence[Term] = field(default_factory=list)  # a priced option's are LazyTerms: written on the first read
    usd_per_step: float | None = None
    step_time_s: float | None = None
    tokens_per_s_per_gpu: float | None = None
    mfu: float | None = None
    total_hours: float | None = None  # expected wall time (spot: with interruptions)
    total_usd: float | None = None  # what the offer's terms charge for the run
    memory_per_gpu_gb: float | None = None  # None where no layout was sized (the GPU has no compute peak)
    band: Band | None = None  # low/high of total_usd, the ranked metric (close calls compare these bands)
    days: float | None = None
    billed_hours: float | None = None  # hours used rounded up to the billing unit, at least a committed minimum term
    expected_interruptions: float | None = None  # None on an option that does not fit
    billing_note: str = ""  # how billed hours and spot's lost hours follow from the terms ("" where billed = used)
    # a run across more nodes than one on an offer that does not state how many it supplies ("" otherwise)
    cluster_caveat: str = ""
    nodes: int = 1
    machine: str = ""
    price_note: str = ""
    price_caveats: tuple[str, ...] = ()  # price_terms.price_caveats of the note: labels a row shows
    price_source_url: str = ""  # where the price was read (the offer's source_url)
    stale: bool = False
    interruptible: bool = False
    offer_id: int | None = None
    assumptions: list[str] = field(default_factory=list)  # what the estimate assumes, its band's evidence last
    band_metric: str | None = None  # the field the band is on: total_usd (added last: a payload's new keys come last)
    # GB per GPU by part of the layout this row was sized at (memory.memory_breakdown_gb): what its memory chart
    # draws; None where no layout was sized
    memory_breakdown_gb: dict[str, float] | None = None
    # what an on-time run misses at its tokens/s band's slow end (deadline, budget), in words; "" where nothing
    deadline_at_risk: str = ""
    instance_type: str = ""  # the offer's instance as its provider names it ("" where the catalog has none)
    region: str = ""  # where the offer's price applies ("" where not stated)
    # the layout `layout` words, as fields (the estimate's Layout, shared by every offer of its configuration); None
    # where nothing was sized
    layout_detail: Layout | None = None
    # the parts live at the step's fullest moment (TrainingEstimate.memory_at_peak_gb): what its memory chart draws;
    # None where no layout fits
    memory_at_peak_gb: dict[str, float] | None = None

    def to_dict(self) -> dict:
        return asdict(replace(self, terms=list(self.terms)))  # LazyTerms written out, as asdict copies lists


@dataclass(frozen=True, slots=True)
class FrontierPoint:
    """One GPU count of a machine: how long the run takes and what it costs at the cheapest offer."""

    gpu_id: str
    gpu_count: int
    provider: str
    provider_name: str
    price_type: str
    days: float
    total_usd: float
    on_time: bool


@dataclass(frozen=True, slots=True)
class TrainingRanking:
    model_id: str
    options: Sequence[TrainingOption]  # best first; a LazyOptions builds each option on first access
    configurations_evaluated: int
    notes: list[str] = field(default_factory=list)
    feasible_count: int = 0  # the first feasible_count options are the feasible ones
    frontier: list[FrontierPoint] = field(default_factory=list)  # cost-time points of the leading machines
    row_keys: Sequence[RowKey] = ()  # per option, its (GPU, count, reason) without building the option
    leaders: Callable[[], list[TrainingOption]] = list  # the best feasible row of each configuration, best first
    # A feasible option's field by position, read without building the option where its estimate, offer or run
    # cost holds it (a view sorted by a column reads one field of every feasible option)
    sort_value: Callable[[int, str], object] | None = None
    deadline_max_gpus: int | None = None  # nothing on time and Max GPUs binds: the Max GPUs that would meet it

    def to_dict(self) -> dict:
        return {
            "model_id": self.model_id,
            "options": [o.to_dict() for o in self.options],
            "configurations_evaluated": self.configurations_evaluated,
            "notes": list(self.notes),
            "frontier": [asdict(p) for p in self.frontier],
        }


def priced_training_option(
    offer: Offer, s: SharedTerms, cost: RunCost, t: RunTerms, close: bool, band: Band, w: TrainingWorkload
) -> TrainingOption:
    est = s.est
    usd_step = s.usd_per_step(offer.usd_per_gpu_hour)

    def written() -> list[Term]:  # a page's leading rows and the rank API's terms=false never read them
        return [
            *est.terms,
            *run_terms_explained(t, est.gpu_count, offer.usd_per_gpu_hour, cost.total_usd, w, est.step_time_s),
        ]

    return TrainingOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        layout=est.layout_text,
        layout_detail=est.layout,
        nodes=s.nodes,
        machine=s.machine.describe(),
        **offer_fields(offer, shared_rack_caveat(s.machine, est.gpu_count)),
        feasible=cost.on_time,
        reason=cost.reason,
        close_call=close,
        terms=LazyTerms(written),
        assumptions=with_assumption(est.assumptions, shared_rack_assumption(s.machine, est.gpu_count)),
        usd_per_step=usd_step,
        step_time_s=est.step_time_s,
        tokens_per_s_per_gpu=est.tokens_per_s_per_gpu,
        mfu=est.mfu,
        total_hours=cost.wall_hours,
        days=cost.wall_hours / 24,
        total_usd=cost.total_usd,
        billed_hours=cost.billed_hours,
        expected_interruptions=cost.interruptions,
        billing_note=billing_note(t),
        cluster_caveat=s.cluster_caveat,
        memory_per_gpu_gb=est.memory_per_gpu_gb,
        band=band,
        band_metric="total_usd",
        memory_breakdown_gb=est.memory_breakdown_gb,
        memory_at_peak_gb=est.memory_at_peak_gb or None,
        deadline_at_risk=""
        if not cost.on_time
        else deadline_at_risk_text(cost.wall_hours, s.band_high, band.high, w.max_days, w.budget_usd, t.startup_hours),
    )


def unfit_training_option(offer: Offer, est: TrainingEstimate, machine: Machine) -> TrainingOption:
    return TrainingOption(
        gpu_id=offer.gpu_id,
        gpu_count=est.gpu_count,
        layout=est.layout_text,
        layout_detail=est.layout,
        machine=machine.describe(),
        **offer_fields(offer),
        feasible=False,
        reason=est.reason,
        terms=list(est.terms),  # written out (LazyTerms), as asdict copies lists
        assumptions=est.assumptions,
        memory_per_gpu_gb=est.memory_per_gpu_gb if est.memory_breakdown_gb else None,
        memory_breakdown_gb=est.memory_breakdown_gb or None,
    )
