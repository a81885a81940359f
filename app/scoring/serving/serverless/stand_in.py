"""Which priced model may stand in for one no provider lists per token, and why it is comparable.

Serving cost follows the weights read per token (active parameters) and the memory the weights hold (total
parameters, so GPUs needed), and a mixture of experts differs from a dense model in both: a stand-in is of the
same kind (dense or MoE), near in active and total parameters, within stated tolerances, or there is none.

Pure: takes model specs; no web or database imports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.scoring.explain import significant
from app.scoring.specs import ModelSpec

# Judgement, not a measurement: within 1.5x the per-token compute and weight reads are in one price class
# (per-token list prices in token_prices.csv step by ~2x between 8B, 30B and 70B dense models).
ACTIVE_PARAMS_TOLERANCE = 1.5
# Judgement: total parameters set the GPUs a replica needs; 2.5x keeps an MoE stand-in within one node size
# class (Llama 4 Scout 109B vs Qwen3-235B-A22B is 2.2x), and for a dense model the active bound (1.5x) binds first.
TOTAL_PARAMS_TOLERANCE = 2.5
# A reasoning-tuned release of an architecture is billed at a premium over its base release (DeepSeek API
# pricing, https://api-docs.deepseek.com/quick_start/pricing: R1 $0.55/$2.19 vs V3 $0.27/$1.10 per M tokens), so
# among equally near stand-ins (one architecture under several names) it comes last.
REASONING_TUNED = frozenset({"deepseek-r1"})

TOLERANCE_TEXT = (
    f"same dense/MoE kind, active parameters within {significant(ACTIVE_PARAMS_TOLERANCE)}× "
    f"and total parameters within {significant(TOTAL_PARAMS_TOLERANCE)}×"
)


@dataclass(frozen=True, slots=True)
class StandIn:
    model: ModelSpec
    reason: str  # why it is comparable, in words: its kind, active and total parameters against the asked model's


def size_text(model: ModelSpec) -> str:
    """`dense 30.0B` or `MoE 3.3B active of 30.5B`."""
    if model.is_moe:
        return f"MoE {significant(model.active_params_b, 3)}B active of {significant(model.params_b, 4)}B"
    return f"dense {significant(model.params_b, 4)}B"


def active_b(model: ModelSpec) -> float:
    return model.active_params_b if model.active_params_b > 0 else model.params_b


def log_ratio(a: float, b: float) -> float:
    return abs(math.log(a / b))


def within_tolerance(model: ModelSpec, candidate: ModelSpec) -> bool:
    return (
        candidate.is_moe == model.is_moe
        and log_ratio(active_b(candidate), active_b(model)) <= math.log(ACTIVE_PARAMS_TOLERANCE)
        and log_ratio(candidate.params_b, model.params_b) <= math.log(TOTAL_PARAMS_TOLERANCE)
    )


def distance(model: ModelSpec, candidate: ModelSpec) -> float:
    """|log active ratio| + |log total ratio|: compute per token and memory weigh alike."""
    return log_ratio(active_b(candidate), active_b(model)) + log_ratio(candidate.params_b, model.params_b)


def comparable_priced_model(model: ModelSpec, priced_ids: set[str], models: dict[str, ModelSpec]) -> StandIn | None:
    """The priced model nearest in active and total parameters of the same kind, within the tolerances (ties: the
    same attention kind, then not reasoning-tuned, then the smaller name); None where none is comparable."""
    if model.params_b <= 0:
        return None
    candidates = [
        m
        for i, m in models.items()
        if i in priced_ids and m.params_b > 0 and m.id != model.id and within_tolerance(model, m)
    ]
    if not candidates:
        return None
    best = min(
        candidates,
        key=lambda m: (round(distance(model, m), 9), m.attention != model.attention, m.id in REASONING_TUNED, m.name),
    )
    return StandIn(best, stand_in_reason(model, best))


def stand_in_reason(model: ModelSpec, stand_in: ModelSpec) -> str:
    return f"{stand_in.name} ({size_text(stand_in)}) stands in for {model.name} ({size_text(model)}): {TOLERANCE_TEXT}"


def no_stand_in_note(model: ModelSpec) -> str:
    return (
        f"No per-token price for {model.name} or a comparable model ({size_text(model)}; a stand-in must be of the "
        f"{TOLERANCE_TEXT}): no serverless option is compared."
    )
