"""One (GPU, machine) slot of a training ranking: the counts its machine supplies and the best estimate among them
(SlotSearch), why the machine or Max GPUs stops that estimate short, and what every offer of the slot shares when it
is priced (SharedTerms)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.scoring.efficiency import training as eff
from app.scoring.hardware.cluster_caveat import unstated_cluster_caveat
from app.scoring.hardware.machines import Machine, job_gpu_limit, machine_gpu, nodes_for, supply_limit_reason
from app.scoring.pricing.price_terms import interruptions_per_node_month, spot_run
from app.scoring.specs import GpuSpec
from app.scoring.training.configurations import machine_efficiency
from app.scoring.training.estimate import TrainingEstimate, unrented_estimate
from app.scoring.training.ranking.count_search import (
    LayoutMemo,
    RunWall,
    best_estimate,
    count_grid,
    min_fitting_count,
    slow_end_steps,
    whole_nodes,
)
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.run.deadline import LARGEST_MAX_GPUS, count_meeting_deadline, max_gpus_stop
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class SharedTerms:
    """What every offer of one (GPU, machine) shares; an offer multiplies by its price under its terms.

    usd/step = (step × count) × price / 3600 and work hours × count × price: the same operations in
    the same order as pricing each offer from the estimate."""

    est: TrainingEstimate
    machine: Machine
    step_x_count: float
    work_hours: float  # without interruptions
    band_low: float  # ratios applied to the hours used: tok/s ÷ band high, tok/s ÷ band low (billed_band_ratios)
    band_high: float
    nodes: int
    cluster_caveat: str  # cluster_caveat.unstated_cluster_caveat

    @classmethod
    def of(cls, est: TrainingEstimate, machine: Machine, w: TrainingWorkload) -> SharedTerms | None:
        if not est.feasible:
            return None
        tok = est.tokens_per_s_per_gpu
        return cls(
            est=est,
            machine=machine,
            step_x_count=est.step_time_s * est.gpu_count,
            work_hours=w.total_tokens / (est.gpu_count * tok) / 3600,
            band_low=tok / est.band.high,
            band_high=tok / est.band.low,
            nodes=nodes_for(machine, est.gpu_count),
            cluster_caveat=unstated_cluster_caveat(machine, est.gpu_count),
        )

    def usd_per_step(self, usd_per_gpu_hour: float) -> float:
        return self.step_x_count * usd_per_gpu_hour / 3600


class SlotSearch:
    """Per (GPU, machine): the machine's GPU as wired, the GPU counts it supplies, its layout search."""

    def __init__(self, gpu: GpuSpec, machine: Machine, fits: LayoutSearch, w: TrainingWorkload) -> None:
        self.machine = machine
        self.gpu = machine_gpu(gpu, machine)
        cap = self.cap = min(w.max_gpus, machine.gpus_per_node * machine.node_limit(w.max_gpus))
        self.limit_reason = supply_limit_reason(machine, w.max_gpus)  # None: Max GPUs stops a job first
        self.search = fits.capped(cap, machine_efficiency(machine, eff.DEFAULT_TRAINING_EFFICIENCY))
        self.allowed = whole_nodes(machine)
        self.memo: LayoutMemo = {}

    def best(self, deadline_hours: float, run_wall: RunWall | None = None) -> TrainingEstimate:
        """The slot's count (count_search.best_estimate) for the workload's deadline, checked as its rows check it
        (`run_wall`: on spot, as a spot row adds its interruptions: spot_wall)."""
        instance = self.machine.instance_gpus
        if instance > self.cap:  # no whole instance within Max GPUs: part of one bills all its GPUs
            return unrented_estimate(
                self.gpu, instance, self.search.model, self.search.workload, instance_reason(instance, self.cap)
            )
        return best_estimate(self.gpu, self.search, self.memo, self.allowed, deadline_hours, run_wall)

    def spot_wall(self, provider_id: str, w: TrainingWorkload) -> RunWall:
        """A count's wall hours on the provider's spot capacity, as run_terms adds its interruptions (a run that would
        lose too much to them is never on time)."""
        rate = interruptions_per_node_month(provider_id, w.interruptions_per_node_month)

        def wall(gpu_count: int, run_hours: float) -> float:
            run = spot_run(run_hours, nodes_for(self.machine, gpu_count), rate, w.checkpoint_interval_hours)
            return run.wall_hours if run.feasible else math.inf

        return wall

    def stopped_by_machine(self, est: TrainingEstimate) -> str:
        """Why the machine stops this estimate short ("" where Max GPUs or nothing does): no count within its limit
        holds the model, or the count chosen is all it supplies (a run too slow for the deadline needs more)."""
        if self.limit_reason is None or (est.feasible and est.gpu_count < self.cap):
            return ""
        return self.limit_reason if est.feasible or est.memory_breakdown_gb else ""

    def stopped_by_max_gpus(self, est: TrainingEstimate, w: TrainingWorkload) -> str:
        """Max GPUs' part where it, not the machine, stops a run that fits ("" otherwise): the count chosen is the
        largest Max GPUs lets this machine run (a run too slow for the deadline at it needs more)."""
        if self.limit_reason is not None:
            return ""
        if not est.feasible:
            return self._fits_above_max_gpus(est, w)
        top = max((n for n in self.grid(self.cap) if self.allowed(n)), default=0)
        return max_gpus_stop(w, est.gpu_count) if est.gpu_count == top else ""

    def _fits_above_max_gpus(self, est: TrainingEstimate, w: TrainingWorkload) -> str:
        """Where the model does not fit within Max GPUs but the machine supplies a count it fits on: that count."""
        if not est.memory_breakdown_gb:  # nothing sized: no count would say more
            return ""
        limit = min(LARGEST_MAX_GPUS, job_gpu_limit(self.machine) or LARGEST_MAX_GPUS)
        if limit <= w.max_gpus:
            return ""
        wider = self.search.for_machine(self.search.workload.model_copy(update={"max_gpus": limit}), self.search.e)
        fitting = min_fitting_count(self.gpu, wider, self.allowed)
        if fitting is None:
            return ""
        return f"{max_gpus_stop(w, est.gpu_count)}: it fits on {fitting:,}; raise Max GPUs to {fitting:,}"

    def grid(self, limit: int) -> tuple[int, ...]:
        """The candidate counts up to `limit` for this machine's GPU (candidate_counts from 1)."""
        return count_grid(limit, self.gpu.scaleup_domain_gpus)

    def count_meeting_deadline(self) -> int | None:
        """deadline.count_meeting_deadline of this machine, where Max GPUs binds before the machine's own limit."""
        if self.limit_reason is not None:
            return None
        steps, supply = slow_end_steps(self.gpu, self.search.workload), job_gpu_limit(self.machine)
        return count_meeting_deadline(self.gpu, self.search, self.allowed, self.grid, supply, steps)


def instance_reason(instance_gpus: int, max_gpus: int) -> str:
    """Why an offer rented as whole instances larger than Max GPUs runs nothing: a job on part of an instance
    pays for all of it (whole_nodes)."""
    return (
        f"rented as {instance_gpus}-GPU instances, which bill all {instance_gpus} GPUs: above Max GPUs "
        f"({max_gpus:,}); raise Max GPUs to {instance_gpus} to rank it"
    )
