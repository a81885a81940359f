"""A question refused on its shape still hears what its model and GPUs refuse: a pasted config.json that cannot be
read, a request beyond the model's context, expert parallelism asked of a dense model, an engine asked of GPUs it does
not run on, INT8 W8A8 on an engine without it. model_spec_for runs these checks on a valid question; here they run on
the fields as typed, each only where every field it reads is valid (a check that reads a wrong field is skipped and
says nothing), so the user fixes them all in one round rather than hearing of the next once the first is fixed."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from app.scoring.hardware.engine_support import unsupported_reason
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, ModelArchitecture
from app.service.catalog_ids import catalog_id, typed_id_errors, typed_ids
from app.service.estimate_offer import typed_offer_errors
from app.service.mix_context import typed_mix_beyond_context
from app.service.named_ids import typed_name_errors
from app.service.ownership import typed_missing_defaults
from app.service.plan import PlanFieldError, latency_bound_only, traffic_sets_the_peak
from app.service.query.custom_model import ARCH_PREFIX, catalog_choices, custom_model_fields
from app.service.query.phase import QuestionKind
from app.service.rank.model_spec import (
    CHECKED_FIELDS,
    LENGTHS,
    UnknownId,
    config_spec,
    model_checks,
    spec_from_architecture,
)

ID_LISTS = ("gpus", "vendors")  # comma-separated on a form, a list in a body
MODEL_FIELDS = ("model", "custom_model", "hf_config", "hf_config_json")  # the question's model, in any of its forms
# A group of a question's fields ("" for a form's or a flat body's own, "workload." for a nested body's) -> what it asks
# about: a served model's checks, a training run's (its model read: no inference check runs on it), or /own's defaults.
Groups = Mapping[str, QuestionKind]


def typed_question_errors(
    typed: Mapping[str, object], snapshot: CatalogSnapshot, wrong: Collection[str], groups: Groups
) -> dict[str, str]:
    """A question refused on its shape (`wrong`: its refused fields), its other errors said in the same answer: the
    catalog ids it names that the catalog lacks, then what its model and GPUs refuse (typed_model_errors). An id
    field refused on its shape because it holds a name (`model=Llama 3.1 70B`) is said again, as a name, with the id
    it may mean: the caller's update replaces pydantic's pattern message."""
    choices = catalog_choices(dict(typed))
    ids = typed_id_errors(choices, snapshot, wrong)
    names = typed_name_errors(choices, snapshot, wrong)
    return {**names, **ids, **typed_model_errors(typed, snapshot, {*wrong, *ids}, groups)}


def typed_model_errors(
    typed: Mapping[str, object], snapshot: CatalogSnapshot, wrong: Collection[str], groups: Groups
) -> dict[str, str]:
    """{field: message} for each model or GPU check each group's typed fields fail (a served question's lengths, or a
    mix's buckets, as typed or by default; an estimate's offer_id; an ownership question's: each empty input its GPU
    has no sourced default for); fields in `wrong` (refused on their shape, or unknown ids) are not read."""
    errors: dict[str, str] = {}
    for group, kind in groups.items():
        values = {k.removeprefix(group): v for k, v in typed.items() if k.startswith(group)}
        values = {k: v for k, v in values.items() if "." not in k}  # a nested group's fields are its own
        group_wrong = {w.removeprefix(group) for w in wrong if w.startswith(group)}
        if kind == "own":  # no model: the GPU's sourced defaults
            errors.update({group + k: v for k, v in typed_missing_defaults(values, snapshot, group_wrong).items()})
            continue
        spec, unreadable = _typed_model(values, snapshot, group_wrong)
        found = dict(unreadable)
        if kind == "plan":
            found.update(_plan_refusals(values, group_wrong))
        if kind in ("serving", "plan", "mix"):
            inputs, unread = _valid_inputs(values)
            if kind == "mix":  # its lengths are its buckets': judged there, not at the fields it lacks
                unread |= set(LENGTHS)
                found.update(_mix_beyond_context(values, spec, group_wrong))
            for refusal in model_checks(inputs, spec, snapshot, values.keys(), group_wrong | unread):
                found.update({k: v for k, v in refusal.errors.items() if k not in found})
            found.update(_engine_on_gpu(values, inputs, snapshot, group_wrong | unread))
        found.update(typed_offer_errors(values, snapshot, group_wrong))
        errors.update({group + k: v for k, v in found.items() if group + k not in errors})
    return errors


def _plan_refusals(values: Mapping[str, object], wrong: Collection[str]) -> dict[str, str]:
    """A plan's own refusals of a served workload (another scenario, a second peak: plan.served_model's), where the
    fields they read are typed and valid."""
    read: dict[str, Any] = {n: values[n] for n in ("scenario", "peak_concurrency") if n in values and n not in wrong}
    if "scenario" in read:
        try:
            read["scenario"] = _adapter("scenario").validate_python(read["scenario"])
        except ValidationError:
            del read["scenario"]
    workload = InferenceWorkload.model_construct(**{"scenario": "latency_bound", "peak_concurrency": None, **read})
    errors: dict[str, str] = {}
    for check in (traffic_sets_the_peak, latency_bound_only):
        try:
            check(workload)
        except PlanFieldError as exc:
            errors.update(exc.errors)
    return errors


def _mix_beyond_context(values: Mapping[str, object], spec: ModelSpec | None, wrong: Collection[str]) -> dict[str, str]:
    """A /mix bucket beyond the model's context (the default mix where none is typed), at `mix`."""
    if spec is None or "mix" in wrong or any(w.startswith("mix.") for w in wrong):
        return {}
    message = typed_mix_beyond_context(values.get("mix"), spec)
    return {"mix": message} if message else {}


