"""What the workload form offers (catalog choices, enums) and what it shows (values to refill)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, get_args

from app.scoring.pricing.snapshot_memo import MemoKind
from app.scoring.serving.traffic.week import DEFAULT_REQUESTS_PER_DAY, Traffic
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import (
    AttentionParallel,
    Dtype,
    Engine,
    ExpertParallel,
    Framework,
    InferenceWorkload,
    Method,
    ModelChoice,
    Offload,
    Optimizer,
    Precision,
    PriceType,
    RankBy,
    Scenario,
    TrainingWorkload,
    WeightDtype,
)
from app.service.query.custom_model import ARCH_PREFIX
from app.service.query.question import ParsedQuery
from app.service.query.values import LIST_FIELDS

CHOICES = {
    "dtypes": get_args(Dtype),  # the KV cache's
    "weight_dtypes": get_args(WeightDtype),
    "engines": get_args(Engine),
    "scenarios": get_args(Scenario),
    "methods": get_args(Method),
    "precisions": get_args(Precision),
    "frameworks": get_args(Framework),
    "optimizers": get_args(Optimizer),
    "offloads": get_args(Offload),
    "attention_parallels": get_args(AttentionParallel),
    "expert_parallels": get_args(ExpertParallel),
    "rank_by_choices": get_args(RankBy),
}


# Beyond this many sellers the provider filter is a text field of ids: a wall of checkboxes is no longer a
# usable control, and it would make every page's size and render time grow with the number of sellers.
PROVIDER_CHECKBOXES_MAX = 60


def filter_choices(snapshot: CatalogSnapshot) -> dict[str, Any]:
    """What the offer filters (_form.html's offer_filters) offer: the sellers, vendors and GPUs with an offer."""
    offered_gpus = sorted({o.gpu_id for o in snapshot.offers})
    return {
        "price_types": get_args(PriceType),
        "vendors": sorted({snapshot.gpus[g].vendor for g in offered_gpus if g in snapshot.gpus}),
        "providers": sorted({(o.provider_id, o.provider_name) for o in snapshot.offers}, key=lambda p: p[1].lower()),
        "gpus": offered_gpus,
        "provider_checkboxes_max": PROVIDER_CHECKBOXES_MAX,
    }


# Fields a form convenience also sets (tokens/s per user sets the TPOT limit, optimizer steps the token budget): a
# form shows them empty while at their default, the default as a placeholder, so typing the convenience does not
# also send the default (two values for one setting: an error naming both).
CONVENIENCE_TARGETS = {
    "tpot_ms": InferenceWorkload.model_fields["tpot_ms"].default,
    "total_tokens": TrainingWorkload.model_fields["total_tokens"].default,
}


def convenience_targets_blank(state: dict[str, Any], prefix: str = "", typed: Collection[str] = ()) -> dict[str, Any]:
    """`state` with each convenience target (under `prefix`) that holds its default shown empty, unless `typed`
    (after an error the form shows what was typed)."""
    for name, default in CONVENIENCE_TARGETS.items():
        if prefix + name not in typed and state.get(prefix + name) == default:
            state[prefix + name] = ""
    return state


# An inference form's weight precision left unset: the model's release precision, which the blank choice names.
UNSET_WEIGHTS = ""
FORM_LISTS: MemoKind[dict[str, Any]] = MemoKind("form_lists")  # catalog_lists, once per snapshot
RELEASE_CHOICE = {
    "fp8": "the release's (FP8)",
    "mxfp4": "the release's (MXFP4, as int4 W4A16)",
    "bf16": "the release's (BF16)",
}
UNKNOWN_RELEASE_CHOICE = "the release's (BF16 assumed)"


def release_choices(snapshot: CatalogSnapshot) -> dict[str, str]:
    """Each catalog model's blank weight-precision choice, naming the precision it stands for."""
    return {m.id: RELEASE_CHOICE.get(m.release_precision, UNKNOWN_RELEASE_CHOICE) for m in snapshot.models.values()}


def weights_as_given(values: dict[str, Any], given: Collection[str]) -> dict[str, Any]:
    """`values` with weight_dtype shown blank (the release's) unless the question gave it (`given`: its fields set)."""
    if "weight_dtype" in values and "weight_dtype" not in given:
        values["weight_dtype"] = UNSET_WEIGHTS
    return values


def catalog_lists(snapshot: CatalogSnapshot) -> dict[str, Any]:
    """Every workload form's catalog choices, the offer filters' under `filter_choices`; they depend on the snapshot
    only, so they are worked out once per snapshot."""

    def build() -> dict[str, Any]:
        models = sorted(snapshot.models.values(), key=lambda m: m.name.lower())
        return {
            "model_choices": models,
            "filter_choices": filter_choices(snapshot),
            # a settings box opens where one differs
            "workload_defaults": weights_as_given(InferenceWorkload().model_dump(), ()),
            "release_choices": release_choices(snapshot),
            "field_defaults": CONVENIENCE_TARGETS,
            **CHOICES,
        }

    lists = snapshot.memo.get(FORM_LISTS, (), build)
    return dict(lists)  # a copy: the memo's own dict is never handed out


def workload_form_values(workload: ModelChoice, exclude_none: bool = True) -> dict[str, Any]:
    """A workload (or another question about a model: the GPU mix's) as its form fields: a custom architecture
    selects "custom" and fills the arch_ fields, so a form resubmitted from any page keeps the model it answered for."""
    values = weights_as_given(workload.model_dump(exclude_none=exclude_none), workload.model_fields_set)
    if workload.custom_model is not None:
        values["model"] = "custom"
        values.update({ARCH_PREFIX + k: v for k, v in workload.custom_model.model_dump().items()})
    return values


def traffic_values(traffic: Traffic | None, typed: dict[str, Any]) -> dict[str, Any]:
    """A traffic as its form fields: what was asked (or, after an error, typed) over the defaults, the daily count
    left blank where a peak rate was given instead (the two exclude each other, so a resubmit keeps the peak)."""
    if traffic is not None:
        asked = traffic.model_dump(exclude_none=True)
    else:
        asked = {k: v for k, v in typed.items() if k in Traffic.model_fields}
    values: dict[str, Any] = {**Traffic().model_dump(), "requests_per_day": DEFAULT_REQUESTS_PER_DAY, **asked}
    if asked.get("peak_requests_per_s") not in (None, "") and asked.get("requests_per_day") in (None, ""):
        values["requests_per_day"] = ""
    return values


def form_state(parsed: ParsedQuery | None) -> dict[str, Any]:
    """Defaults of the phase, then the parsed workload (or, after an error, exactly what was typed)."""
    phase = parsed.phase if parsed else "inference"
    defaults = weights_as_given((InferenceWorkload() if phase == "inference" else TrainingWorkload()).model_dump(), ())
    state: dict[str, Any] = {**defaults, "phase": phase}
    if parsed is None:
        return state
    if parsed.workload is not None:
        state.update(workload_form_values(parsed.workload, exclude_none=False))
        return state
    state.update(parsed.values)
    for name in LIST_FIELDS:
        state.setdefault(name, [])
    return state
