"""The bridge from a parsed workload to the pure engine and back to plain JSON-ready dicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from datetime import date
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from app.scoring import hf_quantization
from app.scoring.engine_support import filter_reason
from app.scoring.explain import shown_as_close_call
from app.scoring.hf_config import model_spec_from_hf_config
from app.scoring.inference.ranking.options import RANK_METRIC_FIELDS, InferenceRanking
from app.scoring.inference.ranking.release_precision import Weights, release_weights
from app.scoring.messages import FieldError
from app.scoring.offers import LazyOptions, left_out_note
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.training.run.batch_size import global_batch
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from app.service import rank_sort
from app.service.catalog_ids import unknown_id_errors
from app.service.query.canonical import canonical_query

if TYPE_CHECKING:  # imported by rank() on first use, like rank_training
    from app.scoring.training.ranking.results import TrainingRanking

Workload = InferenceWorkload | TrainingWorkload


class UnknownId(FieldError):
    """The workload names what the catalog lacks: an unknown model id or a config.json that cannot be read, or
    GPU, provider or vendor ids its filters name that no catalog entry has (`errors`: every such field)."""


class BeyondContext(UnknownId):
    """An inference workload whose prompt and output do not fit the model's context window."""


class EngineLacksHardware(UnknownId):
    """An engine asked of GPUs it does not run on: every GPU the workload's filters leave (engine_support)."""


class NotForThisModel(UnknownId):
    """A setting the workload's model has nothing to apply to (expert parallelism on a dense model)."""


def model_spec_for(workload: Workload, snapshot: CatalogSnapshot) -> ModelSpec:
    """The workload's model, once every catalog id the workload names is known (raises UnknownId); an inference
    workload longer than the model's context raises BeyondContext."""
    unknown = unknown_id_errors(workload, snapshot)
    try:
        spec = _model_spec(workload, snapshot)
    except UnknownId as exc:
        raise UnknownId(exc.field, str(exc), unknown) from None
    if unknown:
        field, message = next(iter(unknown.items()))
        raise UnknownId(field, message, unknown)
    if isinstance(workload, InferenceWorkload):
        check_context(workload.input_len, workload.output_len, spec)
        check_experts(workload.expert_parallel, spec)
        check_engine_hardware(workload, snapshot)
    return spec


def check_engine_hardware(workload: InferenceWorkload, snapshot: CatalogSnapshot) -> None:
    """GPU or vendor filters that leave only GPUs the engine does not run on (TensorRT-LLM on MI300X) are refused at
    `engine`: without such filters, those GPUs are ranked infeasible with the reason instead."""
    if not (workload.gpus or workload.vendors):
        return
    gpu_ids = {g.lower() for g in workload.gpus}
    vendors = {v.lower() for v in workload.vendors}
    left = [
        g
        for g in snapshot.gpus.values()
        if (not gpu_ids or g.id.lower() in gpu_ids) and (not vendors or g.vendor.lower() in vendors)
    ]
    reason = filter_reason(workload.engine, left)
    if reason is not None:
        raise EngineLacksHardware("engine", reason)


def check_experts(expert_parallel: str, spec: ModelSpec) -> None:
    """Expert parallelism places a mixture of experts' experts: asked of a dense model it would change nothing."""
    if expert_parallel == "ep" and not spec.is_moe:
        raise NotForThisModel(
            "expert_parallel",
            f"{spec.name} is a dense model, with no experts to place: ep is for a mixture of experts; choose tp",
        )


def check_context(input_len: int, output_len: int, spec: ModelSpec) -> None:
    """A request's prompt and output must fit the model's context (training may extend it: its ranking notes that)."""
    context = spec.max_context
    if context is None or input_len + output_len <= context:
        return
    total = input_len + output_len
    message = f"input_len + output_len ({total:,} tokens) exceeds {spec.name}'s context of {context:,} tokens"
    raise BeyondContext("input_len" if input_len >= context else "output_len", message)


def _model_spec(workload: Workload, snapshot: CatalogSnapshot) -> ModelSpec:
    if workload.custom_model is not None:
        return spec_from_architecture(workload.custom_model)
    if workload.hf_config is not None:
        try:
            return model_spec_from_hf_config(dict(workload.hf_config), "custom")
        except (ValueError, TypeError) as exc:
            raise UnknownId("hf_config", f"could not read this config.json: {exc}") from None
    assert workload.model is not None
    spec = snapshot.models.get(workload.model) or next(
        (m for k, m in snapshot.models.items() if k.lower() == workload.model.lower()), None
    )
    if spec is None:
        raise UnknownId("model", f"unknown model {workload.model!r}; GET /api/v1/models lists the catalog's models")
    return spec


