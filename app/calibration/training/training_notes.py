"""What a training case row's framework column and notes state about its run, read through general patterns:
the stack it ran (FRAMEWORKS, STACKS_IN_NOTES), the constants as of its date (era_efficiency), the communication it
hid (async TP, DualPipe), the layout ("TP8", "PP4", "VP6", "EP64", "FSDP", "full AC", "micro-batch 4") and how it
packed sequences.

validate_training.py reads a row with these; the optimizer recipe is training_recipes.py's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TypedDict

from app.scoring.efficiency import training as eff
from app.scoring.training.layouts.memory import Layout, Recompute
from app.scoring.training.step.frameworks import FRAMEWORK_CLASS

FRAMEWORKS = {
    "megatron-lm": "megatron",
    "megatron": "megatron",
    "nemo": "nemo",
    "llm-foundry": "llm-foundry",
    "torchtitan": "torchtitan",
    "pytorch": "pytorch",
    "hf": "hf",
}


# Stacks a row's notes name ("framework: XTuner") when its framework column says "other": the class they run as.
# LLaMA-Factory is HF Trainer + DeepSpeed; XTuner trains with DeepSpeed ZeRO and DeepSpeed-Ulysses sequence
# parallelism (its configs' "spN"); neither has Megatron tensor or pipeline parallelism.
STACKS_IN_NOTES = {"llama-factory": "hf", "xtuner": "hf", "axolotl": "hf", "deepspeed": "hf"}
# MLPerf Training submitters other than NVIDIA run NVIDIA's reference code in its NGC PyTorch container ("PyTorch
# NVIDIA Release 24.04", "NGC Pytorch 24.04" in the notes): its GPT-3 175B and Llama-2-70B LoRA benchmarks are NeMo /
# Megatron-Core, which split by TP and PP (NVIDIA's own submissions of them carry the column nemo), whatever the
# framework column of the submitter's row says.
NGC_REFERENCE_STACK = "nemo"
NGC_CONTAINER = re.compile(r"pytorch nvidia release|ngc pytorch", re.IGNORECASE)

# Stacks whose sequence packing attends across the packed documents by default (no per-document mask):
# LLaMA-Factory `packing` without `neat_packing` ("sequence packing without cross-attention" is the opt-in).
CROSS_DOCUMENT_PACKING = ("llama-factory",)


# The product prices each stack's attention as it runs by default today (step_time.attention_efficiency): Hopper-native
# kernels except LLM Foundry's FlashAttention-2. The PyTorch stacks reached Hopper-native attention only in 2024:
# FlashAttention-3 was released in July 2024 (arXiv 2407.08608) and PyTorch 2.5 (October 2024) first put cuDNN ahead
# of FlashAttention-2 in SDPA; a PyTorch-stack row dated before FA3 ran FA2. Megatron-class stacks used
# TransformerEngine's cuDNN fused attention on Hopper before that.
FA3_RELEASE = (2024, 7)
HOPPER_NATIVE_ATTENTION_BEFORE_FA3 = ("megatron", "nemo")


def _year_month(text: str) -> tuple[int, int] | None:
    """A row's date ("2023", "2024-06"); a year alone reads as its middle (July), neither early nor late."""
    match = re.match(r"(\d{4})(?:-(\d{1,2}))?", (text or "").strip())
    return (int(match.group(1)), int(match.group(2) or 7)) if match else None


# FlashAttention-2 was released in July 2023 (arXiv 2307.08691, 2023-07-17): an Ampere row dated then or before ran
# an earlier attention kernel (FlashAttention-1, its Triton port, xformers, unfused softmax), a year alone read as July.
FA2_RELEASE = (2023, 7)


def ran_before_flash_attention_2(row: dict[str, str], family: str) -> bool:
    """An Ampere row dated up to FlashAttention-2's release (FA2_RELEASE)."""
    when = _year_month(row.get("date", ""))
    return family == "ampere" and when is not None and when <= FA2_RELEASE


def era_efficiency(row: dict[str, str], e: eff.TrainingEfficiency, family: str = "") -> eff.TrainingEfficiency:
    """The constants as of the row's date: a PyTorch-stack run on Hopper/Blackwell before FlashAttention-3 ran
    FlashAttention-2, at attn_fa2_hopper_ratio of its Ampere efficiency (the product prices today's default kernels;
    LLM Foundry's are FA2 at any date); an Ampere run (`family`, mfu.gpu_family) up to FA2's release ran an earlier
    kernel, at attn_efficiency / attn_fa2_ampere_speedup (1.0 today: off)."""
    if ran_before_flash_attention_2(row, family):
        return e.before_flash_attention_2()
    when = _year_month(row.get("date", ""))
    framework = ngc_reference_stack(row) or FRAMEWORKS.get(row.get("framework", ""), "auto")
    if when is None or when >= FA3_RELEASE or framework in HOPPER_NATIVE_ATTENTION_BEFORE_FA3:
        return e
    return e.before_flash_attention_3()


