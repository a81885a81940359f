"""Predict one row of training_cases.csv (shared/validation) with the training estimator.

Parallelism, recompute and micro-batch are read from the notes only through general patterns ("TP8", "PP4", "VP6",
"EP64", "FSDP2" alone as FSDP over every GPU, "sp8", "activation checkpointing True", "full AC", a cumulative table's
rows above "+ Activation Checkpointing" as none, "micro-batch 4", "local bs 2", "batch 2" that makes up the global
batch), the communication they state hidden (async TP, DualPipe), a run without torch.compile, the optimizer recipe
through training_recipes ("8-bit AdamW", "CPU offload", a pure-bf16 stack), and a stack the notes name is read through
STACKS_IN_NOTES (how it splits a job, how it packs sequences); training_notes.py holds those readers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import get_args

from pydantic import ValidationError

from app.calibration.training.memory_features import (
    FSDP_WEIGHT_OFFLOAD,
    WORKLOAD_OPTIONS,
    fsdp_weight_offload,
    fused_layers_stated,
    stated_memory_options,
    unfused_loss_stated,
    unmodelled_memory_features,
)
from app.calibration.training.published_memory import published_peak
from app.calibration.training.training_notes import (
    FRAMEWORKS,
    STACKS_IN_NOTES,
    _int,
    eager_changes,
    era_efficiency,
    execution_from_notes,
    layout_from_notes,
    ngc_reference_stack,
    ran_eager,
    stack_in_notes,
    stated_overlap_changes,
)
from app.calibration.training.training_recipes import recipe_from_notes
from app.calibration.validation.cases import CasePrediction, MemoryCheck, UnreadableRow, cell_number, measured_value
from app.scoring.efficiency import training as eff
from app.scoring.hardware.gpu_gaps import fill_missing_peaks
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.estimate import TrainingEstimate, estimate_training
from app.scoring.training.layouts.eager_activations import stack_layer
from app.scoring.training.layouts.fit_search import first_fit
from app.scoring.training.layouts.memory import (
    GB,
    Layout,
    logits_bytes,
    memory_needed_gb,
    model_state_bytes,
    runtime_reserve_gb,
)
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.step_peak import workload_peak
from app.scoring.training.step.flops import attention_flops_per_token, dense_flops_per_token
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY
from app.scoring.training.step.mfu import gpu_family, peak_tflops
from app.scoring.workload import Precision, TrainingWorkload

METRICS = ("tokens_s_per_gpu", "step_time_s", "mfu_pct")
UNFUSED_LOSS_STACK = "auto"  # a stack priced with an unfused loss (efficiency.FUSED_LOSS_FRAMEWORKS leaves it out)


# Precision cells as sources write them -> the workload's precision (block-scaled formats price like their width).
PRECISIONS = {"mxfp8": "fp8", "fp8_e4m3": "fp8", "nvfp4": "fp4", "mxfp4": "fp4", "fp4_nvfp4": "fp4", "fp4_mxfp4": "fp4"}

# Stated defaults for cells a source left empty (the prediction's reason says which were assumed).
DEFAULT_PRECISION = "bf16"  # mixed-precision BF16 is the default of every framework in the file since 2022
DEFAULT_JOB_GPUS = 2048  # a pretraining job of the LLaMA / Llama 2 era (LLaMA paper §2.4: 2,048 A100-80GB)
DEFAULT_PRETRAIN_BATCH_TOKENS = 4 * 1024 * 1024  # 4M-token global batch (LLaMA, Llama 2, GPT-3 papers)
# A batch the notes state per GPU with no accumulation (torchtune's `batch_size` is per device): the global batch of a
# data-parallel job is that times its GPUs.
PER_DEVICE_BATCH = r"\bbatch size (\d+) without grad(?:ient)? accumulation"


def _cell_int(row: dict[str, str], key: str) -> int | None:
    value = cell_number(row, key, least=1, whole=True)
    return None if value is None else int(value)


def _framework(row: dict[str, str], assumed: list[str]) -> str:
    """The stack the case runs as: NVIDIA's reference stack for an MLPerf row run in its NGC container, its framework
    column, else a stack its notes name, else auto, said in `assumed`
    (a column the estimator does not tell apart, maxtext or other, ran as auto without a word)."""
    cell = (row.get("framework") or "").strip()
    reference = ngc_reference_stack(row)
    if reference is not None:
        return reference
    stack = stack_in_notes(row)
    if stack is not None:
        return STACKS_IN_NOTES[stack]
    if cell.lower() in FRAMEWORKS:  # Megatron-LM as its project writes it
        return FRAMEWORKS[cell.lower()]
    known = ", ".join(sorted(FRAMEWORKS))
    assumed.append(f"framework {cell or 'empty'}: auto assumed (the stacks told apart: {known})")
    return "auto"


def read_row(row: dict[str, str]) -> tuple[TrainingWorkload, int, list[str]]:
    """The workload and GPU count of a case, with defaults (and notes saying so) for empty cells."""
    assumed: list[str] = []
    seq_len = _cell_int(row, "seq_len")
    if seq_len is None:
        raise UnreadableRow("seq_len empty: tokens per sequence unknown")
    gpu_count = _cell_int(row, "gpu_count")
    if gpu_count is None:
        gpu_count = DEFAULT_JOB_GPUS
        assumed.append(f"gpu_count empty: {gpu_count} assumed")
    batch = _cell_int(row, "global_batch_seqs")
    per_device = _int(PER_DEVICE_BATCH, row.get("notes") or "")
    if batch is None and per_device:
        batch = per_device * gpu_count
        assumed.append(f"global_batch_seqs empty: {per_device} per GPU without accumulation × {gpu_count} GPUs")
    if batch is None:
        per_job = DEFAULT_PRETRAIN_BATCH_TOKENS // seq_len if row.get("method") == "pretrain" else 0
        batch = max(gpu_count, per_job)
        assumed.append(f"global_batch_seqs empty: {batch} assumed")
    precision = PRECISIONS.get((row.get("precision") or "").lower(), row.get("precision") or DEFAULT_PRECISION)
    if not row.get("precision"):
        assumed.append(f"precision empty: {precision} assumed")
    recipe = recipe_from_notes(row)
    framework = _framework(row, assumed)
    try:
        workload = TrainingWorkload(
            model=row["model"],
            method=row["method"],
            precision=precision,
            seq_len=seq_len,
            global_batch_seqs=batch,
            framework=framework,
            max_gpus=max(1, min(65_536, gpu_count)),
            optimizer=recipe.optimizer,
            offload=recipe.offload,
            **stated_memory_options(row.get("notes") or "", row.get("method") or "", framework, recipe.offload),
        )
    except ValidationError as error:  # outside the product's bounds: say which field and why, in one line
        raise UnreadableRow("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())) from None
    return workload, gpu_count, assumed


def _mfu_pct(est: TrainingEstimate, gpu: GpuSpec, model: ModelSpec, w: TrainingWorkload, notes: str) -> float | None:
    peak = peak_tflops(gpu, w.precision)[0]
    if not peak:
        return None
    flops = dense_flops_per_token(model, w.method)
    lowered = notes.lower()
    if not ("attention not counted" in lowered or "without attention" in lowered):
        flops += attention_flops_per_token(model, w.seq_len)
    return est.tokens_per_s_per_gpu * flops / (peak * 1e12) * 100


def _uncovered(row: dict[str, str], reason: str) -> CasePrediction:
    return CasePrediction(
        row.get("case_id", ""),
        row.get("metric", ""),
        row.get("source", ""),
        row.get("gpu", ""),
        None,
        measured_value(row.get("value")),
        None,
        False,
        reason,
    )


def predict_estimate(
    row: dict[str, str], gpus: dict, models: dict, e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY
):
    """(estimate, gpu, model, workload) for a case row, or a reason string when not modelled."""
    gpu, model = gpus.get(row.get("gpu", "")), models.get(row.get("model", ""))
    if gpu is None or model is None:
        return f"unknown {'GPU' if gpu is None else 'model'} id"
    precision = row.get("precision") or DEFAULT_PRECISION
    if PRECISIONS.get(precision.lower(), precision) not in get_args(Precision) or row.get("method") not in (
        "pretrain",
        "full_ft",
        "lora",
        "qlora",
    ):
        return f"precision {row.get('precision')} / method {row.get('method')} not modelled"
    try:
        w, n, _ = read_row(row)
    except UnreadableRow as error:
        return f"unreadable row: {error}"
    gpu, _ = fill_missing_peaks(gpu, gpus)
    e = era_efficiency(row, e, gpu_family(gpu))
    if stated_overlap_changes(row):
        e = replace(e, **stated_overlap_changes(row))
    if ran_eager(row):
        e = replace(e, **eager_changes(e, w.framework))
    if fused_layers_stated(row) and stack_layer(w.framework, w.method) is not None:  # memory_features
        e = replace(e, eager_layer_share=0.0)
    span, capacity = execution_from_notes(row)

    # Each row states how its run recomputed, and none recomputed some layers only: the base layout is searched
    # without partial recompute (Megatron-LM's --recompute-num-layers and the like), which the notes cannot override.
    # The EP layouts are searched as the product searches them (expert_layouts.EXPERT_PARALLEL_STACKS, "auto" among
    # them): a MoE row whose notes leave its expert axis unstated (ROCm MaxText's MI355X rows, "FSDP=8" on 64 GPUs;
    # MaxText shards experts over its ici/dcn expert_parallelism axes) is timed at the fastest split that fits, EP
    # included, rather than at a split without EP its stack need not run; an EP the notes state ("EP64",
    # layout_from_notes) is read as stated. Measured with the expert GEMM shape (moepath, accuracy header).
    def searched(w: TrainingWorkload) -> TrainingEstimate:
        return estimate_training(
            gpu,
            n,
            model,
            w,
            e=e,
            attention_span=span,
            capacity_factor=capacity,
            partial_recompute=False,
        )

    base = searched(w)
    if not base.fits and recipe_from_notes(row).paged and w.offload == "none":  # paged states spill to host memory
        w = w.model_copy(update={"offload": "cpu"})
        base = searched(w)
    layout = layout_from_notes(row.get("notes", ""), n, base.layout, w.global_batch_seqs)
    sp = _int(r"\b(?:sp|SP)(\d+)\b", row.get("notes", ""))
    if sp and n % sp == 0 and w.framework in DATA_PARALLEL_ONLY:  # DeepSpeed-Ulysses as stated, sp1 included
        layout = first_fit(gpu, n, model, w, 1, 1, e, sp) or layout
    est = (
        estimate_training(gpu, n, model, w, layout=layout, e=e, attention_span=span, capacity_factor=capacity)
        if layout and layout != base.layout
        else base
    )
    if est.step_time_s == float("inf"):
        return est.reason or "no layout modelled"
    return est, gpu, model, w


def memory_check(
    row: dict[str, str], est: TrainingEstimate, model: ModelSpec, w: TrainingWorkload
) -> MemoryCheck | None:
    """The row's published peak memory per GPU beside the memory the estimate's layout needs at its step's peak (its
    tensors, the runtime reserve outside the allocator left out, as the allocator's peaks leave it out), with an
    unfused loss where the notes place the row above its table's chunked loss, and the activations of the estimate
    (the fused count where the row ran compiled or on fused kernels: memory_features.fused_layers_stated); None where
    the notes publish no peak or no layout was sized."""
    peak = published_peak(row)
    if peak is None or not est.memory_breakdown_gb or est.layout is None:
        return None
    predicted = est.memory_per_gpu_gb - runtime_reserve_gb(est.gpu_count)  # the step's peak, as the fit judged it
    breakdown, sized = dict(est.memory_breakdown_gb), w
    if unfused_loss_stated(row.get("notes") or "", w.method) and w.framework in eff.FUSED_LOSS_FRAMEWORKS:
        breakdown["logits"] = logits_bytes(model, w.seq_len, est.layout, UNFUSED_LOSS_STACK) / GB
    if fsdp_weight_offload(w.framework, w.offload, est.layout.zero_stage):
        sized = w.model_copy(update={"offload": "cpu_weights"})
        states = model_state_bytes(model, w.method, est.layout, est.gpu_count, w.lora_rank, state_recipe(sized))
        breakdown["model_states"] = states / GB
    if breakdown != est.memory_breakdown_gb:
        predicted = memory_needed_gb(breakdown, workload_peak(model, sized, est.layout, est.gpu_count))
    unmodelled = ", ".join(unmodelled_memory(row, w, est.layout))
    return MemoryCheck(peak.gb, predicted, peak.as_written, peak.quantity, est.layout_text, unmodelled)


def unmodelled_memory(row: dict[str, str], w: TrainingWorkload, layout: Layout | None) -> list[str]:
    """The memory features the row ran that the estimator does not model (memory_features): those its notes state,
    and FSDP's offload of the weights where the CPU offload it states ran as FSDP's."""
    eager = stack_layer(w.framework, w.method)
    taken = [name for name in WORKLOAD_OPTIONS.values() if getattr(w, name)]
    return unmodelled_memory_features(row.get("notes") or "", w.method, eager is not None, taken)


def memory_feature_words(row: dict[str, str], w: TrainingWorkload, layout: Layout | None) -> list[str]:
    """What the row's reason says about the memory features its notes state (memory_features)."""
    notes, words = row.get("notes") or "", []
    if unfused_loss_stated(notes, w.method) and w.framework in eff.FUSED_LOSS_FRAMEWORKS:
        words.append("a cumulative row without its chunked loss: memory sized with an unfused loss")
    fused = fused_layers_stated(row)
    if fused and stack_layer(w.framework, w.method) is not None:
        words.append(f"{fused}: activations sized with the fused count, not {w.framework}'s eager layer")
    taken = [name for name, option in WORKLOAD_OPTIONS.items() if getattr(w, option)]
    if taken:
        words.append(f"{', '.join(taken)} stated: sized with them (the workload's {_options(w)})")
    if layout is not None and fsdp_weight_offload(w.framework, w.offload, layout.zero_stage):
        words.append(FSDP_WEIGHT_OFFLOAD_WORDS)
    unmodelled = unmodelled_memory(row, w, layout)
    if unmodelled:
        words.append(f"{', '.join(unmodelled)} stated but not modelled: memory sized without")
    return words


