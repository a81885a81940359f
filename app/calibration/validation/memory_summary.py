"""Training memory against published peaks: each covered case's fields, and the summary over the runs.

A run's rows (`nt-00001-1` tokens/s, `nt-00001-2` step time) share one published peak: the summary counts it once.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.calibration.validation.cases import CasePrediction
from app.calibration.validation.summary import quantile

MEMORY_WITHIN_PCT = 15.0  # a memory estimate within ±15 % of the published peak counts as close

# What each memory field of a case means (the JSON of `gpumatch validate` carries these beside the values).
MEMORY_FIELDS = {
    "memory_measured_gb": "peak memory per GPU the row's notes publish, in 10^9 bytes (GiB read as 2^30 bytes; "
    "torchtitan's logged peaks are GiB whatever the publication's heading says)",
    "memory_predicted_gb": "memory per GPU the estimator sizes the same setup at (the layout, recompute, optimizer, "
    "offload and batch the tokens/s prediction uses) at its step's fullest moment (step_peak.StepPeak: the backward's "
    "start or the optimizer step), without the runtime reserve, which the allocator's peaks do not count either; a "
    "cumulative table's row above its chunked loss with an unfused one; activations as the stack's eager layer "
    "stores them (torchtune, HF Trainer), a row that ran compiled or on XTuner's fused kernels with the fused count; "
    "activation offloading and the optimizer step in the backward, where the row states them, with the workload's "
    "options of those names, and a CPU offload on FSDP as FSDP's (offload cpu_weights); in 10^9 bytes",
    "memory_published": "the peak as the notes write it",
    "memory_quantity": "which peak the source measured: reserved (torchtitan logs the allocator's reserved peak), "
    "active (torchtune's active peak, allocated memory) or unstated",
    "memory_layout": "the layout the prediction was sized at, in words",
    "memory_unmodelled": "memory features the run stated that the prediction does not model (activation offloading "
    "or the optimizer step in the backward where the row's stack takes no such option), comma-separated; empty where "
    "none",
}


def memory_fields(memory: dict | None) -> dict:
    """A case's flat memory fields (MEMORY_FIELDS), none where its row publishes no peak."""
    if memory is None:
        return {}
    return {f"memory_{key}": value for key, value in memory.items()}


def run_id(case_id: str) -> str:
    """The run a row belongs to: its case id without the metric index (`nt-00001-2` -> `nt-00001`)."""
    return case_id.rsplit("-", 1)[0]


def memory_summary(predictions: Iterable[CasePrediction]) -> dict:
    """Runs with a published peak, and the median absolute and signed error of the memory predicted for them."""
    errors: dict[str, float] = {}
    for p in predictions:
        if p.memory is not None:
            m = p.memory
            errors.setdefault(run_id(p.case_id), (m.predicted_gb - m.measured_gb) / m.measured_gb * 100)
    values = list(errors.values())
    absolute = [abs(e) for e in values]
    return {
        "rows": len(values),
        "median_abs_pct_error": quantile(absolute, 0.5),
        "signed_median_pct_error": quantile(values, 0.5),
        "within_15pct_share": sum(a <= MEMORY_WITHIN_PCT for a in absolute) / len(absolute) if absolute else None,
        "fields": MEMORY_FIELDS,
    }
