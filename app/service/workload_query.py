"""One canonical, compact query string per question: parsed into a workload and written back.

The page, its htmx fragment, the `.json` and `.csv` twins, saved links and the CLI all go
through here, so a pasted link reproduces the same answer. Lists are comma-joined, defaults
are left out, and form conveniences (tokens/s per user, steps, a pasted config.json, repeated
checkbox values) are turned into the canonical fields, which the page then redirects to.
A results page's query also names which rows it shows and in what order (`ResultsView`: `sort`, `show`, `page`),
after the question.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.scoring import strict_json
from app.scoring.hf_config import model_spec_from_hf_config
from app.scoring.json_bounds import MAX_SERIALIZED_BYTES, check_bounded_object
from app.scoring.messages import NOT_FINITE, error_location, error_message
from app.scoring.workload import InferenceWorkload, ModelArchitecture, ModelChoice, TrainingWorkload
from app.service import rank_sort
from app.service.form_numbers import FREE_TEXT, as_typed_number

Phase = Literal["inference", "training"]
PHASES: tuple[Phase, ...] = ("inference", "training")
WORKLOADS: dict[str, type[InferenceWorkload] | type[TrainingWorkload]] = {
    "inference": InferenceWorkload,
    "training": TrainingWorkload,
}
LIST_FIELDS = ("providers", "price_types", "gpus", "vendors")
ARCH_PREFIX = "arch_"
RAW_MODEL_FIELDS = ("custom_model", "hf_config")  # a query gives these as the form's arch_* and hf_config_json
MAX_QUERY_VALUES = 200
ROWS_PER_PAGE = 25  # rows a results page shows by default: the best few to compare at a glance (issue 12)
MAX_ROWS_PER_PAGE = 1000  # the same bound as the rank API's `limit`
VIEW_FIELDS = ("sort", "show", "page")
EXPLICIT_FIELDS = frozenset({"weight_dtype"})  # kept in a canonical query when given, even at their default


class ResultsView(BaseModel):
    """Which rows of a ranking a results page shows: the feasible options sorted by `sort` (ranked order when
    None), `show` rows (or `all`) from page `page`. Part of the page's canonical query, so a link reproduces
    the view; the `.json`/`.csv` twins give every option, in the view's sort."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sort: str | None = Field(None, max_length=20, description="a ranked table's column, -column for largest first")
    show: int | Literal["all"] = Field(ROWS_PER_PAGE, description="rows per page, or all")
    page: int = Field(1, ge=1, le=1_000_000, description="1-based page of `show` rows")

    @field_validator("show", mode="before")
    @classmethod
    def _rows_or_all(cls, value: Any) -> int | str:
        if isinstance(value, str) and value.strip().lower() == "all":
            return "all"
        try:
            rows = int(value)
        except (TypeError, ValueError):
            rows = 0
        if not 1 <= rows <= MAX_ROWS_PER_PAGE or str(value).strip() not in (str(rows), f"{rows}.0"):
            raise ValueError(f"must be a whole number of rows from 1 to {MAX_ROWS_PER_PAGE}, or all")
        return rows

    @field_validator("sort")
    @classmethod
    def _a_column(cls, value: str | None) -> str | None:
        if value is None or value == rank_sort.RANK:
            return None  # ranked order is the default: `sort=rank` is another spelling of no sort
        return rank_sort.check(value)

    @model_validator(mode="before")
    @classmethod
    def _one_page_when_all(cls, data: Any) -> Any:
        # every row is on page 1: `show=all&page=3` is another spelling of `show=all`, not an error
        if isinstance(data, dict) and str(data.get("show", "")).strip().lower() == "all":
            return {k: v for k, v in data.items() if k != "page"}
        return data

    @property
    def rows(self) -> int | None:
        """Rows per page; None = every row."""
        return None if self.show == "all" else int(self.show)

    @property
    def start(self) -> int:
        """Position (0-based) of the first row on this page."""
        return 0 if self.rows is None else (self.page - 1) * self.rows


@dataclass
class ParsedQuery:
    phase: Phase
    workload: InferenceWorkload | TrainingWorkload | None
    values: dict[str, Any]  # what the user typed, to refill the form
    errors: dict[str, str] = field(default_factory=dict)
    canonical: str = ""  # the question and, on a results page, the view
    view: ResultsView = field(default_factory=ResultsView)
    question: str = ""  # the question alone: what the twins, saved links and other pages take