FSDP_WEIGHT_OFFLOAD_WORDS = (
    f"CPU offload on FSDP: memory sized as {FSDP_WEIGHT_OFFLOAD} (offload cpu_weights); its tokens/s still priced as "
    "ZeRO-Offload's (offload cpu) until a refit takes the weights' copies"
)


def _options(w: TrainingWorkload) -> str:
    return " and ".join(option for option in WORKLOAD_OPTIONS.values() if getattr(w, option))


def predict_training_case(
    row: dict[str, str], gpus: dict, models: dict, e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY
) -> CasePrediction:
    """Predict the row's metric: unmodelled or unreadable rows come back uncovered with the reason; an estimator
    error raises (reported as an uncovered row, it would hide a broken estimator under the coverage floor)."""
    metric = row.get("metric", "")
    if metric not in METRICS:
        return _uncovered(row, f"metric {metric} is not a training metric")
    result = predict_estimate(row, gpus, models, e)
    if isinstance(result, str):
        return _uncovered(row, result)
    est, gpu, model, w = result
    predicted = {"tokens_s_per_gpu": est.tokens_per_s_per_gpu, "step_time_s": est.step_time_s}.get(metric)
    if metric == "mfu_pct":
        predicted = _mfu_pct(est, gpu, model, w, row.get("notes", ""))
    measured = measured_value(row.get("value"))
    if predicted is None or not measured:
        return _uncovered(row, "no prediction, or the measured value is empty, zero, negative or unreadable")
    return CasePrediction(
        row["case_id"],
        metric,
        row.get("source", ""),
        row.get("gpu", ""),
        predicted,
        measured,
        (predicted - measured) / measured * 100,
        True,
        "; ".join(read_row(row)[2] + memory_feature_words(row, w, est.layout)),
        memory_check(row, est, model, w),
    )