def spec_from_architecture(arch: ModelArchitecture) -> ModelSpec:
    heads = arch.num_attention_heads
    return ModelSpec(
        id="custom",
        name=arch.name,
        params_b=arch.params_b,
        active_params_b=arch.active_params_b or arch.params_b,
        layers=arch.layers,
        hidden_size=arch.hidden_size,
        num_attention_heads=heads,
        num_kv_heads=arch.num_kv_heads or heads,
        head_dim=arch.head_dim or arch.hidden_size // heads,
        intermediate_size=arch.intermediate_size,
        vocab_size=arch.vocab_size,
        num_experts=arch.num_experts,
        experts_per_token=arch.experts_per_token,
        moe_intermediate_size=arch.moe_intermediate_size,
        num_shared_experts=arch.num_shared_experts,
        moe_layers=arch.moe_layers or 0,  # blank: every layer of a MoE model (ModelSpec)
        attention=arch.attention,
        kv_lora_rank=arch.kv_lora_rank,
        qk_rope_head_dim=arch.qk_rope_head_dim,
        q_lora_rank=arch.q_lora_rank,
        qk_nope_head_dim=arch.qk_nope_head_dim,
        v_head_dim=arch.v_head_dim,
        experts_fused=arch.experts_fused,
        router_fused=arch.router_fused,
        max_context=arch.max_context,
        release_precision=arch.release_precision,
        release_precision_source=hf_quantization.source(arch.quantization, arch.release_precision),
        quantization=arch.quantization,
    )


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


_SCALARS = (str, int, bool, type(None))


def plain(value: Any, shared: dict[int, Any] | None = None) -> Any:
    """Dataclasses, lists and dates → JSON-ready values (faster than dataclasses.asdict).

    `shared` memoises converted lists by identity: every offer of one configuration carries the same
    `terms` list, so a ranking converts each configuration's explanation once, not once per offer."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        return round(value, 6)
    if kind is list and shared is not None:
        found = shared.get(id(value))
        if found is None:
            found = shared[id(value)] = [plain(v, shared) for v in value]
        return found
    if isinstance(value, list | tuple | LazyOptions):
        return [plain(v, shared) for v in value]
    if isinstance(value, dict):
        return {k: plain(v, shared) for k, v in value.items()}
    if isinstance(value, date):
        return value.isoformat()
    if is_dataclass(value) and not isinstance(value, type):
        names: tuple[str, ...] = _field_names(value.__class__)
        return {name: plain(getattr(value, name), shared) for name in names}
    return value


EXPLANATION_FIELDS = ("terms", "assumptions")  # what a lean answer (terms=false) leaves out


def mean_latencies(ttft_ms: float | None, tpot_ms: float | None) -> dict[str, float | None]:
    """The mean latencies as the APIs name them (report_schemas.MeanLatencyOut): explicit means, and the old names
    (ttft_ms, tpot_ms) kept as deprecated aliases of the same values, since a request's ttft_ms limits a p99."""
    return {"ttft_mean_ms": ttft_ms, "tpot_mean_ms": tpot_ms, "ttft_ms": ttft_ms, "tpot_ms": tpot_ms}


def plain_row(option: Any, include_terms: bool, shared: dict[int, Any] | None = None) -> dict[str, Any]:
    """One ranked option as a dict; without terms (and assumptions), they are never converted (the costliest part)."""
    names: tuple[str, ...] = _field_names(option.__class__)
    return {
        name: plain(getattr(option, name), shared) for name in names if include_terms or name not in EXPLANATION_FIELDS
    }


class Ranked(NamedTuple):
    """What rank() answers: the model ranked, the engine's ranking, the workload as ranked (an inference workload
    without a weight_dtype gets the release's) and its Weights (None for training)."""

    model: ModelSpec
    ranking: InferenceRanking | TrainingRanking
    workload: Workload
    weights: Weights | None


def rank(phase: str, workload: Workload, snapshot: CatalogSnapshot) -> Ranked:
    """Run the engine's ranking for the phase (raises UnknownId). An inference workload without a weight_dtype ranks
    the model's release precision."""
    model = model_spec_for(workload, snapshot)
    if phase == "training":
        from app.scoring.training.ranking.rank import rank_training

        assert isinstance(workload, TrainingWorkload)
        return Ranked(model, rank_training(workload, snapshot, model), workload, None)
    from app.scoring.inference.ranking.rank import rank_inference

    assert isinstance(workload, InferenceWorkload)
    answered, weights = release_weights(workload, model, snapshot.quality)
    return Ranked(model, rank_inference(answered, snapshot, model), answered, weights)


