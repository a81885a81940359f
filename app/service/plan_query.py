"""The /plan page's canonical query string: inference workload, traffic, and an optional training run.

Inference fields keep their rank-page names (so a ranking's link opens here unchanged), traffic
fields are the Traffic model's names, training fields carry a `train_` prefix (both workloads have
max_gpus), and `months` turns the train-then-serve plan on. Defaults are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError

from app.scoring.messages import error_location, error_message
from app.scoring.serving.traffic import DEFAULT_REQUESTS_PER_DAY, Traffic
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.workload_query import (
    ARCH_PREFIX,
    LIST_FIELDS,
    _apply_conveniences,
    _collect,
    _format,
    _non_default,
    at_typed_field,
    canonical_pairs,
    canonical_query,
    query_shape_errors,
    serving_phase_only,
)

TRAIN_PREFIX = "train_"
PLAN_LIST_FIELDS = LIST_FIELDS + tuple(TRAIN_PREFIX + name for name in LIST_FIELDS)
TRAFFIC_FIELDS = tuple(Traffic.model_fields)
MAX_MONTHS = 60
DEFAULT_MONTHS = 12  # a year of serving after one fine-tune: the usual budgeting horizon
# A ranking link may carry a batch job's fields: a plan serves traffic, not a job, so its canonical link leaves them
# out (its phase, serving_phase_only).
IGNORED = {"job_requests", "job_deadline_hours"}


# A plan's replicas follow its traffic: clients at the peak (the rank page's peak_concurrency) would be a second peak.
PEAK_FROM_TRAFFIC = (
    "the traffic sets the peak here (requests_per_day with its profile, or peak_requests_per_s): leave "
    "peak_concurrency empty"
)


def page_field(service_field: str) -> str:
    """A plan service's field (`workload.model`, `training.gpus`) as this query names it (`model`, `train_gpus`)."""
    section, _, name = service_field.rpartition(".")
    return (TRAIN_PREFIX if section == "training" else "") + name


@dataclass
class PlanQuery:
    workload: InferenceWorkload | None
    traffic: Traffic | None
    training: TrainingWorkload | None
    months: int | None
    values: dict[str, Any]  # what was typed, to refill the form
    errors: dict[str, str] = field(default_factory=dict)
    canonical: str = ""


def _validate(
    cls: type[BaseModel],
    data: dict[str, Any],
    errors: dict[str, str],
    prefix: str = "",
    computed: dict[str, str] | None = None,
) -> Any:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            loc = error_location(error)
            if loc[:1] == ("custom_model",) and len(loc) > 1:
                name = ARCH_PREFIX + loc[1]
            else:
                name = loc[0] if loc and loc[0] != "custom_model" else "model"
            name, message = at_typed_field(name, error_message(error), computed or {}, data.get(name))
            errors.setdefault(prefix + name, message)
    return None


def _months(raw: Any, errors: dict[str, str]) -> int | None:
    if raw is None:
        return None
    try:
        months = int(raw)
        if not 1 <= months <= MAX_MONTHS:
            raise ValueError
        return months
    except ValueError:
        errors["months"] = f"a whole number of months from 1 to {MAX_MONTHS}"
        return None


def trains_another_model(training: TrainingWorkload, inference: InferenceWorkload) -> str | None:
    """Why a train-then-serve plan cannot train one model and serve another (None: it trains what it serves).
    Its serving side prices the trained weights (a LoRA adapter of that base, or weights of your own), so the
    served model has to be the trained one."""

    def which(w: TrainingWorkload | InferenceWorkload) -> tuple[Any, ...]:
        return ((w.model or "").lower(), w.custom_model, w.hf_config)  # catalog ids match in any case

    if which(training) == which(inference):
        return None
    names = [w.model or "a custom model" for w in (training, inference)]
    return (
        f"a train-then-serve plan serves the model it trains: it trains {names[0]} but serves {names[1]}; "
        "leave the training model out, or serve the model you train"
    )


