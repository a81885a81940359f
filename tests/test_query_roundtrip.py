"""The URL is the state: parse(canonical_query(w)) == w for any valid workload of either phase, and a
results page's view (`sort`, `show`, `page`) survives the same round trip.

Workloads are drawn field by field from each pydantic model's own annotations and bounds, so a field added
to a workload is covered without touching this file. hf_config is left out: a page query never carries it
(the form turns a pasted config.json into the custom architecture, which is drawn here).
"""

from __future__ import annotations

import types
from types import SimpleNamespace
from typing import Any, Literal, Union, get_args, get_origin
from urllib.parse import parse_qsl

import annotated_types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from app.scoring.hf_config.param_count import shape_param_count
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from app.service.query.canonical import canonical_query
from app.service.query.question import parse
from app.service.query.view import MAX_ROWS_PER_PAGE, ResultsView, with_view

IDS = st.from_regex(r"[A-Za-z0-9._-]{1,16}", fullmatch=True)
NAMES = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9 ._-]{0,18}[A-Za-z0-9])?", fullmatch=True)  # the query trims ends
SKIP = {"hf_config"}
ROUND_TRIP = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bounds(info: FieldInfo) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            found["min_value"] = item.ge
        elif isinstance(item, annotated_types.Gt):
            found["min_value"], found["exclude_min"] = item.gt, True
        elif isinstance(item, annotated_types.Le):
            found["max_value"] = item.le
        elif isinstance(item, annotated_types.Lt):
            found["max_value"], found["exclude_max"] = item.lt, True
        elif isinstance(item, annotated_types.MaxLen):
            found["max_size"] = min(item.max_length, 4)
    return found


def _strategy(annotation: Any, info: FieldInfo, name: str) -> st.SearchStrategy[Any]:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return st.none() | _strategy(inner[0], info, name)
    if origin is Literal:
        return st.sampled_from(args)
    if origin is list:
        item = args[0]
        values = st.sampled_from(get_args(item)) if get_origin(item) is Literal else IDS
        return st.lists(values, max_size=_bounds(info).get("max_size", 4))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return st.none() | _model(annotation)
    bounds = {k: v for k, v in _bounds(info).items() if k != "max_size"}
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        low = bounds.get("min_value", 0) + (1 if bounds.get("exclude_min") else 0)
        return st.integers(min_value=low, max_value=bounds.get("max_value", 1_000_000))
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False, **bounds)
    if name == "name":
        return NAMES
    return IDS.filter(lambda text: text.lower() != "custom")  # "custom" names the custom-architecture form


# Each load scenario's own field is required (InferenceWorkload): drawn as None half the time, it is filled in so the
# draw is a workload rather than filtered out.
SCENARIO_LOADS = {
    "fixed_batch": ("batch", 8),
    "concurrency": ("concurrency", 8),
    "request_rate": ("requests_per_s", 1.0),
}


def _consistent(values: dict[str, Any]) -> dict[str, Any]:
    """The workload's cross-field rules met by nudging the draw (so most draws are workloads, not filtered out): one
    model (a catalog id or a custom one), the scenario's load field given and no other scenario's, a batch job's
    fields only at max throughput and never beside peak traffic, and no setting its other settings make inert
    (app/scoring/workload/: drafts without an acceptance, an engine's missing step budget or DP attention, a LoRA rank
    without adapters, spot terms without spot)."""
    values = dict(values)
    if values.get("custom_model") is not None:
        values.pop("model", None)
    elif values.get("model") is None:
        values["model"] = "m"
    field, value = SCENARIO_LOADS.get(values.get("scenario", ""), (None, None))
    for load in ("batch", "concurrency", "requests_per_s"):
        if load in values and load != field:
            values[load] = None
    if field is not None and values.get(field) is None:
        values[field] = value
    if "spec_draft_tokens" in values and not values.get("spec_acceptance"):
        values["spec_draft_tokens"] = None
    if values.get("engine") not in (None, "trtllm", "vllm"):
        values["max_num_batched_tokens"] = None
        if values.get("attention_parallel") == "dp" and values["engine"] in ("hf", "llamacpp"):
            values["attention_parallel"] = "auto"
    if values.get("engine") == "hf":  # no prefix cache across requests
        values["prefix_cache_hit"] = None
    if values.get("engine") == "llamacpp" and values.get("expert_parallel") == "ep":  # no expert parallelism
        values["expert_parallel"] = "tp"
    if (values.get("beam_width") or 1) > 1:  # no engine drafts beside beam search
        values.update(spec_acceptance=None, spec_draft_tokens=None)
    if values.get("method") in ("pretrain", "full_ft"):
        values["lora_rank"] = 16
    if "checkpoint_interval_hours" in values and "spot" not in values.get("price_types", []):
        values.update(checkpoint_interval_hours=1.0, interruptions_per_node_month=None)
    if "job_requests" in values:  # inference only
        if values.get("scenario") != "max_throughput" or values.get("peak_requests_per_s") is not None:
            values["job_requests"] = None
        if values["job_requests"] is None:
            values["job_deadline_hours"] = None
    return values


def _model(cls: type[BaseModel]) -> st.SearchStrategy[Any]:
    fields = {
        name: _strategy(info.annotation, info, name) for name, info in cls.model_fields.items() if name not in SKIP
    }

    def build(values: dict[str, Any]) -> Any:
        try:
            return cls.model_validate(_consistent(values))
        except ValidationError:
            return None  # a combination the model's own validators refuse: not a workload

    return st.fixed_dictionaries(fields).map(build).filter(lambda made: made is not None)