# torch.compile fuses the memory-bound elementwise ops between the GEMMs (norms, activations, RoPE, residual adds)
# that eager PyTorch runs one kernel each. The PyTorch-native stacks' fitted class factors (fw_torchtitan_16,
# fw_pytorch) rest on compiled rows; a row whose notes state it ran eager ("no compile", or a cumulative table's row
# above "+ Compile") runs at 1 / COMPILE_SPEEDUP of them. torchtitan's Llama 3.1 8B on 8 H100s with FSDP: 5,762
# tokens/s/GPU eager, 6,667 compiled, +15.7 % (Liang et al., "TorchTitan", arXiv 2410.06511, Table 1); torchtune's
# optimization-flags table measures +27 % (Llama 3.2 3B on one A100, packed).
COMPILE_SPEEDUP = 1.157
COMPILED_CLASS_FACTORS = {"torchtitan": "fw_torchtitan_16", "pytorch": "fw_pytorch"}
EAGER_STATED = re.compile(r"\bno (?:torch\.)?compile\b|\bwithout (?:torch\.)?compile\b|\bcompile (?:false|off)\b", re.I)


def ran_eager(row: dict[str, str]) -> bool:
    """The notes state the run was not compiled: in words, or as a cumulative table's row above its "+ Compile"."""
    notes = row.get("notes") or ""
    cumulative_before_compile = CUMULATIVE_ROW.search(notes) is not None and "compile" not in notes.lower()
    return EAGER_STATED.search(notes) is not None or cumulative_before_compile


def eager_changes(e: eff.TrainingEfficiency, framework: str) -> dict[str, float]:
    """What differs for an eager run of a PyTorch-native stack: its class factor over COMPILE_SPEEDUP."""
    name = COMPILED_CLASS_FACTORS.get(FRAMEWORK_CLASS.get(framework, "auto"))
    return {name: getattr(e, name) / COMPILE_SPEEDUP} if name else {}


# torchtitan's async tensor parallelism ("asyncTP" in its benchmark names): each TP all-gather and reduce-scatter is cut
# into P2P chunk transfers run on the copy engines while the GEMM on the chunk already in hand computes (PyTorch 2024,
# "Introducing Async Tensor Parallelism in PyTorch"; Wang et al., ASPLOS 2023, "Overlap communication with dependent
# computation via decomposition"). A chunk's transfer is hidden while it is shorter than its GEMM: on TP8 inside an
# NVLink node the TP traffic of the runs stating it is ~1/6 of their compute, so none of it is exposed.
ASYNC_TENSOR_PARALLEL = re.compile(r"\basync[ -]?tp\b", re.IGNORECASE)


def async_tensor_parallel(row: dict[str, str]) -> bool:
    """The notes state torchtitan's async TP (ASYNC_TENSOR_PARALLEL)."""
    return ASYNC_TENSOR_PARALLEL.search(row.get("notes") or "") is not None


def async_tp_changes(row: dict[str, str]) -> dict[str, float]:
    """What differs for a run with async TP: its TP all-reduces hide behind the GEMMs they feed (exposed share 0)."""
    return {"tp_comm_exposed": 0.0} if async_tensor_parallel(row) else {}


# DeepSeek-V3's DualPipe schedule runs one micro-batch's expert all-to-alls (dispatch and combine) while another
# computes, so that "both all-to-all and PP communication can be fully hidden" (DeepSeek-V3 report §3.2.1): a run whose
# notes state it exposes none of its expert all-to-all time (TrainingEfficiency.ep_a2a_exposed 0).
DUAL_PIPE = re.compile(r"\bDualPipe\b", re.IGNORECASE)


def stated_overlap_changes(row: dict[str, str]) -> dict[str, float]:
    """The communication the notes state is hidden: async TP's all-reduces, DualPipe's expert all-to-alls."""
    changes = async_tp_changes(row)
    if DUAL_PIPE.search(row.get("notes") or ""):
        changes = {**changes, "ep_a2a_exposed": 0.0}
    return changes


def stack_in_notes(row: dict[str, str]) -> str | None:
    """The first STACKS_IN_NOTES name the notes mention after "framework:", if the framework column is other."""
    if (row.get("framework") or "").strip().lower() in FRAMEWORKS:
        return None
    match = re.search(r"framework: ([^;(]+)", row.get("notes") or "")
    named = match.group(1).lower() if match else ""
    return next((name for name in STACKS_IN_NOTES if name in named), None)