def _validate_training(data: dict[str, Any], errors: dict[str, str]) -> TrainingWorkload | None:
    """The run's train_* fields as the rank form reads its own: `train_steps` sets the token budget there too."""
    steps_errors: dict[str, str] = {}
    computed: dict[str, str] = {}
    data = _apply_conveniences("training", data, steps_errors, computed)
    errors.update({TRAIN_PREFIX + name: message for name, message in steps_errors.items()})
    training = _validate(TrainingWorkload, data, errors, TRAIN_PREFIX, computed)
    return None if steps_errors else training


def split(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Typed values → (inference, traffic, training) dicts by name."""
    inference, traffic, training = {}, {}, {}
    for key, value in values.items():
        if key in IGNORED or key == "months":
            continue
        if key in TRAFFIC_FIELDS:
            traffic[key] = value
        elif key.startswith(TRAIN_PREFIX):
            training[key[len(TRAIN_PREFIX) :]] = value
        else:
            inference[key] = value
    return inference, traffic, training


def parse_plan(items: list[tuple[str, str]]) -> PlanQuery:
    phase_errors: dict[str, str] = {}
    items = serving_phase_only(items, phase_errors)
    values = _collect(items, PLAN_LIST_FIELDS)
    inference, traffic_data, training_data = split(values)
    errors: dict[str, str] = {**phase_errors, **query_shape_errors(items, PLAN_LIST_FIELDS)}
    computed: dict[str, str] = {}
    inference = _apply_conveniences("inference", inference, errors, computed)  # arch_* fields, tokens/s per user
    workload = _validate(InferenceWorkload, inference, errors, computed=computed)
    if workload is not None and workload.peak_concurrency is not None:
        errors["peak_concurrency"] = PEAK_FROM_TRAFFIC
    traffic = _validate(Traffic, traffic_data, errors)
    months = _months(values.get("months"), errors)
    training = None
    if "months" in values or training_data:  # train_* fields only matter with months, but a bad one is an error
        if workload is not None and "model" not in training_data:  # the run trains the model it then serves
            if workload.custom_model is not None:
                training_data["custom_model"] = workload.custom_model
            else:
                training_data["model"] = workload.model
        # else: the served model's errors are said once, at its fields; the train_* fields are still checked
        training = _validate_training(training_data, errors)
        if training is not None and workload is not None and (other := trains_another_model(training, workload)):
            errors[TRAIN_PREFIX + "model"] = other
    if months is None:  # no train-then-serve plan: valid train_* fields leave the link
        training = None
    if errors:
        return PlanQuery(None, None, None, None, values, errors)
    if traffic.requests_per_day is None and traffic.peak_requests_per_s is None:  # say the default in the link
        traffic = traffic.model_copy(update={"requests_per_day": DEFAULT_REQUESTS_PER_DAY})
    query = PlanQuery(workload, traffic, training, months, values)
    query.canonical = canonical_plan_query(workload, traffic, training, months)
    return query


def canonical_plan_query(
    workload: InferenceWorkload, traffic: Traffic, training: TrainingWorkload | None, months: int | None
) -> str:
    pairs = [(k, v) for k, v in canonical_pairs("inference", workload) if k != "phase"]
    pairs += [(k, _format(v)) for k, v in _non_default(traffic)]
    if training is not None and months is not None:
        pairs.append(("months", str(months)))
        for name, value in _non_default(training, skip=("model", "custom_model", "hf_config")):
            text = ",".join(value) if name in LIST_FIELDS else _format(value)
            pairs.append((TRAIN_PREFIX + name, text))
        if training.model and training.model != workload.model:
            pairs.append((TRAIN_PREFIX + "model", training.model))
    return urlencode(pairs, safe=",")


def ranking_query(workload: InferenceWorkload, peak_requests_per_s: float) -> str:
    """The rank page's question for a plan: its workload at the plan's peak traffic, so the ranking sizes replicas
    for it as the plan's dedicated rows do (the workload alone where its scenario takes no peak)."""
    data = {**workload.model_dump(exclude_none=True), "peak_requests_per_s": peak_requests_per_s}
    data.pop("peak_concurrency", None)  # one peak: the plan's, in requests/s
    try:
        sized = InferenceWorkload.model_validate(data)
    except ValidationError:
        return canonical_query("inference", workload)
    return canonical_query("inference", sized)