def _collect(items: list[tuple[str, str]], list_fields: Collection[str] = LIST_FIELDS) -> dict[str, Any]:
    """Multi-dict → dict: list fields gather every value (comma-separated or repeated); numbers read as typed
    (`500,000`, `1e3`: app.service.form_numbers)."""
    values: dict[str, Any] = {}
    for key, raw in items[:MAX_QUERY_VALUES]:
        value = raw.strip()
        if key in list_fields:
            values.setdefault(key, []).extend(v.strip() for v in value.split(",") if v.strip())
        elif value != "":
            values[key] = value if key in FREE_TEXT else as_typed_number(value)
    return values


def query_shape_errors(items: list[tuple[str, str]], list_fields: Collection[str] = LIST_FIELDS) -> dict[str, str]:
    """A key the query reads once given twice is an error, not a silent pick of one value (a page
    answering for another model than the link shows); list fields may repeat. Too many values too."""
    errors: dict[str, str] = {}
    if len(items) > MAX_QUERY_VALUES:
        errors["query"] = f"more than {MAX_QUERY_VALUES} query values"
    seen: set[str] = set()
    for key, _ in items[: MAX_QUERY_VALUES + 1]:
        if key in seen and key not in list_fields:
            errors.setdefault(key, f"given more than once; {key} takes one value")
        seen.add(key)
    return errors


# Form fields that are another spelling of a workload field, and how that field is computed from them: an error
# about the computed field is reported at the field the user typed (at_typed_field).
CONVENIENCES = {
    "tokens_per_s_per_user": "tpot_ms = 1000 ÷ tokens_per_s_per_user",
    "steps": "total_tokens = steps × global_batch_seqs × seq_len",
}


def _number(raw: Any) -> float | None:
    """A typed number, None when it is not one (NaN and ±inf are not)."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _convenience_value(name: str, raw: Any, errors: dict[str, str]) -> float | None:
    """A convenience field's own value, or None with an error at that field."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors[name] = f"must be a number, not {str(raw)[:40]!r}"
        return None
    if name == "steps" and not (math.isfinite(value) and value >= 1 and value.is_integer()):
        errors[name] = "must be a whole number of optimizer steps (at least 1)"
    elif not math.isfinite(value):
        errors[name] = NOT_FINITE
    elif value <= 0:
        errors[name] = "must be greater than 0"
    else:
        return value
    return None


def _apply_conveniences(
    phase: str, values: dict[str, Any], errors: dict[str, str], computed: dict[str, str] | None = None
) -> dict[str, Any]:
    """The typed values as the workload's fields; `computed` gathers {target field: the convenience it came
    from} (for `at_typed_field`)."""
    computed = {} if computed is None else computed
    data = custom_model_fields({k: v for k, v in values.items() if k != "phase"}, errors)
    if phase == "inference" and "tokens_per_s_per_user" in data:
        rate = _convenience_value("tokens_per_s_per_user", data.pop("tokens_per_s_per_user"), errors)
        if rate is not None:
            _set_from_convenience("tokens_per_s_per_user", "tpot_ms", 1000.0 / rate, data, errors, computed)
    if phase == "training" and "steps" in data:
        steps = _convenience_value("steps", data.pop("steps"), errors)
        defaults = TrainingWorkload.model_fields
        seqs = _number(data.get("global_batch_seqs", defaults["global_batch_seqs"].default))
        seq_len = _number(data.get("seq_len", defaults["seq_len"].default))
        if steps is not None and seqs is not None and seq_len is not None:  # else their own errors say why
            _set_from_convenience("steps", "total_tokens", steps * seqs * seq_len, data, errors, computed)
    return data


