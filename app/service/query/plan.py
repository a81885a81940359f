"""The /plan page's canonical query string: inference workload, traffic, and an optional training run.

Inference fields keep their rank-page names (so a ranking's link opens here unchanged), traffic
fields are the Traffic model's names, training fields carry a `train_` prefix (both workloads have
max_gpus), and `months` turns the train-then-serve plan on. Defaults are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode

from pydantic import BaseModel, ValidationError

from app.scoring.input_checks.messages import error_location, error_message
from app.scoring.serving.traffic.week import DEFAULT_REQUESTS_PER_DAY, Traffic
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.scoring.workload.field_types import TRAINING_TAKES_NO_EXPERT_PARALLEL
from app.service.query.canonical import canonical_pairs, canonical_query
from app.service.query.conveniences import CONVENIENCES, apply_conveniences, at_typed_field
from app.service.query.custom_model import ARCH_PREFIX, form_field
from app.service.query.fields import QueryFields, query_fields
from app.service.query.fitting_lengths import lengths_within
from app.service.query.phase import QuestionKind, serving_phase_only
from app.service.query.values import (
    LIST_FIELDS,
    collect_values,
    format_value,
    non_default_fields,
    query_shape_errors,
    read_numbers,
)

TRAIN_PREFIX = "train_"
PLAN_LIST_FIELDS = LIST_FIELDS + tuple(TRAIN_PREFIX + name for name in LIST_FIELDS)
TRAFFIC_FIELDS = tuple(Traffic.model_fields)
MAX_MONTHS = 60
DEFAULT_MONTHS = 12  # a year of serving after one fine-tune: the usual budgeting horizon
SERVED_MODEL_FIELDS = ("model", "custom_model", "hf_config")  # the run trains the served model: not train_* fields
IGNORED = {"phase"}  # a ranking link carries phase=inference (another phase: serving_phase_only)


# A plan's replicas follow its traffic: clients at the peak (the rank page's peak_concurrency) would be a second peak.
PEAK_FROM_TRAFFIC = (
    "the traffic sets the peak here (requests_per_day with its profile, or peak_requests_per_s): leave "
    "peak_concurrency empty"
)
LATENCY_BOUND = "replicas here meet the latency limits at the traffic's busiest hour (scenario latency_bound)"
# The inference workload's fields a plan (and /disagg) does not take, and why: a ranking's link may carry them.
NOT_SERVING_FIELDS = {
    "scenario": LATENCY_BOUND,
    "batch": LATENCY_BOUND + ", at the batch those limits allow",
    "concurrency": LATENCY_BOUND + ": the traffic, not a count of clients, loads them",
    "requests_per_s": LATENCY_BOUND + ": the traffic sets each replica's load",
    "peak_concurrency": PEAK_FROM_TRAFFIC,
    "job_requests": "a plan serves traffic, not a batch job (rank a batch job on the ranking page)",
    "job_deadline_hours": "a plan serves traffic, not a batch job (rank a batch job on the ranking page)",
    "rank_by": "options here are ordered by their monthly cost at the traffic",
    "custom_model": "give a custom architecture as arch_* fields or a pasted config.json (hf_config_json)",
    "hf_config": "give a custom architecture as arch_* fields or a pasted config.json (hf_config_json)",
}
# What a plan serves and how: the inference workload's other fields (model, filters, dtypes, lengths, limits, engine
# settings, serving techniques), the form's conveniences (a custom architecture, tokens/s per user), the traffic.
# The inference workload's fields a serving question takes (`gpumatch plan serving` and `disagg` have a flag for each);
# one the traffic also has (peak_requests_per_s) is the traffic's: split() reads it so.
SERVING_WORKLOAD_FIELDS = tuple(
    name for name in InferenceWorkload.model_fields if name not in NOT_SERVING_FIELDS and name not in TRAFFIC_FIELDS
)
SERVING_FIELDS = (
    *SERVING_WORKLOAD_FIELDS,
    "hf_config_json",
    *(name for name in CONVENIENCES if name != "steps"),
    *Traffic.model_fields,
)
TRAINING_FIELDS = (
    *(name for name in TrainingWorkload.model_fields if name not in ("custom_model", "hf_config")),
    "steps",
)


def serving_query_fields(*more: str, reasons: dict[str, str] | None = None) -> QueryFields:
    """The parameters of a question about serving a workload at a traffic (/disagg's), and `more`."""
    why = {**NOT_SERVING_FIELDS, **(reasons or {})}
    return query_fields((*IGNORED, *SERVING_FIELDS, *more), prefixes=(ARCH_PREFIX,), reasons=why)


# /plan's: serving, and a train-then-serve run (months and its train_* fields, the run trains the served model).
PLAN_FIELDS = serving_query_fields(
    "months",
    *(TRAIN_PREFIX + name for name in TRAINING_FIELDS),
    reasons={TRAIN_PREFIX + "expert_parallel": TRAINING_TAKES_NO_EXPERT_PARALLEL},  # not 'did you mean' inference's
)


def page_field(service_field: str) -> str:
    """A plan service's field (`workload.model`, `training.gpus`) as this query names it (`model`, `train_gpus`)."""
    section, _, name = service_field.rpartition(".")
    return (TRAIN_PREFIX if section == "training" else "") + name


@dataclass
class PlanQuery:
    kind: ClassVar[QuestionKind] = "plan"  # a training run's train_* fields are not read as a model's checks
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
            name = form_field(error_location(error))
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


def validate_training(data: dict[str, Any], errors: dict[str, str]) -> TrainingWorkload | None:
    """The run's fields (unprefixed) as the rank form reads its own, each error at its train_* field: `steps` sets the
    token budget there too (the page's train_steps, `gpumatch plan lifecycle --train-steps`)."""
    steps_errors: dict[str, str] = {}
    computed: dict[str, str] = {}
    data = apply_conveniences("training", data, steps_errors, computed)
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


def parse_plan(items: list[tuple[str, str]], fields: QueryFields = PLAN_FIELDS) -> PlanQuery:
    """The question `fields` takes (/plan's; /disagg's without the training run): any other parameter, another
    phase among them, is an error naming it, never read."""
    phase_errors: dict[str, str] = {}
    items = serving_phase_only(items, phase_errors)
    typed = collect_values(items, PLAN_LIST_FIELDS)
    values = read_numbers(typed)
    errors: dict[str, str] = {**phase_errors, **fields.errors(key for key, _ in items)}
    errors.update(query_shape_errors(items, PLAN_LIST_FIELDS))
    inference, traffic_data, training_data = split({k: v for k, v in values.items() if fields.takes(k)})
    computed: dict[str, str] = {}
    inference = apply_conveniences("inference", inference, errors, computed)  # arch_* fields, tokens/s per user
    workload = _validate(InferenceWorkload, inference, errors, computed=computed)
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
        training = validate_training(training_data, errors)
        if training is not None and workload is not None and (other := trains_another_model(training, workload)):
            errors[TRAIN_PREFIX + "model"] = other
    # without months no run is priced, but valid train_* fields stay in the link and the form (lifecycle_skipped)
    if errors:
        return PlanQuery(None, None, None, None, typed, errors)
    if traffic.requests_per_day is None and traffic.peak_requests_per_s is None:  # the answer's traffic says it too
        traffic = traffic.model_copy(update={"requests_per_day": DEFAULT_REQUESTS_PER_DAY})
    query = PlanQuery(workload, traffic, training, months, typed)
    query.canonical = canonical_plan_query(workload, traffic, training, months)
    return query


def canonical_plan_query(
    workload: InferenceWorkload, traffic: Traffic, training: TrainingWorkload | None, months: int | None
) -> str:
    if traffic.requests_per_day is None and traffic.peak_requests_per_s is None:  # the default, said in the link
        traffic = traffic.model_copy(update={"requests_per_day": DEFAULT_REQUESTS_PER_DAY})  # as the pages say it
    pairs = [(k, v) for k, v in canonical_pairs("inference", workload) if k != "phase"]
    pairs += [(k, format_value(v)) for k, v in non_default_fields(traffic)]
    if training is not None:  # without months too: a run the user typed is never dropped from the link
        if months is not None:
            pairs.append(("months", str(months)))
        for name, value in non_default_fields(training, skip=SERVED_MODEL_FIELDS):
            text = ",".join(value) if name in LIST_FIELDS else format_value(value)
            pairs.append((TRAIN_PREFIX + name, text))
        # no train_model: the run trains the served model (a link naming another is refused: trains_another_model)
    return urlencode(pairs, safe=",")


def lifecycle_skipped(training: TrainingWorkload | None, months: int | None) -> str | None:
    """Why the train_* fields a question carries price nothing: months is empty (None where none is given, or
    months prices the run)."""
    if training is None or months is not None:
        return None
    names = [TRAIN_PREFIX + name for name, _ in non_default_fields(training, skip=SERVED_MODEL_FIELDS)]
    if not names:
        return None
    return (
        f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} kept in the link but price nothing: only the "
        "train-then-serve plan uses the train_* fields, and it needs months of serving (1 to "
        f"{MAX_MONTHS}); give months to price the run"
    )


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


