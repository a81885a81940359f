"""Generic validation plumbing: read case CSVs, summarise prediction errors, dispatch by file kind."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path

from app.calibration.cases import CasePrediction
from app.scoring.specs import GpuSpec, ModelSpec


def read_cases(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _measured(text: str | None) -> float:
    """The row's value, NaN when empty or unreadable (such a row is then not covered)."""
    try:
        return float(text or "nan")
    except ValueError:
        return float("nan")


def make_prediction(row: dict, predicted: float | None, reason: str) -> CasePrediction:
    measured = _measured(row.get("value"))
    pct: float | None = None
    if predicted is not None and measured == measured and measured != 0:
        pct = (predicted - measured) / measured * 100
    covered = pct is not None
    if predicted is not None and not covered:
        reason = f"measured value {row.get('value')!r} empty, zero or unreadable"
    return CasePrediction(
        case_id=row.get("case_id", ""),
        metric=row.get("metric", ""),
        predicted=predicted,
        measured=measured,
        pct_error=pct,
        covered=covered,
        reason=reason,
        source=row.get("source", ""),
        gpu=row.get("gpu", ""),
    )


def quantile(values: list[float], q: float) -> float | None:
    """Linear-interpolated quantile (numpy's default) of a non-empty list; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _stats(predictions: list[CasePrediction]) -> dict:
    errors = [p.pct_error for p in predictions if p.covered and p.pct_error is not None]
    absolute = [abs(e) for e in errors]
    return {
        "cases": len(predictions),
        "covered": len(errors),
        "median_abs_pct_error": quantile(absolute, 0.5),
        "p90_abs_pct_error": quantile(absolute, 0.9),
        "within_25pct_share": (sum(a <= 25 for a in absolute) / len(absolute)) if absolute else None,
        "signed_median_pct_error": quantile(errors, 0.5),
    }


def _grouped(predictions: list[CasePrediction], key: Callable[[CasePrediction], str]) -> dict:
    groups: dict[str, list[CasePrediction]] = {}
    for prediction in predictions:
        groups.setdefault(key(prediction), []).append(prediction)
    return {name: _stats(items) for name, items in sorted(groups.items())}


def summarise(predictions: Iterable[CasePrediction]) -> dict:
    items = list(predictions)
    summary = _stats(items)
    summary["by_metric"] = _grouped(items, lambda p: p.metric)
    summary["by_source"] = _grouped(items, lambda p: p.source)
    summary["by_gpu"] = _grouped(items, lambda p: p.gpu)
    return summary


def _predict_training(rows: list[dict], gpus: dict, models: dict) -> list[CasePrediction]:
    try:
        from app.calibration.validate_training import predict_training_case
    except ImportError:
        return [make_prediction(row, None, "training estimator not available") for row in rows]
    return [predict_training_case(row, gpus, models) for row in rows]


def validate_file(path: str | Path, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec]) -> dict:
    """Predict every row of a case file (inference or training, detected by columns) and summarise."""
    rows = read_cases(path)
    columns = set(rows[0]) if rows else set()
    if "framework" in columns or "method" in columns:
        predictions = _predict_training(rows, gpus, models)
    else:
        from app.calibration.validate_inference import predict_inference_case

        predictions = [predict_inference_case(row, gpus, models) for row in rows]
    return {"summary": summarise(predictions), "cases": [asdict(p) for p in predictions]}