def rank_payload(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    share_url: str,
    limit: int | None = None,
    include_terms: bool = True,
    sort: str | None = None,
) -> dict[str, Any]:
    """The rank API's response body: {workload, model, options (best first), share_url, ...}, each option with
    its `rank` (1 = best; in ranked order, its position). With a `sort` (rank_sort), the feasible options come in
    that column's order, then the infeasible ones, each keeping its rank, and the body says `sort`: what a sorted
    results page shows, as its twins give it."""
    model, ranking, workload, weights = rank(phase, workload, snapshot)
    positions = view_positions(phase, ranking, sort, len(ranking.options))
    if limit is not None:
        positions = positions[:limit]
    shared: dict[int, Any] = {}  # the options' lists live as long as `ranking`, so ids stay unique
    rows = [plain_row(ranking.options[p], include_terms, shared) for p in positions]
    ranked_rows = [{"rank": p + 1, **row} for p, row in zip(positions, rows, strict=True)]
    body = _body(phase, workload, snapshot, model, ranking, ranked_rows, share_url, weights)
    if not rank_sort.is_ranked_order(sort):
        body["sort"] = sort
    return body


def view_positions(phase: str, ranking: Any, sort: str | None, end: int) -> list[int]:
    """Positions (0-based ranks) of the ranking's first `end` options in the view's order: ranked order, or
    the feasible options sorted by a column of the table (rank_sort; each read through the ranking's sort_value,
    which builds no option where it can) and the infeasible ones after them, still in ranked order."""
    if rank_sort.is_ranked_order(sort):
        return list(range(end))
    assert sort is not None
    feasible = ranking.feasible_count
    metric = "usd_per_step" if phase == "training" else RANK_METRIC_FIELDS[ranking.rank_by]
    value = getattr(ranking, "sort_value", None) or (lambda position, name: getattr(ranking.options[position], name))
    ordered = rank_sort.sorted_positions(value, feasible, phase, sort, metric)
    return (ordered + list(range(feasible, len(ranking.options))))[:end]


def _body(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    model: ModelSpec,
    ranking: Any,
    rows: list[dict[str, Any]],
    share_url: str,
    weights: Weights | None = None,
) -> dict[str, Any]:
    extra: dict[str, Any] = {} if weights is None else {"weights": weights_body(weights)}
    if phase == "training":  # what scaling out buys: days and total cost per GPU count of the leading machines
        extra["deadline_days"] = getattr(workload, "max_days", None)
        extra["frontier"] = plain(getattr(ranking, "frontier", []))
        assert isinstance(workload, TrainingWorkload)
        extra["global_batch"] = _global_batch(workload, model)
        wider = getattr(ranking, "deadline_max_gpus", None)
        if wider:  # nothing on time, and Max GPUs is what stops the nearest run: the same question at enough GPUs
            at_wider = workload.model_copy(update={"max_gpus": wider})
            extra["deadline_max_gpus"] = {"max_gpus": wider, "url": "/?" + canonical_query("training", at_wider)}
    else:
        extra["rank_by"] = getattr(ranking, "rank_by", "output_tokens")
        extra["over_limits_options"] = getattr(ranking, "over_limits_count", 0)  # the last feasible ones
        if getattr(ranking, "lowest_p99", None):  # every feasible option is over the limits: what this load allows
            extra["lowest_p99"] = plain(ranking.lowest_p99)
        if isinstance(workload, InferenceWorkload) and workload.job_requests:
            extra["serverless_job"], extra["serverless_job_left_out"] = serverless_job(workload, snapshot, model)
        cheaper = (
            cheaper_on_replicas(workload, snapshot, model, ranking) if isinstance(workload, InferenceWorkload) else None
        )
        if cheaper is not None:
            extra["replicas"] = cheaper
    return {
        "phase": phase,
        "workload": workload.model_dump(mode="json", exclude_none=True),
        "model": plain(model),
        "options": rows,
        "total_options": len(ranking.options),
        "feasible_options": ranking.feasible_count,
        "notes": list(getattr(ranking, "notes", []))
        + _left_out(ranking, snapshot, workload)
        + ([weights.note] if weights else [])
        + ([extra["replicas"]["note"]] if "replicas" in extra else []),
        "catalog_version": snapshot.version,
        "share_url": share_url,
        **extra,
    }