def plan_link(ranking_question: str) -> tuple[str, list[str]]:
    """A ranking's question as a plan's (its peak in requests/s, or its request rate, is the plan's peak traffic),
    and the settings a plan does not take, left out of it (its scenario, a batch job, peak clients): the link says
    which."""
    pairs = parse_qsl(ranking_question, keep_blank_values=True)
    if ("scenario", "request_rate") in pairs:  # the same traffic as its peak, as the ranking's replicas_url does (qa43)
        pairs = [("peak_requests_per_s", v) if k == "requests_per_s" else (k, v) for k, v in pairs]
    left_out = [key for key, _ in pairs if key not in IGNORED and not PLAN_FIELDS.takes(key)]
    kept = [(key, value) for key, value in pairs if PLAN_FIELDS.takes(key)]
    return urlencode(kept, safe=","), left_out


def training_plan_link(ranking_question: str, max_context: int | None = None) -> tuple[str, list[str]]:
    """A training ranking's question as a train-then-serve plan's: the model it trains is the one served (its
    catalog id, custom architecture or config stay the plan's own fields), every other training setting becomes
    the run's `train_*` field, and the plan serves it for DEFAULT_MONTHS at its default traffic, at request lengths
    the model's context holds (`max_context`: the defaults overflow a 2,048-token model, a 422 found by qa37). The
    settings a plan's run does not take are left out, and the link says which."""
    kept: list[tuple[str, str]] = []
    left_out: list[str] = []
    for key, value in parse_qsl(ranking_question, keep_blank_values=True):
        if key == "phase" or key in IGNORED:
            continue
        if key in ("model", "hf_config_json") or key.startswith(ARCH_PREFIX):
            kept.append((key, value))
        elif PLAN_FIELDS.takes(TRAIN_PREFIX + key):
            kept.append((TRAIN_PREFIX + key, value))
        else:
            left_out.append(key)
    kept.extend((key, str(value)) for key, value in lengths_within(max_context).items())
    kept.append(("months", str(DEFAULT_MONTHS)))
    # as /plan writes it back, so following it costs no 303 (found by qa44); as built where /plan refuses it
    return parse_plan(kept).canonical or urlencode(kept, safe=","), left_out
