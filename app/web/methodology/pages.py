"""'How we estimate': the formulas, every constant the estimator uses with its source, and the validation residuals."""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.config import PROJECT_ROOT
from app.scoring.efficiency import inference as inference_efficiency
from app.scoring.efficiency import training as training_efficiency
from app.scoring.efficiency.band_table import BAND_MARGINS
from app.scoring.efficiency.bands import UNKNOWN_BAND_WORDS
from app.scoring.hardware.engine_support import ENGINE_NAMES
from app.scoring.pricing import price_terms
from app.scoring.specs import CatalogSnapshot
from app.web.deps import ONE_VALUE_PER_KEY, SnapshotDep
from app.web.methodology.constant_catalog import dataclass_fields, fixed_constants
from app.web.methodology.roofline_example import roofline_example
from app.web.rendering.render import json_response, page

router = APIRouter(include_in_schema=False, dependencies=[ONE_VALUE_PER_KEY])
ACCURACY_JSON = PROJECT_ROOT / "docs" / "accuracy.json"


def accuracy() -> dict[str, Any] | None:
    if not ACCURACY_JSON.exists():
        return None
    return json.loads(ACCURACY_JSON.read_text(encoding="utf-8"))


def terms_constants() -> dict[str, Any]:
    """The numbers the price-terms section quotes, read from the engine so the page cannot drift from it."""
    return {
        "hyperscaler_interruptions_per_node_month": price_terms.HYPERSCALER_INTERRUPTIONS_PER_NODE_MONTH,
        "other_interruptions_per_node_month": price_terms.OTHER_INTERRUPTIONS_PER_NODE_MONTH,
        "restart_hours": price_terms.RESTART_HOURS,
        "startup_hours": price_terms.STARTUP_HOURS,
        "max_lost_share": price_terms.MAX_LOST_SHARE,
        "default_min_term_hours": dict(price_terms.DEFAULT_MIN_TERM_HOURS),
    }


def with_evidence(rows: list[dict[str, str]], summary: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each constant with what it rests on, from the validation summary's `evidence` (`make accuracy`): the rows and
    publications whose prediction it moves, its sourced prior and whether the evidence is thin; None for a constant
    that is not fitted (or before `make accuracy` has run)."""
    found = {item["name"]: item for item in (summary or {}).get("evidence", [])}
    return [{**row, "evidence": found.get(row["name"])} for row in rows]


def methodology_payload(snapshot: CatalogSnapshot) -> dict[str, Any]:
    summaries = accuracy() or {}
    return {
        "inference_constants": with_evidence(
            dataclass_fields(inference_efficiency, "InferenceEfficiency"), summaries.get("inference")
        ),
        "training_constants": with_evidence(
            dataclass_fields(training_efficiency, "TrainingEfficiency"), summaries.get("training")
        ),
        "fixed_constants": fixed_constants(),
        "overlap_power": inference_efficiency.DEFAULT_EFFICIENCY.overlap_power,
        "ttft_wait_steps": inference_efficiency.DEFAULT_EFFICIENCY.ttft_wait_steps,  # the prose's fitted value
        "unknown_band_words": UNKNOWN_BAND_WORDS,  # the floor of a band no validation row measures
        "roofline_example": roofline_example(snapshot.gpus, snapshot.models),
        "price_terms": terms_constants(),
        # the engines whose MoE prefill pays moe_prefill_layer_ms and those compiled past it, as the estimate has them
        "moe_prefill_engines": [
            name for e, name in ENGINE_NAMES.items() if e not in inference_efficiency.COMPILED_ENGINES
        ],
        "compiled_prefill_engines": [ENGINE_NAMES[e] for e in inference_efficiency.COMPILED_ENGINES],
        "fp4_bf16_linear_share": training_efficiency.DEFAULT_TRAINING_EFFICIENCY.fp4_bf16_linear_share,
        "accuracy": summaries or None,
        # each metric's bands widen by this factor each way (app.calibration.held_out.bands.fit_margins)
        "band_widening": {metric: round(math.exp(margin), 2) for metric, margin in BAND_MARGINS.items()},
    }


@router.get("/methodology")
def methodology(request: Request, snapshot: SnapshotDep) -> Response:
    return page(
        request,
        "methodology.html",
        {"title": "How we estimate", "nav": "methodology", **methodology_payload(snapshot)},
    )


@router.get("/methodology.json")
def methodology_json(snapshot: SnapshotDep) -> Response:
    return json_response(methodology_payload(snapshot))
