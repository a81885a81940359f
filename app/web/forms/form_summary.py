"""The one-line summary of a submitted question that a results page folds its form under ("Llama 3.1 70B · FP8 ·
2,000 → 400 tokens · TTFT ≤ 1,000 ms · TPOT ≤ 50 ms · 4 req/s peak"): the answer starts above the fold of a laptop
screen and the line says what was asked. Built from the validated question, so it shows what was ranked."""

from __future__ import annotations

from app.scoring.explain import percent
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.input_checks.messages import FieldError
from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.ownership.question import OwnershipQuestion
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload, ModelChoice, TrainingWorkload
from app.service.rank.model_spec import model_spec_for
from app.web.rendering.render import count_words

SEPARATOR = " · "
METHOD_WORDS = {"pretrain": "pretraining", "full_ft": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}


def number(value: float) -> str:
    """A figure as a person writes it: 1000.0 → '1,000', 0.5 → '0.5'."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def model_label(snapshot: CatalogSnapshot, model_id: str | None, custom_name: str | None = None) -> str:
    """The model's catalog name (its id where the catalog lacks it), or a custom architecture's name."""
    if custom_name is not None:
        return custom_name
    spec = snapshot.models.get(model_id or "")
    return spec.name if spec else str(model_id)


def workload_model(workload: ModelChoice, snapshot: CatalogSnapshot) -> str:
    """The question's model by name: the catalog's, or a custom architecture's."""
    custom = workload.custom_model.name if workload.custom_model is not None else None
    return model_label(snapshot, workload.model, custom)


def _limits(ttft_ms: float, tpot_ms: float, limits_at: str | None = None) -> list[str]:
    slow_end = ["even at the bands' slow end"] if limits_at == "band_high" else []
    return [f"TTFT ≤ {number(ttft_ms)} ms", f"TPOT ≤ {number(tpot_ms)} ms", *slow_end]


def inference_load(workload: InferenceWorkload) -> str:
    """The load the question was ranked at: its scenario's own setting, then any peak that sizes replicas."""
    scenario = workload.scenario
    parts: list[str] = []
    if scenario == "request_rate" and workload.requests_per_s is not None:
        parts.append(f"{number(workload.requests_per_s)} req/s")
    elif scenario == "concurrency" and workload.concurrency is not None:
        parts.append(f"{workload.concurrency:,} clients")
    elif scenario == "fixed_batch" and workload.batch is not None:
        parts.append(f"batch {workload.batch:,}")
    elif scenario == "single_stream":
        parts.append("one stream")
    elif scenario == "max_throughput":
        job = workload.job_requests
        parts.append(f"a job of {job:,} requests" if job else "max throughput")
        if job and workload.job_deadline_hours is not None:
            parts[-1] += f" in {number(workload.job_deadline_hours)} h"
    if workload.peak_requests_per_s is not None:
        parts.append(f"{number(workload.peak_requests_per_s)} req/s peak")
    elif workload.peak_concurrency is not None:
        parts.append(f"{workload.peak_concurrency:,} clients at peak")
    return SEPARATOR.join(parts) or "latency bound"


def dtype_words(weight_dtype: str) -> str:
    """BF16, FP8, INT8 W8A8: a weight precision as a summary names it."""
    return weight_dtype.upper().replace("_", " ")


def ranked_workload(workload: InferenceWorkload, snapshot: CatalogSnapshot) -> InferenceWorkload:
    """The workload at the weight dtype its answer ranked: one naming none ranks the model's release precision (FP8
    for DeepSeek-R1), which its summary must name rather than the BF16 default."""
    try:
        model = model_spec_for(workload, snapshot)
    except FieldError:
        return workload
    return release_weights(workload, model, snapshot.quality)[0]


