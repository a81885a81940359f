"""Single estimates on the machine that would supply them: the same feasibility rule as the rankings.

Without an offer, a configuration is judged on one machine of the GPU's own kind with no fabric, said as a
ranking says an offer of that many GPUs (machines.estimate_machine: one GPU a 1-GPU node, PCIe cards a server of
the GPUs asked for up to 8, an HGX board or NVL72 rack otherwise); with `offer_id`, on that offer's machine (GPUs
per node, link, fabric, node limit). So an estimate accepts exactly what a ranking could build.
"""

from __future__ import annotations

from typing import Any

from app.scoring.hardware.engine_support import unsupported_reason
from app.scoring.hardware.gpu_gaps import fill_missing_peaks
from app.scoring.hardware.machines import Machine, estimate_machine, machine_of, span_reason
from app.scoring.inference.estimates.configurations import estimate_on as estimate_inference_on
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.input_checks.messages import FieldError
from app.scoring.specs import CatalogSnapshot, GpuSpec, Offer
from app.scoring.training.configurations import estimate_on as estimate_training_on
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.catalog_ids import catalog_id, unknown_one_message
from app.service.estimate_offer import catalog_offer, offer_refusal
from app.service.rank.answer_body import weights_body
from app.service.rank.model_spec import UnknownId, model_spec_for
from app.service.rank.plain import mean_latencies, plain
from app.service.superseded_offer import superseded_body

# What an estimate measures: null where the configuration cannot run (no latency, no tokens: never 0, which a
# filter such as ttft_p99_ms <= limit would take for a fast answer).
INFERENCE_MEASURES = (
    "max_batch",
    "batch",
    "ttft_ms",
    "tpot_ms",
    "ttft_median_ms",
    "ttft_p99_ms",
    "tpot_p99_ms",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "band",
    "ttft_p99_band",
    "tpot_p99_band",
    "job_replicas",
    "requests_in_flight",
    "requests_per_s",
)
TRAINING_MEASURES = ("tokens_per_s_per_gpu", "mfu", "step_time_s", "band")


# InferenceEstimate's fields that hold what its `reason`, `memory_gb`, `assumptions` and `limits_at_risk` read (each
# may be written when first read)
_READ_AS = {
    "reason_words": "reason",
    "memory_footprint_gb": "memory_gb",
    "assumption_notes": "assumptions",
    "limits_at_risk_words": "limits_at_risk",
}
# InferenceEstimate's fields a ranking's fixed load fills (its copies sharing the load: estimates.spread_load): one
# configuration's estimate is one copy at the load asked, and says none of them; keeps_up_with_per_s is in its reason.
# software_constants: what a ranked row dates against its price (software_era_note); an estimate has no price, and
# its terms say how old the builds are. limits_needed: how a ranking with nothing feasible orders its refusals (an
# estimate's refusal says its latencies in its reason).
_RANKING_ONLY = frozenset(
    {
        "copies_sharing_load",
        "one_copy_p99",
        "spread_words",
        "peak_spread_p99",
        "keeps_up_with_per_s",
        "software_constants",
        "limits_needed",
    }
)


def _inference_plain(est: InferenceEstimate) -> dict[str, Any]:
    """plain(est) under the API's names, `reason`, `memory_gb`, `assumptions` and `limits_at_risk` as read, in the
    fields' order."""
    return {
        _READ_AS.get(name, name): plain(getattr(est, _READ_AS[name])) if name in _READ_AS else value
        for name, value in plain(est).items()
        if name not in _RANKING_ONLY
    }


def _measured(body: dict[str, Any], measures: tuple[str, ...]) -> dict[str, Any]:
    """The estimate's body with its measures null where it is infeasible."""
    return body if body["feasible"] else {**body, **dict.fromkeys(measures)}


class BadEstimateRequest(FieldError):
    """A field of the estimate request that does not resolve (unknown GPU or offer, or they disagree)."""


def _machine(
    snapshot: CatalogSnapshot, gpu_id: str, gpu_count: int, offer_id: int | None
) -> tuple[GpuSpec, Machine, Offer | None]:
    """The GPU and its machine (the offer's, where one is given), or BadEstimateRequest naming an unknown GPU and an
    unknown or mismatched offer at once."""
    gpu = snapshot.gpus.get(catalog_id(snapshot, "gpus", gpu_id))  # answered under the catalog's id
    errors = {} if gpu is not None else {"gpu": unknown_one_message(snapshot, "gpus", gpu_id)}
    refusal = None if offer_id is None else offer_refusal(snapshot, offer_id, gpu.id if gpu else None)
    if refusal is not None:
        errors["offer_id"] = refusal
    if errors:
        field, message = next(iter(errors.items()))
        raise BadEstimateRequest(field, message, errors)
    assert gpu is not None
    offer = None if offer_id is None else catalog_offer(snapshot, offer_id)
    if offer is None:
        return gpu, estimate_machine(gpu, gpu_count), None
    return gpu, machine_of(offer, gpu), offer