def weights_body(weights: Weights) -> dict[str, Any]:
    """An inference answer's `weights`: the dtype it ranked, whether that is the model's release precision, and why."""
    release = weights.release
    return {
        "weight_dtype": weights.dtype,
        "from_release": weights.from_release,
        "release_precision": release.precision,
        "release_assumed": release.assumed,
        "release_source": release.source,
        "note": weights.note,
    }


# One replica taking a load whole costs at least this many times the cheapest per token of replicas sized to meet the
# limits: then the answer points at the replicas (twice is well outside the ±25 % the estimates' bands span).
REPLICAS_NOTE_RATIO = 2.0


def replicas_workload(workload: InferenceWorkload) -> InferenceWorkload | None:
    """For a load one replica takes whole (a request rate, or clients in flight): the same question as latency_bound
    with that load as its peak, so replicas sized to meet the limits carry it (None for any other question)."""
    if workload.scenario == "request_rate" and workload.requests_per_s:
        peak = max(workload.peak_requests_per_s or 0.0, workload.requests_per_s)
        update: dict[str, object] = {"requests_per_s": None, "peak_requests_per_s": peak, "peak_concurrency": None}
    elif workload.scenario == "concurrency" and workload.concurrency and not workload.peak_requests_per_s:
        clients = max(workload.peak_concurrency or 0, workload.concurrency)
        update = {"concurrency": None, "peak_concurrency": clients}
    else:
        return None
    return workload.model_copy(update={"scenario": "latency_bound", **update})


def cheaper_on_replicas(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec, ranking: Any
) -> dict[str, Any] | None:
    """Where the best row takes a load on one replica at REPLICAS_NOTE_RATIO or more times the $ per million output
    tokens of replicas sized to meet the limits (an 8B model at 512 clients: 32 H100s in one TP8 x PP4 replica at
    $4.82/M, against $0.19/M on 1-GPU replicas), the note saying so and the link to that question
    (replicas_workload)."""
    sized = replicas_workload(workload)
    best = ranking.options[0] if ranking.feasible_count else None
    if sized is None or best is None or not best.usd_per_million_output_tokens:
        return None
    from app.scoring.inference.ranking.rank import rank_inference

    per_token = rank_inference(sized.model_copy(update={"rank_by": "output_tokens"}), snapshot, model)
    spread = per_token.options[0] if per_token.feasible_count else None
    if spread is None or not spread.usd_per_million_output_tokens:
        return None
    ratio = best.usd_per_million_output_tokens / spread.usd_per_million_output_tokens
    if ratio < REPLICAS_NOTE_RATIO:
        return None
    load = f"{workload.concurrency} clients" if workload.scenario == "concurrency" else "this request rate"
    note = (
        f"One replica taking all {load} costs ${best.usd_per_million_output_tokens:.3g} per million output tokens at "
        f"best ({best.gpu_count}x{best.gpu_id}, TP{best.tensor_parallel} x PP{best.pipeline_parallel}), {ratio:.0f}x "
        f"the ${spread.usd_per_million_output_tokens:.3g} of replicas sized to meet the limits "
        f"({spread.gpu_count}x{spread.gpu_id} each, {spread.replicas} replicas): rank the same load as a peak"
    )
    return {
        "note": note,
        "url": "/?" + canonical_query("inference", sized),
        "usd_per_million_output_tokens": round(spread.usd_per_million_output_tokens, 6),
        "ratio": round(ratio, 3),
    }


def _global_batch(workload: TrainingWorkload, model: ModelSpec) -> dict[str, Any]:
    """The batch the ranking used and why; for pretraining far below a published batch, a link to the same
    question at that batch (the same token budget, fewer steps)."""
    batch = global_batch(model, workload)
    body: dict[str, Any] = plain(batch)
    if batch.typical is not None:
        at_typical = workload.model_copy(update={"global_batch_seqs": batch.typical.sequences})
        body["typical"]["url"] = "/?" + canonical_query("training", at_typical)
    return body


def _left_out(ranking: Any, snapshot: CatalogSnapshot, workload: Workload) -> list[str]:
    """Where nothing is feasible: the offers the filters' price terms or staleness left out, if that is why."""
    if ranking.feasible_count:
        return []
    note = left_out_note(snapshot.offers, snapshot.gpus, workload)
    return [note] if note else []


SERVERLESS_JOB_QUOTES = 3  # the cheapest per-token API prices a batch job is set beside


