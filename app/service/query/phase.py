"""Which workload a query asks about (its `phase`), and whether a page's query asks a question at all."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.query.values import query_shape_errors

Phase = Literal["inference", "training"]
PHASES: tuple[Phase, ...] = ("inference", "training")
# What a question is about, for the checks said beside its shape's errors (typed_model_checks): serving a model (the
# ranking's inference, /precision), serving it at a traffic (/plan, /disagg: their replicas follow the traffic), serving
# it at a mix of request lengths (/mix: its buckets are its lengths), a training run, or owning GPUs (/own)
QuestionKind = Literal["serving", "plan", "mix", "training", "own"]
WORKLOADS: dict[str, type[InferenceWorkload] | type[TrainingWorkload]] = {
    "inference": InferenceWorkload,
    "training": TrainingWorkload,
}


def parse_phase(values: dict[str, Any], errors: dict[str, str], default_phase: Phase) -> Phase | None:
    """The query's phase (the default when none is given); None, with an error naming the allowed ones, for
    another word: its fields would be read as the wrong workload's."""
    given = values.get("phase")
    if given is None:
        return default_phase
    if given in PHASES:
        return given  # type: ignore[no-any-return]
    errors["phase"] = f"must be {' or '.join(PHASES)}, not {str(given)[:40]!r}"
    return None


def serving_phase_only(items: list[tuple[str, str]], errors: dict[str, str]) -> list[tuple[str, str]]:
    """The query of a page that answers serving questions (/plan, /precision, /disagg, /mix) without its phase:
    phase=inference (a ranking's link carries it) says what the page answers; another phase is an error naming
    it, not a serving answer to a training question; a repeated phase is an error, as any repeated key is."""
    errors.update(query_shape_errors([(key, value) for key, value in items if key == "phase"]))
    for key, value in items:
        if key == "phase" and value.strip() not in ("", "inference"):
            errors["phase"] = (
                f"this page answers inference (serving) questions only, not phase {value.strip()[:40]!r}: rank a "
                "training run on / with phase=training"
            )
    return [(key, value) for key, value in items if key != "phase"]


def asks_a_question(items: list[tuple[str, str]], phases: Sequence[str] = ("inference",)) -> bool:
    """Whether a page's query asks a question, the one rule every form page follows: a query of nothing but one
    phase, blank or one the page answers (`phases`), is the page's blank form with its defaults shown; any other
    field, a repeated phase or an unknown one is a question (one with an error answers 422 naming the field)."""
    return len(items) > 1 or any(key != "phase" or value.strip() not in ("", *phases) for key, value in items)