def inference_estimate(
    workload: InferenceWorkload,
    snapshot: CatalogSnapshot,
    gpu_id: str,
    gpu_count: int,
    tensor_parallel: int | None,
    pipeline_parallel: int,
    offer_id: int | None,
) -> dict[str, Any]:
    (gpu, machine, offer), model = _resolved(workload, snapshot, gpu_id, gpu_count, offer_id)
    workload, weights = release_weights(workload, model, snapshot.quality)  # as the ranking that lists it
    pp = max(pipeline_parallel, 1)
    tp = tensor_parallel or max(gpu_count // pp, 1)
    est = estimate_inference_on(gpu, machine, gpu_count, tp, pp, model, workload)
    body = _without_offer(
        _measured({**_inference_plain(est), "machine": machine.describe()}, INFERENCE_MEASURES),
        machine,
        gpu_count,
        offer_id,
    )
    # explicit names of the means (ttft_ms and tpot_ms are their deprecated names), and what the band is of
    return {
        **body,
        **mean_latencies(body["ttft_ms"], body["tpot_ms"]),
        "band_metric": "output_tokens_per_s" if est.feasible else None,
        "weights": weights_body(weights),
        "offer_superseded": superseded_body(offer, snapshot),
    }


def training_estimate(
    workload: TrainingWorkload, snapshot: CatalogSnapshot, gpu_id: str, gpu_count: int, offer_id: int | None
) -> dict[str, Any]:
    (gpu, machine, offer), model = _resolved(workload, snapshot, gpu_id, gpu_count, offer_id)
    filled, _note = fill_missing_peaks(gpu, snapshot.gpus)
    est = estimate_training_on(filled, machine, gpu_count, model, workload)
    body = _without_offer(
        _measured({**plain(est), "machine": machine.describe()}, TRAINING_MEASURES), machine, gpu_count, offer_id
    )
    if not est.memory_breakdown_gb:  # no layout was sized (the machine refuses the count, or no compute peak)
        body["memory_per_gpu_gb"] = None
    if not est.flops_per_token:  # refused before the model was read
        body["flops_per_token"] = None
    return {
        **body,
        "band_metric": "tokens_per_s_per_gpu" if est.feasible else None,
        "offer_superseded": superseded_body(offer, snapshot),
    }


def _without_offer(body: dict[str, Any], machine: Machine, gpu_count: int, offer_id: int | None) -> dict[str, Any]:
    """Without an offer, a count beyond one machine fails for want of a fabric the question never chose: say so,
    and how to span nodes, rather than blame an offer that was not given."""
    if offer_id is not None or body["reason"] != span_reason(machine, gpu_count):
        return body
    reason = (
        f"{gpu_count} GPUs span nodes of {machine.gpus_per_node}: without an offer_id the estimate assumes one "
        f"{machine.describe()} with no inter-node fabric; give the offer_id of an offer with one"
    )
    return {**body, "reason": reason}


def _resolved(
    workload: InferenceWorkload | TrainingWorkload,
    snapshot: CatalogSnapshot,
    gpu_id: str,
    gpu_count: int,
    offer_id: int | None,
) -> tuple[tuple[GpuSpec, Machine, Offer | None], Any]:
    """The machine and the model, or BadEstimateRequest naming every field found wrong at once: an unknown GPU (or
    offer) beside an unknown model or a model check, and an inference engine that does not run on the GPU."""
    errors: dict[str, str] = {}
    machine = model = None
    try:
        machine = _machine(snapshot, gpu_id, gpu_count, offer_id)
    except BadEstimateRequest as exc:
        errors.update(exc.errors)
    try:
        model = model_spec_for(workload, snapshot)
    except UnknownId as exc:
        errors.update({k: v for k, v in exc.errors.items() if k not in errors})
    if machine is not None and isinstance(workload, InferenceWorkload):
        unsupported = unsupported_reason(workload.engine, machine[0])
        if unsupported is not None:
            errors.setdefault("engine", unsupported)
    if machine is None or model is None or errors:
        field, message = next(iter(errors.items()))
        raise BadEstimateRequest(field, message, errors)
    return machine, model
