"""Serving settings a published run states in its notes, read into the layouts and techniques the product models.

A case row has no columns for expert parallelism, data-parallel attention, speculative decoding or the engine's
batch cap; sources state them in `notes` ("TP=8 EP=8", "DEP8", "--enable-dp-attention", "MTP 3, acceptance length
2.7", "max_num_seqs 512"). The product prices each of them (estimate.py, techniques.py); this module reads them so
that a run is predicted as it was served. Anything a clause negates ("without MTP", "dp-attention off") is not read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from app.scoring.inference.step.techniques import DEFAULT_DRAFT_TOKENS, NO_TECHNIQUES, ServingTechniques
from app.scoring.specs import ModelSpec

# A clause that switches its setting off.
_NEGATION = re.compile(r"\b(?:no|not|without|disabled?|off|false|none)\b", re.IGNORECASE)

_EXPERT_PARALLEL = (
    re.compile(r"(?<![A-Za-z])[DT]?EP\s*[=:]?\s*(\d+)\b"),  # EP=8, EP8, DEP8, TEP8 (TensorRT-LLM's layouts)
    re.compile(r"\bep[-_ ]size\s*[=:]?\s*(\d+)\b", re.IGNORECASE),  # --ep-size 8
    re.compile(r"\bexpert[- ]parallel(?:ism)?(?:\s+(?:size|degree))?\s*[=:]?\s*(\d+)\b", re.IGNORECASE),
)
# DEP<n>: attention data-parallel and experts expert-parallel over n GPUs (TensorRT-LLM's DeepSeek notation); TEP<n>:
# attention tensor-parallel, experts expert-parallel. Without <n>, over the row's TP group (the case files' README).
_DEP = re.compile(r"(?<![A-Za-z])DEP(?:\s*-?\s*\d+)?\b")
_EP_GROUP = re.compile(r"(?<![A-Za-z])[DT]EP\b")
# The product's bound on drafted tokens per step (workload.spec_draft_tokens); a larger number is something else.
MAX_DRAFT_TOKENS = 16
_ATTENTION_DP = re.compile(
    r"enable[-_ ]dp[-_ ]attention|\bdp[-_ ]attn\b|\bdp[-_ ]attention\b|\battention[-_ ]dp\b|"
    r"data[- ]parallel attention|\battention data[- ]parallel",
    re.IGNORECASE,
)

_MTP = re.compile(r"\bMTP\b|\bnextn\b|multi-token prediction", re.IGNORECASE)
_EAGLE = re.compile(r"\bEAGLE(?:-?\d)?\b", re.IGNORECASE)
_SPECULATIVE = re.compile(r"speculative|spec(?:ulative)?[-_ ]decod|draft model", re.IGNORECASE)
_DRAFT_FLAGS = (
    re.compile(r"speculative[-_ ]num[-_ ]steps\s*[=:]?\s*(\d+)", re.IGNORECASE),  # SGLang: chain length
    re.compile(r"num[-_ ]speculative[-_ ]tokens\s*[=:]?\s*(\d+)", re.IGNORECASE),  # vLLM
)
_DRAFT_TOKENS = (
    re.compile(r"\bMTP\s*[=:]?\s*(\d+)\b", re.IGNORECASE),  # MTP=3, MTP 3
    re.compile(r"\b(\d+)\s*(?:MTP|nextn|draft(?:ed)?)\b", re.IGNORECASE),  # 3 MTP layers, 4 draft tokens
    re.compile(r"\bdraft(?:ed)?[-_ ]tokens?\s*[=:]?\s*(\d+)", re.IGNORECASE),
    re.compile(r"\bK\s*=\s*(\d+)\b"),
)
_ACCEPTANCE_LENGTH = re.compile(
    r"accept(?:ance|ed)?[-_ ]*(?:length|len)\b\D{0,6}?(\d+(?:\.\d+)?)|\bAL\s*[=:]\s*(\d+(?:\.\d+)?)", re.IGNORECASE
)
_ACCEPTANCE_RATE = re.compile(r"accept(?:ance)?[-_ ]*rate\D{0,6}?(\d+(?:\.\d+)?)\s*%", re.IGNORECASE)

# Per-token acceptance of DeepSeek-V3's MTP module: "85-90 %" (tech report §5.4.3; serving_techniques.csv), midpoint.
MTP_ACCEPTANCE = 0.875
# EAGLE-3: median acceptance length of the 15 published evaluations in serving_techniques.csv (Nebius Llama 3.1 8B /
# 3.3 70B at K = 7 drafted tokens, AngelSlim Qwen3 with K not stated: 1.79-5.08 tokens per step), read at K = 7.
EAGLE_DRAFT_TOKENS = 7
EAGLE_ACCEPTANCE_LENGTH = 3.34

_CAP = re.compile(
    r"(?:max[-_ ]num[-_ ]seqs|max[-_ ]running[-_ ]requests|max[-_ ]batch[-_ ]size)\s*[=:]?\s*(\d+)\b", re.IGNORECASE
)
# The engine's tokens per iteration: TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens ("16,384" or "16384").
_TOKEN_BUDGET = re.compile(
    r"max[-_ ]num[-_ ](?:batched[-_ ])?tokens\s*[=:]?\s*(\d{1,3}(?:,\d{3})+|\d+)\b", re.IGNORECASE
)


# The KV cache's dtype where only the notes state it: an engine flag ("--kv-cache-dtype fp8", "kv_cache_dtype=fp8_e4m3")
# or "FP8 KV cache"; and NVIDIA's MLPerf precision statement "FP4 on selected linear/MLP layers, FP8 elsewhere" (what
# is not FP4 runs in FP8, the KV cache included: the case files' README, "NVIDIA v4.x: FP8 weights, activations and
# KV cache; the B200 preview used FP4 on selected layers and FP8 elsewhere").
_KV_FLAG = re.compile(r"kv[-_ ]cache[-_ ]dtype\s*[=:]?\s*(fp8|fp16|bf16|int8|fp4)", re.IGNORECASE)
_KV_FP8 = re.compile(r"\bfp8[-_ ]kv\b|\bkv[-_ ]cache (?:in )?fp8\b|\bfp8 elsewhere\b", re.IGNORECASE)


def stated_kv_dtype(notes: str) -> str | None:
    """The KV-cache dtype the notes state (fp8, fp16, ...), None where they state none."""
    flag = [match.group(1).lower() for clause in _clauses(notes) if (match := _KV_FLAG.search(clause))]
    if flag:
        return flag[0]
    return "fp8" if _stated(_KV_FP8, notes) else None


@dataclass(frozen=True, slots=True)
class RunConditions:
    """What the notes state about how the run was served (defaults: nothing stated)."""

    expert_parallel: int = 1
    attention_dp: bool = False
    techniques: ServingTechniques = NO_TECHNIQUES
    batch_cap: int | None = None  # the engine's stated cap on running sequences
    token_budget: int | None = None  # the engine's stated tokens per iteration
    notes: tuple[str, ...] = ()


def _clauses(notes: str) -> list[str]:
    """The notes' clauses: '; '- and ', '-separated run conditions."""
    return [c.strip() for c in re.split(r"[;,]", notes) if c.strip()]