def _heads_divide(values: dict[str, Any]) -> dict[str, Any]:
    """The architecture's cross-field rules (workload.ModelArchitecture), met by nudging the draw so most drawn
    architectures are valid rather than filtered out: without head_dim the heads divide the hidden size (rounded to
    a multiple), KV heads divide the heads (mha: all of them), active parameters within the total, a mixture of
    experts routes 1 to num_experts per token (and only a mixture has MoE layers or fused experts), and MLA's own
    sizes are only an MLA's, its no-RoPE width completing the head."""
    heads = values["num_attention_heads"]
    if values.get("head_dim") is None and values["hidden_size"] % heads:
        values = {**values, "hidden_size": heads * max(1, -(-64 // heads), values["hidden_size"] // heads)}
    kv = values.get("num_kv_heads")
    if values.get("attention") == "mha":
        values = {**values, "num_kv_heads": heads}
    elif kv is not None:
        values = {**values, "num_kv_heads": max(d for d in range(1, min(kv, heads) + 1) if heads % d == 0)}
    active = values.get("active_params_b")
    if active is not None and active > values["params_b"]:
        values = {**values, "active_params_b": values["params_b"]}
    experts = values.get("num_experts", 0)
    per_token = values.get("experts_per_token", 0)
    values = {**values, "experts_per_token": min(max(per_token, 1), experts) if experts else 0}
    if not experts:  # MoE layers and fused experts or router are a mixture's
        values = {**values, "moe_layers": None, "experts_fused": False, "router_fused": False}
    elif values.get("moe_layers") is not None:
        values = {**values, "moe_layers": min(max(values["moe_layers"], 1), values["layers"])}
    if values.get("attention") == "mla" and values.get("kv_lora_rank", 0) < 1:
        values = {**values, "kv_lora_rank": 512}
    if values.get("attention") != "mla":  # the query's latent rank and the split head widths are MLA's alone
        values = {**values, "q_lora_rank": 0, "qk_nope_head_dim": 0, "v_head_dim": 0}
    elif values.get("qk_nope_head_dim"):  # given, it and the rotary part add up to the head
        head_dim = values.get("head_dim") or values["hidden_size"] // values["num_attention_heads"]
        values = {**values, "qk_nope_head_dim": max(head_dim - values.get("qk_rope_head_dim", 0), 0)}
    # params_b near what the shape holds (app.scoring.hf_config.params_check), where the field's bounds allow it
    try:
        counted_b = shape_param_count(SimpleNamespace(**values)) / 1e9
    except ValueError:  # a shape the counter refuses (the model's own check then says why): left as drawn
        return values
    bounds = _bounds(ModelArchitecture.model_fields["params_b"])
    if bounds.get("min_value", 0.0) <= counted_b <= bounds.get("max_value", float("inf")):
        values = {**values, "params_b": counted_b}
        if values.get("active_params_b") is not None and values["active_params_b"] > counted_b:
            values["active_params_b"] = counted_b
    return values


def _architecture() -> st.SearchStrategy[Any]:
    fields = {name: _strategy(info.annotation, info, name) for name, info in ModelArchitecture.model_fields.items()}

    def build(values: dict[str, Any]) -> Any:
        try:
            return ModelArchitecture.model_validate(_heads_divide(values))
        except ValidationError:
            return None

    return st.fixed_dictionaries(fields).map(build).filter(lambda made: made is not None)


def _custom_or_catalog(cls: type[BaseModel]) -> st.SearchStrategy[Any]:
    return _model(cls) | st.builds(
        lambda w, arch: w.model_copy(update={"custom_model": arch, "model": None}),
        _model(cls),
        _architecture(),
    )


@ROUND_TRIP
@given(_custom_or_catalog(InferenceWorkload))
def test_inference_workload_round_trips_through_its_canonical_query(workload: InferenceWorkload) -> None:
    query = canonical_query("inference", workload)
    parsed = parse(parse_qsl(query, keep_blank_values=True))
    assert parsed.errors == {}, (query, parsed.errors)
    assert parsed.workload == workload, query
    assert parsed.canonical == query  # canonical is a fixed point: the page never redirects its own link


@ROUND_TRIP
@given(_custom_or_catalog(TrainingWorkload))
def test_training_workload_round_trips_through_its_canonical_query(workload: TrainingWorkload) -> None:
    query = canonical_query("training", workload)
    parsed = parse(parse_qsl(query, keep_blank_values=True))
    assert parsed.errors == {}, (query, parsed.errors)
    assert parsed.workload == workload, query
    assert parsed.canonical == query


# columns both phases' tables have (rank itself is the default order, written as no sort)
SHARED_SORTS = st.none() | st.sampled_from(["gpu", "provider", "gpu_hour", "cost", "-rank", "-cost", "-gpu"])
VIEWS = st.builds(
    ResultsView, sort=SHARED_SORTS, show=st.integers(1, MAX_ROWS_PER_PAGE), page=st.integers(1, 10_000)
) | st.builds(ResultsView, sort=SHARED_SORTS, show=st.just("all"))


@ROUND_TRIP
@given(_model(TrainingWorkload) | _model(InferenceWorkload), VIEWS)
def test_a_results_view_round_trips_after_the_question(workload: Any, view: ResultsView) -> None:
    phase = "training" if isinstance(workload, TrainingWorkload) else "inference"
    query = with_view(canonical_query(phase, workload), view)
    parsed = parse(parse_qsl(query, keep_blank_values=True), paged=True)
    assert parsed.errors == {}, (query, parsed.errors)
    assert (parsed.workload, parsed.view) == (workload, view)
    assert parsed.canonical == query
    assert parsed.question == canonical_query(phase, workload)