def _engine_on_gpu(
    values: Mapping[str, object], inputs: Mapping[str, Any], snapshot: CatalogSnapshot, wrong: Collection[str]
) -> dict[str, str]:
    """An estimate's engine on its one GPU (`gpu`), as the estimate service refuses it (TensorRT-LLM on an MI300X)."""
    gpu_id = values.get("gpu")
    if "gpu" in wrong or "engine" in wrong or not isinstance(gpu_id, str):
        return {}
    gpu = snapshot.gpus.get(catalog_id(snapshot, "gpus", gpu_id))
    reason = None if gpu is None else unsupported_reason(inputs.get("engine", _ENGINE_DEFAULT), gpu)
    return {"engine": reason} if reason else {}


_ENGINE_DEFAULT = InferenceWorkload.model_fields["engine"].default


def _valid_inputs(values: Mapping[str, object]) -> tuple[dict[str, Any], set[str]]:
    """(the checks' inputs read from typed values, the typed ones that do not read as their field's type)."""
    inputs: dict[str, Any] = {}
    unread: set[str] = set()
    for name in CHECKED_FIELDS:
        if name not in values:
            continue
        raw = typed_ids(values[name]) if name in ID_LISTS else values[name]
        try:
            inputs[name] = _adapter(name).validate_python(raw)
        except ValidationError:
            unread.add(name)
    return inputs, unread


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    info = InferenceWorkload.model_fields[name]
    annotated: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation  # ge, le
    return TypeAdapter(annotated)


def _typed_model(
    values: Mapping[str, object], snapshot: CatalogSnapshot, wrong: Collection[str]
) -> tuple[ModelSpec | None, dict[str, str]]:
    """(the model the typed fields name, or None where it is wrong or not known; {hf_config: why} for a pasted
    config.json that cannot be read). A catalog id, the default model where none is typed, a custom architecture
    (a form's arch_* fields, a body's custom_model) or a config.json, read as custom_model_fields reads a form's."""
    if any(w in MODEL_FIELDS or w.startswith((ARCH_PREFIX, "custom_model.", "hf_config.")) for w in wrong):
        return None, {}
    unread: dict[str, str] = {}
    data = custom_model_fields(dict(values), unread)
    config = data.get("hf_config")
    if unread or (config is not None and not isinstance(config, dict)):
        return None, {}
    try:
        if isinstance(config, dict):
            return config_spec(config), {}
        if data.get("custom_model") is not None:
            return spec_from_architecture(ModelArchitecture.model_validate(data["custom_model"])), {}
    except UnknownId as exc:
        return None, exc.errors
    except ValidationError:  # the architecture's own errors are said at its fields
        return None, {}
    wanted = data.get("model", InferenceWorkload.model_fields["model"].default)
    if not isinstance(wanted, str):
        return None, {}
    return next((m for k, m in snapshot.models.items() if k.lower() == wanted.strip().lower()), None), {}
