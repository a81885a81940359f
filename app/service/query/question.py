"""A page's query parsed into its question: a workload (or errors naming the fields the user typed), its canonical
link and, on a results page, its view."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.scoring.input_checks.messages import error_location, error_message
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.query.canonical import canonical_query
from app.service.query.conveniences import apply_conveniences, at_typed_field
from app.service.query.custom_model import form_field
from app.service.query.fields import not_a_field
from app.service.query.phase import WORKLOADS, Phase, QuestionKind, parse_phase
from app.service.query.values import collect_values, query_shape_errors, read_numbers
from app.service.query.view import ResultsView, parse_view, with_view


@dataclass
class ParsedQuery:
    phase: Phase
    workload: InferenceWorkload | TrainingWorkload | None
    values: dict[str, Any]  # what the user typed, to refill the form
    errors: dict[str, str] = field(default_factory=dict)
    canonical: str = ""  # the question and, on a results page, the view
    view: ResultsView = field(default_factory=ResultsView)
    question: str = ""  # the question alone: what the twins, saved links and other pages take

    @property
    def kind(self) -> QuestionKind:
        return "training" if self.phase == "training" else "serving"


def parse(items: list[tuple[str, str]], default_phase: Phase = "inference", paged: bool = False) -> ParsedQuery:
    """A query into a workload (or errors naming fields); `paged`: results pages also read the view."""
    typed = collect_values(items)
    values = read_numbers(typed)
    errors: dict[str, str] = query_shape_errors(items)
    given_phase = parse_phase(values, errors, default_phase)
    phase: Phase = given_phase or default_phase
    view = parse_view(values, errors, phase) if paged else ResultsView()
    workload = None
    if given_phase is not None:  # an unknown phase: which fields belong is unknown, so only the phase is wrong
        computed: dict[str, str] = {}
        data = apply_conveniences(phase, values, errors, computed)
        try:
            workload = WORKLOADS[phase].model_validate(data)
        except ValidationError as exc:
            for name, message in _field_errors(exc, WORKLOADS[phase].model_fields).items():
                errors.setdefault(*at_typed_field(name, message, computed, data.get(name)))
    if errors:
        return ParsedQuery(phase, None, typed, errors, view=view)
    assert workload is not None
    question = canonical_query(phase, workload)
    return ParsedQuery(phase, workload, typed, canonical=with_view(question, view), view=view, question=question)


def _field_errors(exc: ValidationError, fields: Collection[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for error in exc.errors():
        name = form_field(error_location(error))
        # pydantic's "Extra inputs are not permitted": in the words every other page uses for a parameter it lacks
        message = not_a_field(name, fields) if error["type"] == "extra_forbidden" else error_message(error)
        found.setdefault(name, message)
    return found
