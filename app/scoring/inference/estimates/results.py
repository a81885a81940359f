"""What estimating an inference configuration returns: the solved operating point (Solution), the explained
estimate (InferenceEstimate) and, over the latency limits, the lowest p99 a machine reaches (LowestP99)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from typing import NamedTuple

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.explain import Band, Term, WrittenOnce, read_once
from app.scoring.inference.bands.latency_bands import BandRegime
from app.scoring.inference.bands.limits import ON_ESTIMATE, at_band_high, limit_multiples
from app.scoring.inference.batching.batch_job import JobPlan
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.inference.step.context import InferenceContext
from app.scoring.records import hot_record
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload

# A refusal's bands: none. One value serves every estimate (Band is frozen); a ranking refuses ~80 (Llama 70B) to
# ~200 (DeepSeek-R1) layouts, and three bands built per refusal were a fifth of building it (speed11).
NO_BAND = Band(0.0, 0.0)


@hot_record
class InferenceEstimate:
    feasible: bool
    # `reason` in words; a refusal at the latency limits writes them on the first read (estimate._solve)
    reason_words: str | WrittenOnce[str]
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    # `memory_gb`; a refusal at the latency limits writes its footprint on the first read
    memory_footprint_gb: dict[str, float] | WrittenOnce[dict[str, float]] = field(default_factory=dict)
    max_batch: int = 0
    batch: int = 0
    ttft_ms: float = 0.0  # mean
    tpot_ms: float = 0.0  # mean
    ttft_median_ms: float = 0.0  # Poisson arrivals: the M/D/1 prefill wait at its median; closed loops: the mean
    ttft_p99_ms: float = 0.0  # OperatingPoint.ttft_p99_ms (mean x p99_ttft_over_mean): what the TTFT limit bounds
    tpot_p99_ms: float = 0.0  # mean x p99_over_mean (MLPerf LoadGen)
    output_tokens_per_s: float = 0.0
    output_tokens_per_s_per_gpu: float = 0.0
    requests_per_s: float = 0.0  # one replica sustains (queueing.sustained_requests_per_s); a batch job's over the job
    terms: Sequence[Term] = field(default_factory=list)  # LazyTerms when explained: written on the first read
    band: Band = NO_BAND
    ttft_p99_band: Band = NO_BAND  # ms (latency_bands)
    tpot_p99_band: Band = NO_BAND  # ms
    bound: str = ""
    # `assumptions`; an explained estimate writes its notes on the first read (explain_estimate._assumptions)
    assumption_notes: list[str] | WrittenOnce[list[str]] = field(default_factory=list)
    attention_parallel: str = "tp"  # "dp": data-parallel attention over the TP group (context.InferenceContext)
    expert_parallel: str = "tp"  # "ep": MoE experts placed whole over the TP group (busiest_group_coverage)
    job_hours: float | None = None  # a batch job (workload.job_requests): each replica's; tok/s is the job's
    job_replicas: int = 1  # replicas the job is split over to meet its deadline
    misses_limits: bool = False  # infeasible though the model fits: its latency limits or request rate are not met
    over_limits: str = ""  # feasible at a live-traffic load but over a latency limit, in words (limits.py)
    # `limits_at_risk`: meets the limits, but a p99 at its band's slow end would not (limits.limits_at_risk); an
    # explained estimate writes the words on the first read (a ranking explains every slot's layout, shows few rows)
    limits_at_risk_words: str | WrittenOnce[str] = ""
    # Over the limits: the lowest p99 TTFT and TPOT any layout the machine supplies reaches at this load
    # (configurations.best_on_machine); the estimate API writes each as [ms, GPUs, tensor parallel, pipeline parallel]
    lowest_p99: LowestP99 | None = None
    # Meets the latency limits only below one request in flight (Solution.light_load): the mean requests in flight
    # at the load that meets them, under 1 (`batch` is then 1, the most that runs at once); None otherwise
    requests_in_flight: float | None = None
    # A fixed load spread over the copies its rented instances hold (spread_load.py): the copies, each estimated at its
    # share; `one_copy_p99_ms` and `spread_note`, written on the first read (configurations._spread)
    copies_sharing_load: int = 1
    one_copy_p99: tuple[float, ...] | WrittenOnce[tuple[float, ...]] = ()
    spread_words: str | WrittenOnce[str] = ""
    # At a peak, by the peak workload and the instances a row bills: every copy of the layout they hold, and the p99
    # TTFT and TPOT the peak's load spread over them runs at (() where a copy would not keep up), solved when first
    # asked (configurations.peak_spread_solver; found by spread2). The peak is an argument: estimates are cached
    # without it
    peak_spread_p99: Callable[[InferenceWorkload, int], tuple[int, tuple[float, ...]]] | None = None
    # An open loop above a layout's capacity: the requests/s one copy keeps up with at most (refusals.overload_reason),
    # which a ranking compares across the instance's layouts (spread_load.more_copies_words); None otherwise
    keeps_up_with_per_s: float | None = None
    # The fitted constants standing for the software stack (efficiency.inference.SOFTWARE_CONSTANTS) it reads: a row
    # says when the builds behind them are old (explanation.software_era)
    software_constants: tuple[str, ...] = ()
    # Refused at the latency limits with one request in flight: the least p99 TTFT and TPOT limits it would meet
    # (estimate._limits_needed), written on the first read; () otherwise. A ranking with nothing feasible orders its
    # refusals by it (ranking.nearest_miss)
    limits_needed: tuple[float, ...] | WrittenOnce[tuple[float, ...]] = ()

    @property
    def reason(self) -> str:
        return read_once(self.reason_words)

    @property
    def limits_needed_ms(self) -> tuple[float, float] | None:
        """The least p99 TTFT and TPOT limits a refusal at the limits would meet (None for any other estimate)."""
        needed = read_once(self.limits_needed)
        return (needed[0], needed[1]) if needed else None

    @property
    def one_copy_p99_ms(self) -> tuple[float, float] | None:
        """With copies sharing a fixed load, the p99 TTFT and TPOT one copy alone would serve it at; None where it
        would not keep up, and with one copy."""
        p99 = read_once(self.one_copy_p99)
        return (p99[0], p99[1]) if p99 else None

    @property
    def spread_note(self) -> str:
        """The copies sharing a fixed load in words (spread_load.spread_words), '' for one copy."""
        return read_once(self.spread_words)

    @property
    def assumptions(self) -> list[str]:
        """The estimate's assumption notes, the band's evidence last."""
        return read_once(self.assumption_notes)

    @property
    def limits_at_risk(self) -> str:
        return read_once(self.limits_at_risk_words)

    @property
    def memory_gb(self) -> dict[str, float]:
        """GB per GPU by part; a refusal's footprint is the one before any KV cache."""
        return read_once(self.memory_footprint_gb)


