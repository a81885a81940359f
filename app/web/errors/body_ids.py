"""A JSON body refused on its shape still names the catalog ids it gets wrong and what its model and GPUs refuse:
`{"model": "NOPE", "input_len": -1}` answered input_len alone, and the unknown model only once that was fixed (found by
qa30's buyer walk); `{"expert_parallel": "ep", "tpot_ms": -1}` on a dense model, tpot_ms alone (errs2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.ownership.question import OwnershipQuestion
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import ModelChoice, TrainingWorkload
from app.service.query.phase import QuestionKind
from app.service.typed_model_checks import typed_question_errors
from app.web.errors.error_shape import field_entries
from app.web.errors.near_miss import model_in


def body_values(model: type[BaseModel], body: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted field, value) for each of the body's fields the model reads, into its nested models (workload.model),
    not into free-form objects (an hf_config's keys are no fields)."""
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key not in body:
            continue
        inner = model_in(info.annotation)
        if inner is not None and isinstance(body[key], dict):
            yield from body_values(inner, body[key], f"{prefix}{key}.")
        else:
            yield prefix + key, body[key]


def body_id_errors(
    model: type[BaseModel] | None, body: Any, snapshot: CatalogSnapshot | None, errors: list[dict[str, str]]
) -> list[dict[str, str]]:
    """{field, message} for each catalog id field of a refused body naming ids the catalog lacks, and each check its
    model and GPUs fail (typed_question_errors); fields already in `errors` are not read again."""
    if model is None or snapshot is None or not isinstance(body, dict):
        return []
    wrong = {e["field"] for e in errors}
    found = typed_question_errors(dict(body_values(model, body)), snapshot, wrong, dict(question_groups(model)))
    return field_entries(found)


def question_groups(
    model: type[BaseModel], prefix: str = "", served: QuestionKind = "serving"
) -> Iterator[tuple[str, QuestionKind]]:
    """(dotted prefix, what it asks about) for each question in a body: "" for a body that is one, "workload." or
    "training." for one nested; a workload served beside a traffic (/plan's, /disagg's) is a plan's."""
    if issubclass(model, OwnershipQuestion):
        yield prefix, "own"
        return
    if issubclass(model, MixQuestion):  # its lengths are its buckets'
        yield prefix, "mix"
        return
    if issubclass(model, ModelChoice):
        yield prefix, "training" if issubclass(model, TrainingWorkload) else served
        return
    inner_models = {name: model_in(info.annotation) for name, info in model.model_fields.items()}
    at_traffic: QuestionKind = "plan" if Traffic in inner_models.values() else served
    for name, inner in inner_models.items():
        if inner is not None:
            key = model.model_fields[name].alias or name
            yield from question_groups(inner, f"{prefix}{key}.", at_traffic)