def ngc_reference_stack(row: dict[str, str]) -> str | None:
    """NGC_REFERENCE_STACK for an MLPerf Training row that ran NVIDIA's reference code in an NGC PyTorch container."""
    if (row.get("source") or "").startswith("mlperf-train") and NGC_CONTAINER.search(row.get("notes") or ""):
        return NGC_REFERENCE_STACK
    return None


class _LayoutChanges(TypedDict, total=False):
    """The Layout fields the notes of a case can override."""

    zero_stage: int
    tensor_parallel: int
    pipeline_parallel: int
    recompute: Recompute
    micro_batch_seqs: int
    pipeline_interleave: int
    sequence_parallel: int
    expert_parallel: int


def _int(pattern: str, notes: str) -> int | None:
    """The first number a match of `pattern` captures (its first group that matched)."""
    match = re.search(pattern, notes)
    return int(next(g for g in match.groups() if g is not None)) if match else None


# A batch stated per device with no gradient accumulation is the micro-batch: "micro-batch 4" (LLM Foundry),
# torchtitan's "local bs 2" (its training.local_batch_size, one forward per step) and torchtune's "batch size 2
# without grad accumulation".
PER_DEVICE_MICRO_BATCH = r"micro-batch (\d+)|\blocal bs (\d+)|\bbatch size (\d+) without grad(?:ient)? accumulation"
# A batch stated bare ("batch 2", torchtune's optimization-flags table, whose `batch_size` is per device) or as
# "per-device batch 7" (MaxText's per_device_batch_size): the micro-batch only where it alone makes up the global batch,
# each GPU its own data-parallel replica (no TP, PP or sequence split) and the stated batch times the GPUs equal to the
# row's global batch, so that no step accumulates gradients.
DEVICE_BATCH = r"(?<![\w-])(?<!global )(?:per-device )?batch (\d+)\b"

# A stated FSDP ("FSDP", "FSDP2": PyTorch's fully_shard API, "FSDP=64") with no tensor, pipeline or context parallel
# axis stated shards every weight over all the GPUs, each GPU its own replica: ZeRO-3 data parallelism alone. A degree
# smaller than the GPUs ("FSDP=8" on 64 GPUs) leaves the other axes unstated, and the searched layout stands.
FSDP_STATED = re.compile(r"\bFSDP(?: ?= ?(\d+)|(\d+))?\b")
# Expert parallelism stated with its degree ("EP64"): each rank holds num_experts / EP routed experts whole. A run
# whose notes name its pipeline and expert axes and its ZeRO data parallelism ("DualPipe PP16, EP64, ZeRO-1 DP",
# DeepSeek-V3 on 2,048 GPUs = PP16 × DP128, EP inside DP) names every axis it has: no tensor parallelism.
EXPERT_PARALLEL = r"\bEP(\d+)\b"
ZERO_DATA_PARALLEL = re.compile(r"\bZeRO-\d DP\b")
# Another axis named without a degree ("FSDP + Megatron-LM tensor parallelism", OPT-175B's metaseq): not FSDP alone.
OTHER_AXIS_IN_WORDS = re.compile(r"\b(?:tensor|pipeline|context|sequence)[- ]parallel|\b(?:TP|PP|CP)\b", re.IGNORECASE)


def _data_parallel_fsdp(notes: str, gpu_count: int) -> bool:
    """The notes state FSDP over all the GPUs (FSDP_STATED); the caller has checked that no TP/PP/CP is stated."""
    match = FSDP_STATED.search(notes)
    if match is None or OTHER_AXIS_IN_WORDS.search(notes):
        return False
    degree = match.group(1) or (match.group(2) if match.group(2) != "2" else None)  # "FSDP2" names the API
    return degree is None or int(degree) == gpu_count


# Activation checkpointing as a technique of a cumulative table (torchtune's optimization-flags table: each row adds its
# technique to all those above it, from a baseline without any): the rows whose own technique and the techniques above
# them (case_files.TECHNIQUES_ABOVE) do not name it ran without checkpointing, those from its row on with it.
ACTIVATION_CHECKPOINTING = "activation checkpointing"
CUMULATIVE_ROW = re.compile(r"cumulative technique '")


def _recompute(lowered: str) -> Recompute | None:
    """The recompute the notes state (lower-cased), None where they state none."""
    if (
        "activation checkpointing true" in lowered
        or "full ac" in lowered
        or "remat full" in lowered
        or "full recompute" in lowered.split(";")[0]
        or f"+ {ACTIVATION_CHECKPOINTING}" in lowered  # torchtune's flag: every transformer layer checkpointed
    ):
        return "full"
    if "selective" in lowered or re.search(r"\bsac\b", lowered):  # "per-op SAC": torchtitan's op-level selective AC
        return "selective"
    if "activation checkpointing false" in lowered:
        return "none"
    return None