def custom_model_fields(data: dict[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    """`data` (a form's typed values) with its custom model (`model=custom`, arch_* fields, a pasted config.json in
    hf_config_json) as the question's `custom_model`; a config.json that cannot be read is an error at
    hf_config_json. Every page that takes a custom model reads it here."""
    arch = {k[len(ARCH_PREFIX) :]: data.pop(k) for k in list(data) if k.startswith(ARCH_PREFIX)}
    config_text = data.pop("hf_config_json", None)
    if data.get("model") not in (None, "custom") and not config_text:
        arch = {}  # a catalog model chosen in a form that still holds a custom architecture's fields: the choice wins
    if data.get("model") == "custom" or arch or config_text:
        data.pop("model", None)
        from_config = _arch_from_config(config_text, errors) if config_text else None
        if not config_text or from_config is not None:
            data["custom_model"] = from_config or arch
        # else: the config.json's own error is the answer, not the required fields of an architecture never read
    return data


def _set_from_convenience(
    convenience: str,
    field_name: str,
    value: float,
    data: dict[str, Any],
    errors: dict[str, str],
    computed: dict[str, str],
) -> None:
    """`field_name` set to `value`, computed from `convenience`. Given beside it, the field must say the same
    (within rounding): two values for one setting are an error naming both, not one silently winning, whatever
    the form showed (a default too: 100 steps beside a 2e9-token budget is two budgets)."""
    if field_name not in data:
        data[field_name] = value
        computed[field_name] = convenience  # the target, and the field it came from
        return
    typed = _number(data[field_name])
    if typed is None or math.isclose(typed, value, rel_tol=1e-9):
        return  # a bad field's own error says why; an equal one is the same question
    errors[convenience] = (
        f"give one of {convenience} or {field_name}, not both: {convenience} sets {field_name} = {_shown(value)} "
        f"({CONVENIENCES[convenience]}), but {field_name} is {_shown(typed)}"
    )


def _shown(value: float) -> str:
    """A number in an error message: 26,214,400 or 0.125."""
    return f"{value:,.0f}" if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def _arch_from_config(text: str, errors: dict[str, str]) -> dict[str, Any] | None:
    try:
        if len(text) > MAX_SERIALIZED_BYTES:  # before parsing: json.loads of megabytes is the cost to avoid
            raise ValueError(f"larger than {MAX_SERIALIZED_BYTES // 1024} KB")
        config = strict_json.loads(text)  # a key given twice is an error, not its last value
        if not isinstance(config, dict):
            raise ValueError("the pasted text is not a JSON object")
        return arch_of_config(check_bounded_object(config))
    except (ValueError, TypeError, RecursionError) as exc:
        errors["hf_config_json"] = f"could not read this config.json: {exc}"
        return None


def arch_of_config(config: dict[str, Any]) -> dict[str, Any]:
    """A config.json's architecture as the custom model's fields (the form's arch_* fields); ValueError as
    model_spec_from_hf_config's."""
    spec = model_spec_from_hf_config(config, "custom")
    names = ModelArchitecture.model_fields
    arch = {k: getattr(spec, k) for k in names if hasattr(spec, k) and getattr(spec, k) not in (None, "")}
    if arch.get("moe_layers") in (0, spec.layers):  # none or every layer: what a blank MoE layers field reads
        del arch["moe_layers"]
    return arch


def _custom_architecture(question: ModelChoice) -> ModelArchitecture | None:
    """The question's custom model: given field by field, or read from its config.json (an API's hf_config), so that
    its link carries the architecture as the page's own link does (the page reads a pasted config.json the same way)."""
    if question.custom_model is not None or question.hf_config is None:
        return question.custom_model
    try:
        return ModelArchitecture.model_construct(**arch_of_config(question.hf_config))
    except (ValueError, TypeError, RecursionError):  # the ranking reads it again and answers 422 naming the key
        return None


def architecture_pairs(question: ModelChoice) -> list[tuple[str, str]] | None:
    """The question's custom model as a link's arch_* pairs (its non-default fields and the five every architecture
    needs); None for a catalog model, or a config.json that cannot be read (the answer is its 422)."""
    custom = _custom_architecture(question)
    if custom is None:
        return None
    pairs = [(ARCH_PREFIX + name, _format(value)) for name, value in _non_default(custom)]
    for name in ("params_b", "layers", "hidden_size", "num_attention_heads", "intermediate_size"):
        if not any(p[0] == ARCH_PREFIX + name for p in pairs):
            pairs.append((ARCH_PREFIX + name, _format(getattr(custom, name))))
    return pairs


def parse_view(values: dict[str, Any], errors: dict[str, str], phase: Phase) -> ResultsView:
    """`sort`, `show` and `page` taken out of `values`; a bad one (or a column the phase's table lacks) is an
    error naming it, and the default view."""
    given = {key: values.pop(key) for key in VIEW_FIELDS if key in values}
    try:
        view = ResultsView.model_validate(given)
    except ValidationError as exc:
        for error in exc.errors():
            name = next(iter(error_location(error)), "page")
            errors.setdefault(name, error_message(error))
        return ResultsView()
    if (wrong_column := rank_sort.phase_error(phase, view.sort)) is not None:
        errors["sort"] = wrong_column
        return ResultsView()
    return view


def view_pairs(view: ResultsView) -> list[tuple[str, str]]:
    """The view's non-default fields, in canonical order."""
    defaults = ResultsView()
    return [(name, str(getattr(view, name))) for name in VIEW_FIELDS if getattr(view, name) != getattr(defaults, name)]


def with_view(query: str, view: ResultsView) -> str:
    """A query string (the question, or empty) followed by the view's non-default pairs."""
    pairs = urlencode(view_pairs(view))
    return f"{query}&{pairs}" if query and pairs else query or pairs


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


def parse(items: list[tuple[str, str]], default_phase: Phase = "inference", paged: bool = False) -> ParsedQuery:
    """A query into a workload (or errors naming fields); `paged`: results pages also read the view."""
    values = _collect(items)
    errors: dict[str, str] = query_shape_errors(items)
    given_phase = parse_phase(values, errors, default_phase)
    phase: Phase = given_phase or default_phase
    view = parse_view(values, errors, phase) if paged else ResultsView()
    workload = None
    if given_phase is not None:  # an unknown phase: which fields belong is unknown, so only the phase is wrong
        computed: dict[str, str] = {}
        data = _apply_conveniences(phase, values, errors, computed)
        try:
            workload = WORKLOADS[phase].model_validate(data)
        except ValidationError as exc:
            for name, message in _field_errors(exc).items():
                errors.setdefault(*at_typed_field(name, message, computed, data.get(name)))
    if errors:
        return ParsedQuery(phase, None, values, errors, view=view)
    assert workload is not None
    question = canonical_query(phase, workload)
    return ParsedQuery(phase, workload, values, canonical=with_view(question, view), view=view, question=question)


def at_typed_field(name: str, message: str, computed: dict[str, str], value: Any = None) -> tuple[str, str]:
    """(field, message): an error about a field computed from a convenience field the user typed (tpot_ms from
    tokens/s per user) belongs at that field, saying how the value (`value`, when known) was computed."""
    typed = computed.get(name)
    if typed is None:
        return name, message
    result = f" = {value:.4g}" if isinstance(value, float) else ""
    return typed, f"{CONVENIENCES[typed]}{result}: {message}"


def form_field(loc: Sequence[str]) -> str:
    """The form field a validation error's location names: a custom model's field is its arch_* field, an error
    naming no field is the model's."""
    if loc and loc[0] == "custom_model":
        return ARCH_PREFIX + loc[1] if len(loc) > 1 else "model"
    return loc[0] if loc else "model"


def _field_errors(exc: ValidationError) -> dict[str, str]:
    found: dict[str, str] = {}
    for error in exc.errors():
        found.setdefault(form_field(error_location(error)), error_message(error))
    return found


def _format(value: Any) -> str:
    """Shortest exact text: 2000000000.0 → 2000000000, 0.5 → 0.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e18 else repr(value)
    return str(value)


def _non_default(model: BaseModel, skip: tuple[str, ...] = (), given: Collection[str] = ()) -> list[tuple[str, Any]]:
    """The fields that differ from their defaults, and those in `given` whatever their value."""
    fields = type(model).model_fields
    ordered = [n for n in fields if n not in LIST_FIELDS] + [n for n in fields if n in LIST_FIELDS]
    pairs = []
    for name in ordered:
        info = fields[name]
        value = getattr(model, name)
        if (
            name in skip
            or value is None
            or (name not in given and value == info.get_default(call_default_factory=True))
        ):
            continue
        pairs.append((name, value))
    return pairs


def canonical_pairs(phase: Phase, workload: InferenceWorkload | TrainingWorkload) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = [("phase", phase)]
    custom = architecture_pairs(workload)
    if custom is not None:
        pairs.append(("model", "custom"))
    # A weight_dtype the question names stays in it even at bf16: unset, it means the model's release precision.
    given = EXPLICIT_FIELDS.intersection(workload.model_fields_set)
    for name, value in _non_default(workload, skip=("custom_model", "hf_config", "model"), given=given):
        pairs.append((name, ",".join(value) if isinstance(value, list) else _format(value)))
    if workload.model:  # always present: a link with a model is a question, one without is a blank form
        pairs.insert(1, ("model", workload.model))
    return pairs + (custom or [])


def canonical_query(phase: Phase, workload: InferenceWorkload | TrainingWorkload) -> str:
    return urlencode(canonical_pairs(phase, workload), safe=",")
