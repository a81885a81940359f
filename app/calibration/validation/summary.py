"""Prediction errors summarised: one CasePrediction per row, quantiles, the in-sample summary by metric, source
and GPU, and the LOSO bias per engine (or framework) x GPU vendor group.

The numbers here are what `gpumatch validate`, docs/ACCURACY.md and the targets (targets.py) read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.calibration.validation.cases import CasePrediction, measured_value


def make_prediction(row: dict, predicted: float | None, reason: str) -> CasePrediction:
    measured = measured_value(row.get("value"))
    if predicted is not None and not 0 < predicted < float("inf"):
        predicted, reason = None, f"the estimate is not a finite positive number ({predicted!r}); not covered"
    pct: float | None = None
    if predicted is not None and measured is not None:
        pct = (predicted - measured) / measured * 100
    covered = pct is not None
    if predicted is not None and not covered:
        reason = f"measured value {row.get('value')!r} empty, zero, negative or unreadable"
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


def weighted_quantile(pairs: list[tuple[float, float]], q: float) -> float:
    """Quantile of (value, weight > 0) pairs, linear between the centres of each value's weight, the first centre
    at q = 0 and the last at q = 1: with equal weights this is `quantile` (numpy's default) exactly."""
    ordered = sorted(pairs)
    if len(ordered) == 1:
        return ordered[0][0]
    span = sum(w for _, w in ordered) - (ordered[0][1] + ordered[-1][1]) / 2
    target, centre = q * span, 0.0
    for (v0, w0), (v1, w1) in zip(ordered, ordered[1:], strict=False):
        step = (w0 + w1) / 2
        if target <= centre + step:
            return v0 + (v1 - v0) * (target - centre) / step
        centre += step
    return ordered[-1][0]


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


BIAS_GROUP_MIN_ROWS = 20  # issue 10: an engine x vendor group with >= 20 rows
BIAS_LIMIT_PCT = 10.0  # must not be biased beyond +-10 % signed median (LOSO)


def group_bias(rows: list[dict], held: list[CasePrediction | None], gpus: dict) -> list[dict]:
    """LOSO signed and absolute median error per metric x engine (or framework) x GPU vendor.

    A group with at least BIAS_GROUP_MIN_ROWS covered rows whose signed median is beyond +-BIAS_LIMIT_PCT is
    flagged: a systematic error of that software stack on that hardware that unseen sources would share."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for row, p in zip(rows, held, strict=True):
        if p is None or not p.covered or p.pct_error is None:
            continue
        gpu = gpus.get(row.get("gpu", ""))
        stack = row.get("engine") or row.get("framework") or "?"
        groups.setdefault((p.metric, stack, gpu.vendor if gpu else "?"), []).append(p.pct_error)
    result = []
    for (metric, stack, vendor), errors in sorted(groups.items()):
        signed = quantile(errors, 0.5)
        result.append(
            {
                "metric": metric,
                "stack": stack,
                "vendor": vendor,
                "covered": len(errors),
                "signed_median_pct_error": signed,
                "median_abs_pct_error": quantile([abs(e) for e in errors], 0.5),
                "flagged": len(errors) >= BIAS_GROUP_MIN_ROWS and signed is not None and abs(signed) > BIAS_LIMIT_PCT,
            }
        )
    return result
