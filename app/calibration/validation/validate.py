"""Generic validation plumbing: read case CSVs, summarise prediction errors, dispatch by file kind."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path

from app.calibration.validation.cases import CasePrediction, measured_value
from app.scoring.specs import GpuSpec, ModelSpec

# The columns a case cannot be predicted or scored without (shared/validation/README.md has the whole schema);
# a case file is a training one when it has a framework or method column (_is_training).
CASE_COLUMNS = ("case_id", "source", "gpu", "gpu_count", "model", "metric", "value")
INFERENCE_COLUMNS = (*CASE_COLUMNS, "input_len", "output_len")
TRAINING_COLUMNS = (*CASE_COLUMNS, "method", "seq_len", "global_batch_seqs")


class CaseFileError(ValueError):
    """A case file whose shape is wrong: required columns missing, or a row with more or fewer cells than the header."""


def read_cases(path: str | Path) -> list[dict]:
    """The case rows; raises CaseFileError for a file that is not a case table (a cell that cannot be read stays
    a row, predicted `covered: false` with its reason)."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        rows = list(reader)
    required = TRAINING_COLUMNS if _is_training([dict.fromkeys(header)]) else INFERENCE_COLUMNS
    if missing := [name for name in required if name not in header]:
        raise CaseFileError(f"missing required columns: {', '.join(missing)}")
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        if None in row or None in row.values():
            raise CaseFileError(f"line {number} has {_cells(row)} cells, the header {len(header)}")
    return with_cumulative_techniques(rows)


def _cells(row: dict) -> int:
    extra = row.get(None) or []
    return sum(1 for key, value in row.items() if key is not None and value is not None) + len(extra)


# A row of a cumulative table ("cumulative technique '+ Compile'": torchtune's optimization-flags table, where each
# row adds one technique to all the rows above it) names only its own technique.
CUMULATIVE_TECHNIQUE = re.compile(r"cumulative technique '([^']+)'")
TECHNIQUES_ABOVE = "techniques above it in the cumulative table: "


def with_cumulative_techniques(rows: list[dict]) -> list[dict]:
    """Append to such a row's notes the techniques of the rows above it in its table (same source, same table
    note, file order), so that the readers of run conditions see the whole stack it ran with."""
    stacks: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        notes = row.get("notes") or ""
        found = next(((part, m) for part in notes.split("; ") if (m := CUMULATIVE_TECHNIQUE.search(part))), None)
        if found is None:
            continue
        item, technique = found[0], found[1].group(1)
        stack = stacks.setdefault((row.get("source", ""), CUMULATIVE_TECHNIQUE.sub("", item)), [])
        if technique not in stack:
            stack.append(technique)
        above = stack[: stack.index(technique)]
        if above:
            row["notes"] = f"{notes}; {TECHNIQUES_ABOVE}{', '.join(above)}"
    return rows


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


def _predict_training(rows: list[dict], gpus: dict, models: dict) -> list[CasePrediction]:
    try:
        from app.calibration.training.validate_training import predict_training_case
    except ImportError:
        return [make_prediction(row, None, "training estimator not available") for row in rows]
    return [predict_training_case(row, gpus, models) for row in rows]


def _is_training(rows: list[dict]) -> bool:
    columns = set(rows[0]) if rows else set()
    return "framework" in columns or "method" in columns


LOSO_METHODS = {
    "training": "cold refit per held-out publication",
    "cold": "cold fold per held-out publication, stored by make calibrate",
    "warm": "refit per held-out publication, warm-started from the committed constants (optimistic; the case file "
    "is not the one make calibrate stored cold folds for)",
}


def _held_out(rows: list[dict], gpus: dict, models: dict) -> tuple[list[CasePrediction | None], list[dict], str]:
    """The LOSO predictions, in row order, what each fitted constant rests on (`evidence`) and how the folds were
    fitted (a LOSO_METHODS key)."""
    from app.calibration import evidence
    from app.calibration.held_out import folds, loso

    if _is_training(rows):
        return list(loso.loso_training(rows, gpus, models)), evidence.training_evidence(rows, gpus, models), "training"
    from app.calibration.inference.validate_inference import case_setup

    setups = [case_setup(row, gpus, models) for row in rows]
    sensitivity = loso.sensitive_constants(setups)
    stored = folds.stored_folds(rows)
    held = loso.loso_inference(rows, gpus, models, setups=setups, sensitivity=sensitivity, folds=stored)
    return list(held), evidence.inference_evidence(rows, sensitivity), "cold" if stored else "warm"


