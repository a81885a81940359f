"""A case file validated: each row predicted (inference or training, detected by columns), refitted without its
publication (LOSO), set in its band, summarised and checked against the targets.

case_files.py reads the rows and summary.py summarises the errors; this module dispatches by file kind.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from app.calibration.validation.case_files import is_training, read_cases
from app.calibration.validation.cases import CasePrediction
from app.calibration.validation.memory_summary import memory_fields, memory_summary
from app.calibration.validation.summary import group_bias, make_prediction, summarise
from app.scoring.specs import GpuSpec, ModelSpec


def _predict_training(rows: list[dict], gpus: dict, models: dict) -> list[CasePrediction]:
    try:
        from app.calibration.training.validate_training import predict_training_case
    except ImportError:
        return [make_prediction(row, None, "training estimator not available") for row in rows]
    return [predict_training_case(row, gpus, models) for row in rows]


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

    if is_training(rows):
        return list(loso.loso_training(rows, gpus, models)), evidence.training_evidence(rows, gpus, models), "training"
    from app.calibration.inference.case_setup import case_setup

    setups = [case_setup(row, gpus, models) for row in rows]
    sensitivity = loso.sensitive_constants(setups)
    stored = folds.stored_folds(rows)
    held = loso.loso_inference(rows, gpus, models, setups=setups, sensitivity=sensitivity, folds=stored)
    return list(held), evidence.inference_evidence(rows, sensitivity), "cold" if stored else "warm"


def _case(p: CasePrediction, held: CasePrediction | None, ratios: tuple[float, float] | None) -> dict:
    """The case as a dict; low/high: the band the product would show around the prediction."""
    case = asdict(p)
    case.update(memory_fields(case.pop("memory")))
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
    publication (`held_out_inside_band`, app.calibration.held_out.bands): what a band promises the next publication;
    `margin_held_out_share` / `margin_held_out_publication_share`, the same with the band's widening margin fitted
    without the row's publication too (`margin_held_out_inside_band`)."""
    result: dict[str, dict] = {}
    by_source: dict[str, dict[str, dict[str, list[bool]]]] = {"loso": {}, "held_out": {}, "margin_held_out": {}}
    for case in cases:
        stats = result.setdefault(case["metric"], {"rows": 0, "inside": 0, "loso_rows": 0, "loso_inside": 0})
        if case["covered"] and case["low"] is not None:
            stats["rows"] += 1
            stats["inside"] += case["low"] <= case["measured"] <= case["high"]
        for kind, field in (
            ("loso", "loso_inside_band"),
            ("held_out", "held_out_inside_band"),
            ("margin_held_out", "margin_held_out_inside_band"),
        ):
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
        nested = by_source["margin_held_out"].get(metric, {})
        rows = sum(len(inside) for inside in nested.values())
        stats["margin_held_out_share"] = sum(sum(inside) for inside in nested.values()) / rows if rows else None
        stats["margin_held_out_publication_share"] = _mean_share(nested)
    return dict(sorted(result.items()))


def _mean_share(by_source: dict[str, list[bool]]) -> float | None:
    shares = [sum(inside) / len(inside) for inside in by_source.values()]
    return sum(shares) / len(shares) if shares else None


def validate_file(path: str | Path, gpus: dict[str, GpuSpec], models: dict[str, ModelSpec], loso: bool = True) -> dict:
    """Predict every row of a case file (inference or training, detected by columns) and summarise.

    With loso (the default), each row is also predicted with constants refitted without its source; the
    summary's `headline` is then the leave-one-source-out figures per metric, each publication weighted
    equally, beside the same figures in-sample.
    """
    from app.calibration.held_out.loso import publication_weighted

    rows = read_cases(path)
    if is_training(rows):
        predictions = _predict_training(rows, gpus, models)
    else:
        from app.calibration.inference.validate_inference import predict_inference_case

        predictions = [predict_inference_case(row, gpus, models) for row in rows]
    summary = summarise(predictions)
    if is_training(rows):
        summary["memory"] = memory_summary(predictions)
    summary["headline"] = {"in_sample": publication_weighted(predictions)}
    held: list[CasePrediction | None] = [None] * len(predictions)
    if loso:
        held, summary["evidence"], method = _held_out(rows, gpus, models)
        summary["loso_method"] = LOSO_METHODS[method]
        summary["loso"] = summarise(p for p in held if p is not None)
        summary["headline"]["loso"] = publication_weighted(p for p in held if p is not None)
        summary["loso_groups"] = group_bias(rows, held, gpus)
    from app.calibration.held_out.bands import mark_held_out_bands, mark_margin_held_out, row_band

    cases = [_case(p, h, row_band(row, gpus, models)) for row, p, h in zip(rows, predictions, held, strict=True)]
    if loso:
        mark_held_out_bands(rows, cases, gpus, models)
        mark_margin_held_out(rows, cases, gpus, models)
    summary["band_coverage"] = band_coverage(cases)
    from app.calibration.validation.targets import target_checks  # targets reads summary.py's flag rule

    summary["targets"] = target_checks(summary)
    return {"summary": summary, "cases": cases}
