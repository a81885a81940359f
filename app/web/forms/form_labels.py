"""The forms' field labels, for the error summary above a form: it named fields by their query keys (`input_len`),
which the form never shows; now "Input tokens", as the field's own label reads. A test holds each entry to a
label the forms render (tests/test_form_labels.py); a key with none is shown as it is."""

from __future__ import annotations

# Groups whose fields' labels read alone ("Layers", "Method") and name their group in a list of errors.
GROUPS = {
    "train_": "Training run",  # /plan's train-then-serve run: the rank form's training fields under train_ names
    "arch_": "Custom architecture",
}

FIELD_LABELS = {
    "hf_config_json": "Hugging Face config.json",
    "arch_active_params_b": "Active parameters",
    "arch_attention": "Attention",
    "arch_experts_fused": "Experts fused",
    "arch_experts_per_token": "Experts per token",
    "arch_head_dim": "Head dim",
    "arch_hidden_size": "Hidden size",
    "arch_intermediate_size": "FFN size",
    "arch_kv_lora_rank": "KV latent rank",
    "arch_layers": "Layers",
    "arch_max_context": "Max context",
    "arch_sliding_window": "Sliding window",
    "arch_sliding_layers": "Sliding layers",
    "arch_moe_intermediate_size": "Expert FFN size",
    "arch_moe_layers": "MoE layers",
    "arch_name": "Name",
    "arch_num_attention_heads": "Attention heads",
    "arch_num_experts": "Experts",
    "arch_num_kv_heads": "KV heads",
    "arch_num_shared_experts": "Shared experts",
    "arch_params_b": "Parameters",
    "arch_q_lora_rank": "Query latent rank",
    "arch_qk_nope_head_dim": "No-RoPE head dim",
    "arch_qk_rope_head_dim": "RoPE head dim",
    "arch_quantization": "Read from",
    "arch_release_precision": "Released in",
    "arch_router_fused": "Router fused",
    "arch_v_head_dim": "Value head dim",
    "arch_vocab_size": "Vocabulary",
    "attention_parallel": "Attention split",
    "batch": "Batch",
    "beam_width": "Beam width",
    "budget_usd": "Budget",
    "checkpoint_interval_hours": "Checkpoint every",
    "cold_start_s": "Cold start",
    "colocation_usd_per_kw_month": "Colocation",
    "concurrency": "Concurrency",
    "cost_of_capital_pct": "Cost of capital",
    "depreciation_years": "Depreciation life",
    "engine": "Engine",
    "expert_parallel": "MoE experts",
    "framework": "Framework class",
    "global_batch_seqs": "Global batch",
    "gpu": "GPU",
    "include_stale": "Include stale prices",
    "gpu_count": "GPUs",
    "gpus": "GPUs",
    "gpus_per_server": "GPUs per server",
    "idle_timeout_s": "Idle timeout",
    "input_len": "Input tokens",
    "interruptions_per_node_month": "Spot interruptions",
    "job_deadline_hours": "Job deadline",
    "job_requests": "Batch job",
    "kv_dtype": "KV-cache precision",
    "lora_rank": "LoRA rank",
    "max_days": "Deadline",
    "max_gpus": "Max GPUs per replica",
    "max_num_batched_tokens": "Engine step budget",
    "max_num_seqs": "Engine batch cap",
    "prompt_p99_over_mean": "Prompt spread",
    "limits_at": "Meet the limits",  # a training run's: TRAINING_LABELS
    "method": "Method",
    "min_memory_gb": "Minimum memory",  # the GPU catalog's filter (/gpus)
    "min_replicas": "Minimum replicas",
    "mix": "Length distribution",
    "model": "Model",
    "months": "Months of serving",
    "offload": "Optimizer offload",
    "activation_offload": "Offload activations",
    "optimizer_in_backward": "Optimizer step in backward",
    "optimizer": "Optimizer states",
    "output_len": "Output tokens",
    "peak_concurrency": "or peak clients",
    "peak_factor": "Peak factor",
    "peak_requests_per_s": "Peak traffic",
    "power_kw_per_server": "Power draw",
    "precision": "Precision",
    "prefix_cache_hit": "Prefix cache hits",
    "price_types": "Price terms",
    "profile": "Daily profile",
    "providers": "Providers",
    "provisioned_kw_per_server": "Provisioned power",
    "pue": "PUE",
    "purchase_usd_per_server": "Purchase price",
    "rank_by": "Rank by",
    "rental_usd_per_gpu_hour": "Rental price",
    "requests_per_day": "Requests per day",
    "requests_per_s": "Request rate",
    "resale_pct": "Resale value",
    "scenario": "Operating point",
    "seq_len": "Sequence length",
    "spot_only": "Spot may be the only capacity",
    "spec_acceptance": "Speculative decoding",
    "spec_draft_tokens": "Drafted tokens",
    "steps": "or optimizer steps",
    "tokens_per_s_per_user": "or tokens/s per user",
    "total_tokens": "Token budget",
    "tpot_ms": "Time per output token",
    "ttft_ms": "Time to first token",
    "usd_per_kwh": "Electricity",
    "utilisation_pct": "Utilisation",
    "vendor": "Vendor",  # the GPU catalog's filter (/gpus)
    "vendors": "Vendors",
    "weight_dtype": "Weight precision",
}

# Where a form labels a field otherwise than the inference forms: a training run (_form.html's training_run: limits_at
# checks the deadline and budget, max_gpus sizes one job) and /disagg (max_gpus sizes each prefill or decode instance).
FORM_LABELS = {
    "training": {"limits_at": "Meet the deadline", "max_gpus": "Max GPUs"},
    "disagg": {"max_gpus": "Max GPUs per instance"},
    # /gpus' sort is a field of its form; the rankings' sort is a column header's URL parameter, no field, so it
    # reads as its own name there (a label would name a field the page does not show)
    "gpus": {"sort": "Sort by"},
    # the catalog lists' filter forms (app/service/catalog/list_filters.py)
    "models": {
        "sort": "Sort by",
        "family": "Family",
        "kind": "Kind",
        "min_params_b": "Params at least",
        "max_params_b": "Params at most",
        "min_context": "Context at least",
    },
    "providers": {"sort": "Sort by", "sells": "Sells", "kind": "Kind"},
    "offers": {
        "sort": "Sort offers by",
        "provider": "Provider",
        "price_type": "Price type",
        "region": "Region",
        "min_gpus": "GPUs at least",
    },
}


def field_label(key: str, phase: str = "") -> str:
    """`input_len` → 'Input tokens'; `train_method` → 'Training run: Method'; `arch_layers` → 'Custom architecture:
    Layers'; 'or peak clients' → 'Peak clients' (an alternative field reads as itself in a list of errors). On a
    training form (`phase` 'training', or a `train_` field), /disagg (`phase` 'disagg') or /gpus (`phase` 'gpus') a
    field reads as that form labels it (FORM_LABELS): max_gpus is "Max GPUs" there, not the inference forms' "Max
    GPUs per replica"."""
    for prefix, group in GROUPS.items():
        inner = key.removeprefix(prefix)
        form = "training" if prefix == "train_" else phase
        if inner != key and (label := _label(key, form) or _label(inner, form)):
            return f"{group}: {_alone(label)}"
    return _alone(_label(key, phase) or key)


def _label(key: str, form: str) -> str | None:
    return FORM_LABELS.get(form, {}).get(key) or FIELD_LABELS.get(key)


def _alone(label: str) -> str:
    return label[3].upper() + label[4:] if label.startswith("or ") else label