def _stated(pattern: re.Pattern[str], notes: str) -> list[str]:
    """The clauses that mention `pattern` without switching it off."""
    return [c for c in _clauses(notes) if pattern.search(c) and not _NEGATION.search(c)]


def _first_int(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def expert_parallel(notes: str, model: ModelSpec, gpus_per_replica: int) -> int:
    """Expert-parallel degree the notes state, for an MoE model whose experts it divides; else 1."""
    ep = _first_int(_EXPERT_PARALLEL, notes) or (gpus_per_replica if _EP_GROUP.search(notes) else 1)
    if ep <= 1 or not model.is_moe or ep > gpus_per_replica or model.num_experts % ep:
        return 1
    return ep


def attention_dp(notes: str) -> bool:
    """Whether attention ran data-parallel over the TP group (DEP<n>, SGLang's --enable-dp-attention)."""
    return bool(_DEP.search(notes) or _stated(_ATTENTION_DP, notes))


def acceptance_from_length(length: float, draft_tokens: int) -> float:
    """The per-token acceptance a at which k drafted tokens yield `length` tokens per step:
    (1 - a^(k+1)) / (1 - a) = length (Leviathan et al. 2023, eq. 1), by bisection; 0 for length <= 1."""
    target = min(length, draft_tokens + 1 - 1e-6)
    if target <= 1.0:
        return 0.0
    low, high = 0.0, 0.999999
    for _ in range(60):
        mid = (low + high) / 2
        if (1 - mid ** (draft_tokens + 1)) / (1 - mid) < target:
            low = mid
        else:
            high = mid
    return round((low + high) / 2, 4)


def speculative(notes: str) -> tuple[ServingTechniques, str | None]:
    """Speculative decoding as stated: the method (MTP, EAGLE, other), drafted tokens and the acceptance; published
    defaults where the notes name MTP or EAGLE only. Another method without a stated acceptance (a draft model,
    n-grams) has no published default here and is not modelled (the note says so)."""
    mtp, eagle, other = (_stated(p, notes) for p in (_MTP, _EAGLE, _SPECULATIVE))
    if not (mtp or eagle or other):
        return NO_TECHNIQUES, None
    length_match, rate_match = _ACCEPTANCE_LENGTH.search(notes), _ACCEPTANCE_RATE.search(notes)
    length = float(next(g for g in length_match.groups() if g)) if length_match else None
    rate = min(float(rate_match.group(1)) / 100, 0.99) if rate_match else None
    # engine flags anywhere in the notes; "MTP 3" or "K=7" only in the clauses that name the method
    drafted = _first_int(_DRAFT_FLAGS, notes) or _first_int(_DRAFT_TOKENS, "; ".join(mtp + eagle + other))
    drafted = drafted if drafted and drafted <= MAX_DRAFT_TOKENS else None
    method = "MTP" if mtp else "EAGLE" if eagle else "speculative decoding"
    if not (mtp or eagle) and length is None and rate is None:
        return NO_TECHNIQUES, f"{method} stated without its method or acceptance: not modelled"
    default_k = DEFAULT_DRAFT_TOKENS if mtp else EAGLE_DRAFT_TOKENS if eagle else math.ceil(length or 1.0)
    k = max(drafted or default_k, 1)
    if length is not None and length >= k + 1:  # more tokens per step than k drafts can yield: k was larger
        k = math.ceil(length)
    if rate is not None:
        acceptance, origin = rate, "stated acceptance rate"
    elif length is not None:
        acceptance, origin = acceptance_from_length(length, k), f"stated acceptance length {length:g}"
    elif mtp:
        acceptance, origin = MTP_ACCEPTANCE, "DeepSeek-V3 MTP 85-90 % (serving_techniques.csv)"
    else:  # the per-token acceptance behind EAGLE-3's published lengths at K = 7, carried to k drafts
        acceptance = acceptance_from_length(EAGLE_ACCEPTANCE_LENGTH, EAGLE_DRAFT_TOKENS)
        origin = f"EAGLE-3 median acceptance length {EAGLE_ACCEPTANCE_LENGTH:g} at K=7 (serving_techniques.csv)"
    techniques = ServingTechniques(spec_acceptance=acceptance, spec_draft_tokens=k)
    note = (
        f"{method}: {k} drafted token(s) per step at acceptance {acceptance:.2f} ({origin}): "
        f"{techniques.tokens_per_step:.2f} tokens per step"
    )
    return techniques, note


def batch_cap(notes: str) -> int | None:
    """The engine's cap on running sequences as stated (max_num_seqs, max_running_requests, max_batch_size)."""
    match = _CAP.search(notes)
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def token_budget(notes: str) -> int | None:
    """The engine's tokens per iteration as stated (max_num_tokens, max_num_batched_tokens)."""
    match = _TOKEN_BUDGET.search(notes)
    value = int(match.group(1).replace(",", "")) if match else 0
    return value if value > 0 else None


def run_conditions(notes: str, model: ModelSpec, gpus_per_replica: int) -> RunConditions:
    """Everything above, with a note for each setting read."""
    ep = expert_parallel(notes, model, gpus_per_replica)
    dp = attention_dp(notes) and gpus_per_replica > 1
    techniques, spec_note = speculative(notes)
    cap, budget = batch_cap(notes), token_budget(notes)
    read = [f"expert parallel EP{ep} (stated)"] if ep > 1 else []
    read += [f"attention data-parallel over the {gpus_per_replica} GPUs (stated)"] if dp else []
    read += [spec_note] if spec_note else []
    read += [f"engine batch cap {cap} (stated)"] if cap else []
    read += [f"engine step budget {budget:,} tokens (stated)"] if budget else []
    return RunConditions(ep, dp, techniques, cap, budget, tuple(read))
