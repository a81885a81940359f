"""A workload written as its canonical query: the phase, the model, the fields that differ from their defaults
(lists comma-joined, last) and a custom model's arch_* pairs. One question, one link."""

from __future__ import annotations

from urllib.parse import urlencode

from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.query.custom_model import architecture_pairs
from app.service.query.phase import Phase
from app.service.query.values import format_value, non_default_fields

EXPLICIT_FIELDS = frozenset({"weight_dtype"})  # kept in a canonical query when given, even at their default


def canonical_pairs(phase: Phase, workload: InferenceWorkload | TrainingWorkload) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = [("phase", phase)]
    custom = architecture_pairs(workload)
    if custom is not None:
        pairs.append(("model", "custom"))
    # A weight_dtype the question names stays in it even at bf16: unset, it means the model's release precision.
    given = EXPLICIT_FIELDS.intersection(workload.model_fields_set)
    for name, value in non_default_fields(workload, skip=("custom_model", "hf_config", "model"), given=given):
        pairs.append((name, ",".join(value) if isinstance(value, list) else format_value(value)))
    if workload.model:  # always present: a link with a model is a question, one without is a blank form
        pairs.insert(1, ("model", workload.model))
    return pairs + (custom or [])


def canonical_query(phase: Phase, workload: InferenceWorkload | TrainingWorkload) -> str:
    return urlencode(canonical_pairs(phase, workload), safe=",")