def _ran_without_checkpointing(lowered: str) -> bool:
    """A row of a cumulative table that names activation checkpointing neither as its technique nor above it."""
    return CUMULATIVE_ROW.search(lowered) is not None and ACTIVATION_CHECKPOINTING not in lowered


def layout_from_notes(
    notes: str, gpu_count: int, base: Layout | None, global_batch_seqs: int | None = None
) -> Layout | None:
    """Override the chosen layout with parallelism stated in the notes (general patterns only); a bare per-device
    batch (DEVICE_BATCH) is read as the micro-batch against the row's `global_batch_seqs`."""
    layout = base or Layout()
    split = notes.replace("xTP", " TP").replace("xPP", " PP")  # "FSDP8xTP8xPP8"
    tp = _int(r"\bTP(\d+)\b", split)
    pp = _int(r"\bPP(\d+)\b", split)
    changes: _LayoutChanges = {}
    if tp:
        changes["tensor_parallel"] = tp
    cp = _int(r"\bCP(\d+)\b", notes)  # Megatron context parallelism: each sequence split over CP ranks
    fsdp = _int(r"\bFSDP(\d+)\b", split)  # a degree where the named axes multiply to the GPUs ("FSDP2" is the API)
    if pp:
        changes["pipeline_parallel"] = pp
    elif tp and fsdp and fsdp * tp * (cp or 1) == gpu_count:  # "FSDP32xTP8" on 256 GPUs names every axis: no PP
        changes["pipeline_parallel"] = 1
    ep = _int(EXPERT_PARALLEL, notes)
    if ep and ep > 1:
        changes["expert_parallel"] = ep
        if pp and not tp and not cp and ZERO_DATA_PARALLEL.search(notes):
            changes["tensor_parallel"] = 1
    if tp or pp:
        changes["zero_stage"] = 3 if "FSDP" in notes and not pp else 1
    elif not cp and _data_parallel_fsdp(notes, gpu_count):
        changes["tensor_parallel"], changes["pipeline_parallel"], changes["zero_stage"] = 1, 1, 3
    if cp and cp > 1:
        changes["sequence_parallel"] = cp
    vp = _int(r"\bVP(\d+)\b", notes)
    if vp:
        changes["pipeline_interleave"] = vp
    elif "interleaved" in notes.lower():
        changes["pipeline_interleave"] = 2
    recompute = _recompute(notes.lower())
    if recompute:
        changes["recompute"] = recompute
    elif base is not None and _ran_without_checkpointing(notes.lower()):  # states how a fitted run recomputed
        changes["recompute"] = "none"
    micro = _int(PER_DEVICE_MICRO_BATCH, notes)
    if micro:
        changes["micro_batch_seqs"] = micro
    elif (per_device := _int(DEVICE_BATCH, notes)) and global_batch_seqs == per_device * gpu_count:
        split_axes = changes.get("tensor_parallel", layout.tensor_parallel) * changes.get(
            "pipeline_parallel", layout.pipeline_parallel
        )
        if split_axes * changes.get("sequence_parallel", layout.sequence_parallel) == 1:
            changes["micro_batch_seqs"] = per_device
    if not changes or (base is None and set(changes) == {"micro_batch_seqs"}):  # a batch alone states no split
        return base
    layout = replace(layout, **changes)
    if "zero_stage" in changes:  # a stated split shards as stated (FSDP: FULL_SHARD), not as a searched HSDP did
        layout = replace(layout, shard_group=None)
    if gpu_count % (layout.tensor_parallel * layout.pipeline_parallel * layout.sequence_parallel):
        return base
    return layout


# Tokens a query attends over in a packed fine-tuning sequence with a per-document mask (flash-attention varlen /
# block-causal): instruction samples are short (Alpaca ~300, SQuAD ~250 tokens with the Llama tokenizer), rounded up.
PACKED_SAMPLE_TOKENS = 512


def execution_from_notes(row: dict[str, str]) -> tuple[int | None, float]:
    """(attention span, MoE capacity factor) stated by the notes through general patterns.

    "packed" fine-tuning data (not "padded") attends within each short sample; "capacity-factor X" token-dropping
    MoE pads the expert matmuls to X × the routed tokens (a dropless path computes 1×).
    """
    lowered = (row.get("notes") or "").lower()
    fine_tuning = row.get("method") in ("full_ft", "lora", "qlora")
    packed = re.search(r"\bpacked\b", lowered) is not None and "padded" not in lowered
    per_document = stack_in_notes(row) not in CROSS_DOCUMENT_PACKING
    span = PACKED_SAMPLE_TOKENS if fine_tuning and packed and per_document else None
    match = re.search(r"capacity[- ]factor (\d+(?:\.\d+)?)", lowered)
    capacity = float(match.group(1)) if match and "dropless" not in lowered else 1.0
    return span, min(max(capacity, 1.0), 16.0)