def _case(p: CasePrediction, held: CasePrediction | None, ratios: tuple[float, float] | None) -> dict:
    """The case as a dict; low/high: the band the product would show around the prediction."""
    case = asdict(p)
    case["low"] = case["high"] = None
    if ratios is not None and p.predicted is not None:
        case["low"], case["high"] = p.predicted * ratios[0], p.predicted * ratios[1]
    if held is not None:
        case["loso_predicted"], case["loso_pct_error"] = held.predicted, held.pct_error
        case["loso_inside_band"] = None
        if ratios is not None and held.covered and held.predicted and held.measured:
            case["loso_inside_band"] = ratios[0] <= held.measured / held.predicted <= ratios[1]
    return case


def band_coverage(cases: list[dict]) -> dict:
    """Per metric: share of measurements inside their band, around in-sample and around LOSO predictions;
    `publication_share`, the mean of each publication's LOSO share (each publication weighted equally); and
    `held_out_share` / `held_out_publication_share`, the same with the band itself built without the row's
    publication (`held_out_inside_band`, app.calibration.held_out.bands): what a band promises the next publication."""
    result: dict[str, dict] = {}
    by_source: dict[str, dict[str, dict[str, list[bool]]]] = {"loso": {}, "held_out": {}}
    for case in cases:
        stats = result.setdefault(case["metric"], {"rows": 0, "inside": 0, "loso_rows": 0, "loso_inside": 0})
        if case["covered"] and case["low"] is not None:
            stats["rows"] += 1
            stats["inside"] += case["low"] <= case["measured"] <= case["high"]
        for kind, field in (("loso", "loso_inside_band"), ("held_out", "held_out_inside_band")):
            if case.get(field) is not None:
                by_source[kind].setdefault(case["metric"], {}).setdefault(case["source"], []).append(case[field])
    for metric, stats in result.items():
        stats["in_sample_share"] = stats["inside"] / stats["rows"] if stats["rows"] else None
        loso = by_source["loso"].get(metric, {})
        stats["loso_rows"] = sum(len(inside) for inside in loso.values())
        stats["loso_inside"] = sum(sum(inside) for inside in loso.values())
        stats["share"] = stats["loso_inside"] / stats["loso_rows"] if stats["loso_rows"] else None
        stats["publication_share"] = _mean_share(loso)
        held = by_source["held_out"].get(metric, {})
        rows = sum(len(inside) for inside in held.values())
        stats["held_out_share"] = sum(sum(inside) for inside in held.values()) / rows if rows else None
        stats["held_out_publication_share"] = _mean_share(held)
    return dict(sorted(result.items()))


def _mean_share(by_source: dict[str, list[bool]]) -> float | None:
    shares = [sum(inside) / len(inside) for inside in by_source.values()]
    return sum(shares) / len(shares) if shares else None


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


def validate_file(path: str | Path, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec], loso: bool = True) -> dict:
    """Predict every row of a case file (inference or training, detected by columns) and summarise.

    With loso (the default), each row is also predicted with constants refitted without its source; the
    summary's `headline` is then the leave-one-source-out figures per metric, each publication weighted
    equally, beside the same figures in-sample.
    """
    from app.calibration.held_out.loso import publication_weighted

    rows = read_cases(path)
    if _is_training(rows):
        predictions = _predict_training(rows, gpus, models)
    else:
        from app.calibration.inference.validate_inference import predict_inference_case

        predictions = [predict_inference_case(row, gpus, models) for row in rows]
    summary = summarise(predictions)
    summary["headline"] = {"in_sample": publication_weighted(predictions)}
    held: list[CasePrediction | None] = [None] * len(predictions)
    if loso:
        held, summary["evidence"], method = _held_out(rows, gpus, models)
        summary["loso_method"] = LOSO_METHODS[method]
        summary["loso"] = summarise(p for p in held if p is not None)
        summary["headline"]["loso"] = publication_weighted(p for p in held if p is not None)
        summary["loso_groups"] = group_bias(rows, held, gpus)
    from app.calibration.held_out.bands import mark_held_out_bands, row_band

    cases = [_case(p, h, row_band(row, gpus, models)) for row, p, h in zip(rows, predictions, held, strict=True)]
    if loso:
        mark_held_out_bands(rows, cases, gpus, models)
    summary["band_coverage"] = band_coverage(cases)
    from app.calibration.validation.targets import target_checks  # targets reads this module's flag rule

    summary["targets"] = target_checks(summary)
    return {"summary": summary, "cases": cases}