def inference_summary(
    workload: InferenceWorkload, model_name: str, *, load: str | None = None, dtype: bool = True
) -> str:
    """Model, weight precision, request lengths, latency limits and load. `load`: a page's own traffic in place
    of the workload's; `dtype`=False where each row sets its own precision (/precision)."""
    parts = [model_name]
    if dtype:
        parts.append(dtype_words(workload.weight_dtype))
    parts.append(f"{workload.input_len:,} → {workload.output_len:,} tokens")
    parts += _limits(workload.ttft_ms, workload.tpot_ms, workload.limits_at)
    parts.append(inference_load(workload) if load is None else load)
    return SEPARATOR.join(parts)


def training_summary(workload: TrainingWorkload, model_name: str) -> str:
    """Model, method, precision, sequence and batch, token budget, and the deadline and job-size limits."""
    method = METHOD_WORDS[workload.method]
    if workload.method in ("lora", "qlora"):
        method += f" r{workload.lora_rank}"
    parts = [
        model_name,
        method,
        workload.precision.upper(),
        f"{workload.seq_len:,}-token sequences × {workload.global_batch_seqs:,} per step",
        f"{count_words(workload.total_tokens)} tokens",
        f"≤ {number(workload.max_days)} days",
        f"≤ {workload.max_gpus:,} GPUs",
    ]
    if workload.budget_usd is not None:
        parts.append(f"≤ ${number(workload.budget_usd)}")
    if workload.limits_at == "band_high":
        parts.append("even at the band's slow end")
    return SEPARATOR.join(parts)


def traffic_summary(traffic: Traffic) -> str:
    """A traffic as it was given: its busiest hour's rate, or its requests a day."""
    if traffic.peak_requests_per_s is not None:
        return f"{number(traffic.peak_requests_per_s)} req/s peak"
    if traffic.requests_per_day is not None:
        return f"{number(traffic.requests_per_day)} requests/day"
    return "default traffic"


def mix_summary(question: MixQuestion, model_name: str, ranked_dtype: str | None = None) -> str:
    """`ranked_dtype`: the weight dtype the answer ranked (the release precision where the question named none)."""
    parts = [
        model_name,
        dtype_words(ranked_dtype or question.weight_dtype),
        *_limits(question.ttft_ms, question.tpot_ms, question.limits_at),
    ]
    shares = ", ".join(f"{b.name} {percent(b.share / question.share_total)}" for b in question.mix)
    parts += [f"{number(question.requests_per_day)} requests/day", f"lengths {shares}"]
    return SEPARATOR.join(parts)


OWN_SHAPE = ("gpu", "gpu_count", "utilisation_pct", "gpus_per_server")  # said in words; the rest are costs


def own_summary(question: OwnershipQuestion) -> str:
    """What is owned and how busy, and how many costs are the user's own rather than the defaults (a value equal to
    its default is none: the form submits every field, the canonical link only those set away from it)."""
    parts = [
        f"{question.gpu_count:,} × {question.gpu}",
        f"{question.gpus_per_server} per server",
        f"{number(question.utilisation_pct)}% utilisation",
    ]
    fields = OwnershipQuestion.model_fields
    given = [name for name in fields.keys() - set(OWN_SHAPE) if getattr(question, name) != fields[name].default]
    if given:
        parts.append(f"{len(given)} cost{'s' if len(given) != 1 else ''} of yours")
    return SEPARATOR.join(parts)


def question_summary(workload: InferenceWorkload | TrainingWorkload, snapshot: CatalogSnapshot) -> str:
    """The ranking form's summary, of either phase."""
    name = workload_model(workload, snapshot)
    if isinstance(workload, TrainingWorkload):
        return training_summary(workload, name)
    return inference_summary(ranked_workload(workload, snapshot), name)


def traffic_question_summary(
    workload: InferenceWorkload, traffic: Traffic, snapshot: CatalogSnapshot, months: int | None = None
) -> str:
    """/plan's and /disagg's: the serving workload at its traffic, and a plan's months of serving after training."""
    ranked = ranked_workload(workload, snapshot)
    line = inference_summary(ranked, workload_model(workload, snapshot), load=traffic_summary(traffic))
    return line + (f"{SEPARATOR}trained, then served {months} month{'s' if months != 1 else ''}" if months else "")
