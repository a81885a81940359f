"""Every constant the estimator uses, with value, unit and source, for /methodology.

The fitted and tunable efficiencies are the fields of InferenceEfficiency and TrainingEfficiency; the fixed ones are
the module-level numbers of the scoring packages that estimate (inference, training, efficiency) and of
hardware/machines.py.
Both are read from the source text (constant_sources), so the page cannot drift from the code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from pathlib import Path
from types import ModuleType

from app.web.methodology.constant_sources import is_numeric, shown_value, sourced_constants

SCORING = Path(__file__).resolve().parents[2] / "scoring"
ESTIMATOR_FOLDERS = ("efficiency", "inference", "training")
ESTIMATOR_FILES = ("hardware/machines.py",)

# Module-level numbers of those files that are not estimator constants, each with why: unit conversions, caches,
# search and request limits, solver tolerances, and thresholds that only decide whether a note is shown.
NOT_ESTIMATOR: dict[str, str] = {
    "efficiency/band_table.py:BAND_TABLE": "generated (make calibrate); each answer shows its band and its rows",
    "efficiency/band_table.py:BAND_MARGINS": "generated (make calibrate) with the bands; a band's evidence states it",
    "inference/step/memory.py:GB": "unit: 10^9 bytes",
    "training/layouts/memory.py:GB": "unit: 10^9 bytes",
    "training/run/limit_words.py:SECONDS_PER_DAY": "unit",
    "training/run/limit_words.py:MOST_DECIMALS": "display precision: digits added to tell a finish from its deadline",
    "training/run/limit_words.py:UNIT_DAYS": "unit",
    "training/run/limit_words.py:DAYS_PER_YEAR": "unit: days in a Julian year (explain.SECONDS_PER_YEAR)",
    "inference/bands/limits.py:ON_ESTIMATE": "identity: limits checked on the estimate itself (multiples of 1)",
    "inference/ranking/rank.py:_CACHE_LIMIT": "cache size",
    "inference/step/efficiency_factors.py:_FACTOR_MEMO_LIMIT": "cache size",
    "inference/step/efficiency_factors.py:_SOFTWARE_CONSTANTS_CACHE_SIZE": "cache size",
    "training/assumptions.py:_NOTES_LIMIT": "cache size",
    "training/layouts/lora_adapters.py:_ADAPTER_PARAMS_CACHE_SIZE": "cache size",
    "inference/step/context.py:_CONTEXT_CACHE_SIZE": "cache size",
    "inference/step/pass_rates.py:_RATES_MEMO_LIMIT": "cache size",
    "efficiency/bands.py:_BAND_CACHE_SIZE": "cache size",
    "inference/bands/latency_bands.py:_LATENCY_BANDS_CACHE_SIZE": "cache size",
    "inference/step/memory.py:_FOOTPRINT_CACHE_SIZE": "cache size",
    "inference/step/memory.py:_ROOM_CACHE_SIZE": "cache size",
    "inference/estimates/estimate.py:_REFUSALS_CACHE_SIZE": "cache size",
    "inference/estimates/layout_setup.py:_LAYOUT_SETUP_CACHE_SIZE": "cache size",
    "inference/estimates/configurations.py:_TIER_PLANS_CACHE_SIZE": "cache size",
    "inference/estimates/shared_searches.py:_SEARCHES_LIMIT": "cache size",
    "inference/estimates/spread_load.py:_PER_COPY_LIMIT": "cache size",
    "hardware/machines.py:_WIRED_GPU_CACHE_SIZE": "cache size",
    "inference/batching/batch_job.py:MAX_JOB_REPLICAS": "search bound: a deadline needing more is refused",
    "inference/batching/batch_job.py:DRAIN_POINTS": (
        "numerical resolution of the drain's mean step (within 1% of 64 points)"
    ),
    "inference/batching/finite_run.py:MAX_RUN_REQUESTS": "request limit: a longer replay is refused, not estimated",
    "inference/batching/finite_run.py:MAX_RUN_STEPS": "loop bound of the replay",
    "inference/batching/finite_run.py:BATCH_DRIFT": "replay tolerance: moves the result less than itself",
    "inference/batching/loops.py:MIN_RUNNING_BATCH": "solver bound",
    "inference/batching/loops.py:BATCH_RTOL": "solver tolerance",
    "training/layouts/expert_layouts.py:STATES_MARGIN": "search guard against rounding; answers do not move",
    "inference/estimates/throughput_ceiling.py:CEILING_ROUNDING_SLACK": (
        "float rounding allowance on a bound that only decides which layouts are searched; answers do not move"
    ),
    "inference/estimates/throughput_ceiling.py:BATCH_STEPS": "solver iterations of a bound; answers do not move",
    "inference/estimates/throughput_ceiling.py:OPEN_LOOP_STEPS": "solver iterations of a bound; answers do not move",
    "inference/estimates/throughput_ceiling.py:OPEN_LOOP_RTOL": "a bound's stopping tolerance; answers do not move",
    "inference/explanation/explain_estimate.py:FINE_GRAINED_EXPERTS": "decides only whether a note is shown",
    "inference/explanation/explain_estimate.py:SMALL_MOE_BATCH": "decides only whether a note is shown",
    "inference/explanation/tpot_floor.py:NEAR_TPOT_FLOOR": "decides only whether a note is shown",
    "training/run/batch_size.py:GPT3_BATCH_TOKENS": "a note's typical batch (Brown et al. 2020); no estimate reads it",
    "training/run/batch_size.py:FAR_BELOW": "decides only whether a note is shown",
    "training/run/batch_size.py:DEFAULT_GLOBAL_BATCH_SEQS": (
        "the form's default batch (app/scoring/workload/training.py)"
    ),
    "training/run/deadline.py:MOST_GPUS_NAMED": "request limit",
    "training/run/deadline.py:LARGEST_MAX_GPUS": "request limit (TrainingWorkload.max_gpus)",
    "training/run/cheaper_late.py:LATE_RUN_NAMED_WITHIN_DEADLINES": "decides only whether a note is shown",
    "training/ranking/scale_out.py:WIDER_RUN_MACHINES": "search breadth of a suggestion, not an estimate",
    "training/ranking/scale_out.py:FRONTIER_MACHINES": "how many machines a chart draws",
    "training/run/run_explain.py:NOTED_INTERRUPTIONS": "decides only whether a note is shown",
    "training/run/run_explain.py:SHORT_RUN_HOURS": "display threshold: a run said in minutes beside its start-up",
}

# Units by the name's ending (first match wins); UNITS names the rest.
UNIT_ENDINGS: tuple[tuple[str, str], ...] = (
    (r"mbu_factor$", "× MBU"),
    (r"mfu_factor$", "× MFU"),
    (r"_s_per_layer$", "s per layer per step"),
    (r"gbs_per_gpu(_ampere)?$", "GB/s per GPU"),
    (r"_gbps_per_gpu$", "Gb/s per GPU"),
    (r"alpha_\w+_ms$", "ms per all-reduce"),
    (r"_ms$", "ms"),
    (r"_s$", "s"),
    (r"_hours$", "h"),
    (r"_months$", "months"),
    (r"_gb$", "GB per GPU"),
    (r"_gbs$", "GB/s"),
    (r"_bytes$", "bytes"),
    (r"_gpus$", "GPUs"),
    (r"_(tokens|len)$", "tokens"),
    (r"_rows$", "LOSO residual rows"),
    (r"_steps$", "decode steps"),
    (r"^bytes_", "bytes per parameter"),
    (r"^logits_bytes_", "bytes per token and vocabulary entry"),
    (r"^mfu_\w+_16$", "share of the 16-bit dense peak"),
    (r"^fw_", "× MFU"),
    (r"^scale_factor_", "× MFU"),
    (r"_over_mean$", "p99 / mean"),
    (r"_(share|fraction|utilisation)$", "share"),
)
UNITS: dict[str, str] = {
    "decode_mbu": "share of peak HBM bandwidth",
    "max_mbu": "share of peak HBM bandwidth",
    "mbu_tp_exponent": "exponent of TP",
    "overlap_power": "exponent p",
    "width_exponent": "exponent",
    "mfu_max": "share of the 16-bit dense peak",
    "mamf_share_of_peak": "share of the BF16 dense peak, by GPU",
    "seq_overhead_ms": "ms per running sequence per step",
    "vllm_seq_overhead_ms": "ms per running sequence per step",
    "layer_overhead_ms": "ms per layer per step",
    "step_overhead_ms": "ms per forward pass",
    "moe_prefill_layer_ms": "ms per MoE layer per prefill pass",
    "fabric_alpha_ms": "ms per send",
    "ttft_wait_steps": "decode steps",
    "vllm_factor": "× MBU and MFU",
    "sglang_factor": "× MBU and MFU",
    "engine_mbu": "× MBU",
    "engine_mfu": "× MFU",
    "engine_max_batch": "running sequences",
    "engine_token_budget": "tokens per step",
    "vllm_v1_defaults": "(running sequences, tokens per step)",
    "sglang_prefill_chunks": "(GPU memory below, GiB; tokens)",
    "link_efficiency": "share of link bandwidth",
    "fabric_efficiency": "share of NIC line rate",
    "nvlink_efficiency": "share of nominal NVLink bandwidth",
    "pcie_gbs_unidir": "GB/s, one direction, by PCIe generation",
    "kv_share_of_free": "share of memory the weights leave",
    "causal_attention_factor": "share of QK^T/AV FLOPs",
    "unknown_band": "(low, high) × the estimate",
    "min_band_rows": "LOSO residual rows",
    "min_own_rows": "LOSO residual rows",
    "min_own_publications": "publications",
    "held_out_coverage": "share of a held-out publication's rows",
    "held_out_row_floor": "share of all held-out rows, pooled",
    "fp8_speedup": "× step speed over BF16",
    "fp8_speedup_torchao": "× step speed over BF16",
    "width_half_hidden": "hidden size (on an A100-80GB)",
    "attn_efficiency": "× the GEMMs' efficiency",
    "attn_efficiency_hopper": "× the GEMMs' efficiency",
    "attn_fa2_hopper_ratio": "× attn_efficiency",
    "attn_fa2_ampere_speedup": "÷ attn_efficiency (Ampere rows before FlashAttention-2; 1.0: off)",
    "tp_comm_exposed": (
        "share of TP communication time (all-reduce, or all-gather/reduce-scatter under Megatron sequence parallelism "
        "(within TP))"
    ),
    "dp_overlap": "share of compute time",
    "dp_last_micro_share": "share of the step's gradient reduction (0: the whole-step form)",
    "lora_factor": "× MFU",
    "moe_factor": "× MFU",
    "expert_half_hidden_share": "× width_half_hidden (0: expert GEMM shape off)",
    "ep_a2a_exposed": "share of all-to-all time",
    "ep_a2a_nvlink_efficiency": "share of nominal NVLink bandwidth (one direction)",
    "qlora_dequant_bytes_per_param": "bytes per base parameter per pass",
    "ring_backward_flops_per_forward": "× a ring step's forward attention FLOPs",
    "ring_backward_sends_per_forward": "× a ring step's forward K/V blocks sent",
    "pp_interleave_default": "virtual chunks per stage",
    "selective_recompute_flops_per_param": "FLOPs per active parameter per token",
    "full_recompute_flops_per_param": "FLOPs per active parameter per token",
    "bytes_bf16": "bytes per element",
    "live_param_layers": "layers",
    "expected_max_of_normals": "standard deviations, by group count",
    "evidenced_prompts_per_step": "prompts per decode step",
    "notable_step_share": "share of a step",
    "max_utilisation": "share of prefill capacity",
    "draft_cost_share": "share of a target forward pass",
    "default_draft_tokens": "drafted tokens per step",
    "run_requests_default": "requests",
    "overload_horizon_s": "s",
    "host_adam_gbs": "GB/s of host memory traffic",
    "width_reference_flops_per_byte": "FLOPs per byte (TFLOPS per TB/s)",
    "max_search_tensor_parallel": "GPUs",
    "gpus_per_host": "GPUs",
    "vllm_large_gpu_bytes": "bytes",
    "usable_hbm_share": "share of datasheet memory",
    "tied_surplus_tolerance": "vocab × hidden matrices",
    "on_gpu_layers": "layers' stored activations",
    "weight_copies_per_micro_batch": "copies of the weight shard",
}


def unit_of(name: str) -> str:
    key = name.lower()
    if key in UNITS:
        return UNITS[key]
    return next((unit for pattern, unit in UNIT_ENDINGS if re.search(pattern, key)), "")


def relative(module: ModuleType) -> str:
    return Path(inspect.getfile(module)).resolve().relative_to(SCORING).as_posix()


def source_text(module: ModuleType) -> str:
    return Path(inspect.getfile(module)).read_text(encoding="utf-8")


@cache
def dataclass_fields(module: ModuleType, class_name: str) -> list[dict[str, str]]:
    """The fields of the efficiency dataclass `class_name`, each with value, unit and source."""
    text = source_text(module)
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == class_name)
    rows = sourced_constants(cls.body, text, lambda name: not name.isupper())
    return [{"name": r.name, "value": r.written, "unit": unit_of(r.name), "source": r.source} for r in rows]


def estimator_modules() -> list[ModuleType]:
    paths = [p for folder in ESTIMATOR_FOLDERS for p in sorted((SCORING / folder).rglob("*.py"))]
    paths += [SCORING / name for name in ESTIMATOR_FILES]
    names = ["app.scoring." + ".".join(p.relative_to(SCORING).with_suffix("").parts) for p in paths]
    return [importlib.import_module(name) for name in names]


@cache
def module_constants(module: ModuleType) -> list[dict[str, str]]:
    """The module-level numbers of `module` the estimator uses (NOT_ESTIMATOR aside), with value, unit and source."""
    text, where = source_text(module), relative(module)

    def wanted(name: str) -> bool:
        return name.isupper() and hasattr(module, name)

    rows = sourced_constants(ast.parse(text).body, text, wanted)
    return [
        {
            "name": r.name,
            "value": shown_value(getattr(module, r.name), r.written),
            "unit": unit_of(r.name),
            "source": r.source,
            "module": where,
        }
        for r in rows
        if is_numeric(getattr(module, r.name)) and f"{where}:{r.name}" not in NOT_ESTIMATOR
    ]


@cache
def fixed_constants() -> list[dict[str, str]]:
    """Every fixed module-level constant of the estimator, file by file."""
    return [row for module in estimator_modules() for row in module_constants(module)]