class P99Reach(NamedTuple):
    """The lowest p99 latency a machine's layouts reach at a load, and the layout reaching it (ordered: lowest
    first, then the fewest GPUs)."""

    p99_ms: float
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    copies: int = 1  # a fixed load spread over this many copies of the layout, each at its share (spread_load.py)


class LowestP99(NamedTuple):
    """Where a machine serves a load only over the latency limits: the lowest p99 TTFT and TPOT it reaches."""

    ttft_p99_ms: P99Reach
    tpot_p99_ms: P99Reach


class DpAttentionTried(NamedTuple):
    """Data-parallel attention where auto tried it and the split by heads served more tokens/s: its operating point,
    or its refusal (it misses the limits at any load, or holds no request); neither where it is overloaded."""

    solution: Solution | None = None
    refusal: InferenceEstimate | None = None


@hot_record
class Solution:
    """A feasible configuration's operating point, before its explanation is written (rankings compare
    several tensor-parallel degrees per GPU type and explain only the one they keep)."""

    gpu: GpuSpec
    gpu_count: int
    model: ModelSpec
    workload: InferenceWorkload
    tensor_parallel: int
    pipeline_parallel: int
    ctx: InferenceContext
    point: OperatingPoint
    batch: int
    max_batch: int
    efficiency: InferenceEfficiency
    job: JobPlan | None = None  # a batch job (workload.job_requests): its replicas and each one's share
    # latency_bound met only below one request in flight (loops.light_load_point): point.batch, the mean running
    # batch, is under 1 and `batch` is 1, the most that runs at once for the memory it holds
    light_load: bool = False
    # attention_parallel auto: data-parallel attention as it was tried beside this split by heads, which served more
    # (explanation/dp_attention_note.py says why it lost); None where it was not tried or won
    # (solved when first read: a ranking's ceiling may have skipped its search, and the note reads the same either way)
    dp_attention_tried: WrittenOnce[DpAttentionTried] | None = None

    @property
    def output_tokens_per_s_per_gpu(self) -> float:
        return self.point.tokens_per_s / self.gpu_count

    @property
    def band_regime(self) -> BandRegime:
        return band_regime(self.gpu, self.model, self.workload, self.ctx, self.pipeline_parallel)

    @property
    def limit_multiples(self) -> tuple[float, float]:
        """The p99 TTFT and TPOT multiples at which the workload's limits are checked (limits.limit_multiples)."""
        if not at_band_high(self.workload):  # on the estimate: no band looked up
            return ON_ESTIMATE
        return limit_multiples(self.workload, self.band_regime)


def band_regime(
    gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload, ctx: InferenceContext, pipeline_parallel: int
) -> BandRegime:
    """The regime an estimate's bands are looked up by."""
    return BandRegime(
        ctx.engine,
        gpu.vendor,
        workload.weight_dtype,
        "moe" if model.is_moe else "dense",
        ctx.tp_nodes > 1,
        pipeline_parallel,
        workload.scenario,
    )