def serverless_job(
    workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The same batch job through the cheapest per-token APIs that list the model (or a comparable listed model,
    marked substitute): requests x each request's price at the list prices (no batch-API discount is in the
    reference prices). Only current, verified prices are compared (stale ones too with include_stale); the
    second list holds the labelled prices left out that would have cost less than the first compared one."""
    from app.scoring.serving.economics import cheapest_comparable, serverless_quotes

    requests = workload.job_requests or 0
    quotes = serverless_quotes(
        model,
        snapshot.token_prices,
        snapshot.models,
        0.0,
        workload.input_len,
        workload.output_len,
        workload.prefix_cache_hit or 0.0,
        include_stale=workload.include_stale,
    )

    def row(quote: Any) -> dict[str, Any]:
        shown = {k: v for k, v in plain(quote).items() if k != "monthly_usd"}
        return {**shown, "job_usd": round(quote.usd_per_request * requests, 6)}

    best = cheapest_comparable(quotes)
    used = [row(q) for q in quotes if q.comparable][:SERVERLESS_JOB_QUOTES]
    left_out = [
        row(q) for q in quotes if not q.comparable and (best is None or q.usd_per_request < best.usd_per_request)
    ][:SERVERLESS_JOB_QUOTES]
    return used, left_out


LEADING_CONFIGURATIONS = 12  # distinct (GPU, count) configurations a page's charts may draw (the scatter's 12)
CLOSE_CALL_ROWS = 25  # the summary counts close calls among the best this many rows, whatever page is shown


@dataclass(frozen=True, kw_only=True)
class RankedPage:
    """One page of a ranking, built in time that grows with the rows shown, not with the offers ranked:
    only the page's rows, the leading configurations and the chosen GPUs' best rows become options."""

    payload: dict[str, Any]  # the rank API body, with only this page's rows as `options`, in the view's order
    start: int  # position (0-based) of the page's first row among the feasible options in the view's order
    ranks: list[int]  # each of the page's rows' rank (1 = best), whatever order the view sorts them in
    best: dict[str, Any] | None  # the best feasible option, whatever page is shown
    close_calls: int  # runners-up among the best CLOSE_CALL_ROWS rows whose band overlaps the best's
    leaders: list[dict[str, Any]]  # the best option of each leading distinct (GPU, count), best first
    infeasible: list[dict[str, Any]]  # {gpu_id, gpu_count, reason, offers}: one per configuration and reason
    per_gpu: dict[str, dict[str, Any]]  # for each GPU asked for: its best option (or first infeasible one)


def ranked_page(
    phase: str,
    workload: Workload,
    snapshot: CatalogSnapshot,
    share_url: str,
    start: int,
    rows: int | None,
    gpus: Sequence[str] = (),
    sort: str | None = None,
) -> RankedPage:
    """Feasible options start … start + rows (all of them from start when rows is None) in ranked order, or
    sorted by a column of the table (rank_sort; every feasible option is built then), with what the page's
    summary, charts and infeasible list need. Raises UnknownId."""
    model, ranking, workload, weights = rank(phase, workload, snapshot)
    feasible, options, keys = ranking.feasible_count, ranking.options, ranking.row_keys
    end = feasible if rows is None else min(feasible, start + rows)
    positions = view_positions(phase, ranking, sort, end)[start:]
    shared: dict[int, Any] = {}
    page_rows = [plain_row(options[p], True, shared) for p in positions]
    # One best row per feasible (GPU, count), best first: as many as the machines, whatever the sellers.
    best_rows = ranking.leaders()
    wanted: dict[str, Any] = {gpu: None for gpu in gpus}  # GPU -> its best row, None until found
    for option in best_rows:
        if option.gpu_id in wanted and wanted[option.gpu_id] is None:
            wanted[option.gpu_id] = option
    groups: dict[tuple[str, int, str], dict[str, Any]] = {}
    for position, key in enumerate(keys[feasible:], start=feasible):  # cheap keys, never options
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"gpu_id": key.gpu_id, "gpu_count": key.gpu_count, "reason": key.reason, "offers": 0}
            if key.gpu_id in wanted and wanted[key.gpu_id] is None:
                wanted[key.gpu_id] = options[position]
        group["offers"] += 1
    leaders = [plain_row(o, False) for o in best_rows[:LEADING_CONFIGURATIONS]]
    flags = [o.close_call for o in options[: min(feasible, CLOSE_CALL_ROWS)]]  # the best's too: rank 1 is left out
    return RankedPage(
        payload=_body(phase, workload, snapshot, model, ranking, page_rows, share_url, weights),
        start=start,
        ranks=[p + 1 for p in positions],
        best=leaders[0] if leaders else None,
        close_calls=sum(shown_as_close_call(flag, number) for number, flag in enumerate(flags, start=1)),
        leaders=leaders,
        infeasible=list(groups.values()),
        per_gpu={g: plain_row(o, False) for g, o in wanted.items() if o is not None},
    )
