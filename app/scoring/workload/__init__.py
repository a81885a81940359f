"""The workloads a user describes: validated at the edge, with units in every field name.

One module per part: field_types (value sets, ids, bounds), limits_at, engine_rules (what each engine keeps or
lacks), scenario_load (which load each scenario reads, peaks, batch jobs), architecture (a custom model),
model_choice (filters and the model), inference and training (the workloads).
The names the rest of the app imports are re-exported here.
"""

from __future__ import annotations

from app.scoring.workload.architecture import PARAMS_COUNTED, ModelArchitecture
from app.scoring.workload.engine_rules import (
    ACTIVATION_DTYPE_KV_ENGINES,
    KV_DTYPE_DEFAULT,
    NO_W8A8_ENGINES,
    default_kv_dtype,
    w8a8_lack,
    w8a8_refusal,
)
from app.scoring.workload.field_types import (
    MIN_LATENCY_LIMIT_MS,
    MIN_REQUESTS_PER_S,
    REPLICA_MAX_GPUS,
    AttentionParallel,
    Dtype,
    Engine,
    ExpertParallel,
    Framework,
    Method,
    Offload,
    Optimizer,
    Precision,
    PriceType,
    RankBy,
    Scenario,
    ShortId,
    WeightDtype,
)
from app.scoring.workload.inference import InferenceWorkload
from app.scoring.workload.limits_at import LIMITS_AT_DESCRIPTION, LimitsAt, estimate_is_unset
from app.scoring.workload.model_choice import Filters, ModelChoice
from app.scoring.workload.training import TrainingWorkload

__all__ = [
    "ACTIVATION_DTYPE_KV_ENGINES",
    "KV_DTYPE_DEFAULT",
    "LIMITS_AT_DESCRIPTION",
    "MIN_LATENCY_LIMIT_MS",
    "MIN_REQUESTS_PER_S",
    "NO_W8A8_ENGINES",
    "PARAMS_COUNTED",
    "REPLICA_MAX_GPUS",
    "AttentionParallel",
    "Dtype",
    "Engine",
    "ExpertParallel",
    "Filters",
    "Framework",
    "InferenceWorkload",
    "LimitsAt",
    "Method",
    "ModelArchitecture",
    "ModelChoice",
    "Offload",
    "Optimizer",
    "Precision",
    "PriceType",
    "RankBy",
    "Scenario",
    "ShortId",
    "TrainingWorkload",
    "WeightDtype",
    "default_kv_dtype",
    "estimate_is_unset",
    "w8a8_lack",
    "w8a8_refusal",
]
