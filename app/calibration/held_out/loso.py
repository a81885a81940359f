"""Leave-one-source-out (LOSO): refit the fitted constants without a publication, predict its rows.

This is the honest accuracy figure for a publication the estimator has not seen. In-sample errors (the
committed constants on the same rows they were fitted on) flatter the model; LOSO does not.

Inference, on the case file `make calibrate` fitted: its stored cold folds (folds.py), each exactly that fit from the
research start without the publication. On any other file (another or a changed one; a cold fold takes ~100 s per
source on one core), each fold is refitted here instead: the coordinate search of `calibrate_inference.fit`,
warm-started from the committed constants for LOSO_INFERENCE_ROUNDS rounds (the cold fit's step schedule from
×1.125 down to ×1.016) on the other publications, each publication weighted equally. The warm start carries memory of
the held-out source (which of the near-equal valleys the fit sits in), so these figures are optimistic: on the 2026-12
file, output tok/s 9.3 % LOSO median error warm against 11.0 % cold, TTFT 14.7 against 17.1 %, TPOT 9.4 against 9.2 %.
A constant that no other publication's rows respond to (the llama.cpp factors, the inter-node all-reduce
latency) would keep the value the held-out publication gave it, all of that memory: such constants restart from
the research defaults, where a cold refit without the publication leaves them (`held_out_priors`).
Training: the full `calibrate_training.fit` (cold: one descent from the research defaults) per source,
on the same pool.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from app.calibration.validation.cases import CasePrediction
from app.calibration.validation.summary import make_prediction, quantile

LOSO_INFERENCE_ROUNDS = 4  # calibrate_inference.fit's rounds from LOSO_FIRST_STEP: steps 0.125, ... 0.0156
LOSO_FIRST_STEP = 0.125


def rows_by_source(rows: list[dict]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(row.get("source", ""), []).append(index)
    return groups


# The folds a forked worker refits: (rows, setups, rounds, constants to restart per source), set before the pool
# forks (nothing is pickled).
_FOLDS: tuple[list[dict], list, int, dict[str, tuple[str, ...]]] | None = None


def sensitive_constants(setups: list, eff: Any = None) -> list[frozenset[str]]:
    """Per case, the fitted constants its prediction responds to (a 25 % change within the fit's bounds moves it);
    empty for uncovered cases."""
    from app.calibration.evidence import bounded_clip, probe_sensitivity
    from app.calibration.inference.calibrate_inference import BOUNDS
    from app.calibration.inference.validate_inference import predict_setup
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, FITTED

    cases = [None if isinstance(setup, str) else setup for setup in setups]
    return probe_sensitivity(cases, predict_setup, eff or DEFAULT_EFFICIENCY, FITTED, bounded_clip(BOUNDS))


def held_out_priors(rows: list[dict], sensitivity: list[frozenset[str]]) -> dict[str, tuple[str, ...]]:
    """Per publication, the fitted constants only its own rows respond to: held out, nothing else identifies them."""
    from app.scoring.efficiency.inference import FITTED

    out = {}
    for source in rows_by_source(rows):
        identified = set().union(*(s for row, s in zip(rows, sensitivity, strict=True) if row.get("source") != source))
        out[source] = tuple(name for name in FITTED if name not in identified)
    return out


def _refit_without(source: str) -> Any:
    from app.calibration.inference.calibrate_inference import RESEARCH_START, fit
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY

    assert _FOLDS is not None
    rows, setups, rounds, restart = _FOLDS
    train = [
        (rows[i], s) for i, s in enumerate(setups) if rows[i].get("source", "") != source and not isinstance(s, str)
    ]
    # warm start from the committed (already converged) constants: one short cycle; what only the held-out
    # publication identifies starts (and, unidentified, stays) at the research defaults
    start = replace(DEFAULT_EFFICIENCY, **{name: getattr(RESEARCH_START, name) for name in restart.get(source, ())})
    return fit(train, start, rounds=rounds, cycles=1, first_step=LOSO_FIRST_STEP) if train else start


def refit_per_source(
    sources: list[str], workers: int | None, refit: Callable[[str], Any] = _refit_without
) -> dict[str, Any]:
    """One refit per held-out source; independent, so they run on `workers` forked processes (None: one per CPU)."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers <= 1 or len(sources) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return {source: refit(source) for source in sources}
    with multiprocessing.get_context("fork").Pool(min(workers, len(sources))) as pool:
        return dict(zip(sources, pool.map(refit, sources), strict=True))


def loso_inference(
    rows: list[dict],
    gpus: dict,
    models: dict,
    rounds: int = LOSO_INFERENCE_ROUNDS,
    workers: int | None = None,
    setups: list | None = None,
    sensitivity: list[frozenset[str]] | None = None,
    folds: dict[str, Any] | None = None,
) -> list:
    """One held-out prediction per row, in row order (uncovered rows keep their reason). `folds`: the constants
    to predict each source with (folds.stored_folds: the cold folds of `make calibrate`); without them each fold is
    refitted warm-started here, on `workers` processes (default: one per CPU). `setups` (the rows' `case_setup`s) and
    `sensitivity` (their `sensitive_constants`): when the caller has them already."""
    global _FOLDS
    from app.calibration.inference.case_setup import case_setup
    from app.calibration.inference.validate_inference import predict_setup

    if setups is None:
        setups = [case_setup(row, gpus, models) for row in rows]
    out: list[CasePrediction | None] = [None] * len(rows)
    groups = rows_by_source(rows)
    fitted, how = folds or {}, "cold fold of make calibrate"
    if set(fitted) != set(groups):
        if sensitivity is None:
            sensitivity = sensitive_constants(setups)
        _FOLDS = (rows, setups, rounds, held_out_priors(rows, sensitivity))
        try:
            fitted = refit_per_source(list(groups), workers)
        finally:
            _FOLDS = None
        how = "refit warm-started from the committed constants"
    for source, indices in groups.items():
        eff = fitted[source]
        for i in indices:
            setup = setups[i]
            if isinstance(setup, str):
                out[i] = make_prediction(rows[i], None, setup)
                continue
            value = predict_setup(setup, eff)
            reason = f"LOSO without {source} ({how})"
            if value is None:
                reason = "no batch meets the latency limits in the model"
            out[i] = make_prediction(rows[i], value, reason)
    return [p for p in out if p is not None]


# The training folds a forked worker refits: (rows, gpus, models), set before the pool forks.
_TRAINING_FOLDS: tuple[list[dict], dict, dict] | None = None


def _refit_training_without(source: str) -> Any:
    from app.calibration.training.calibrate_training import fit, fit_cases

    assert _TRAINING_FOLDS is not None
    rows, gpus, models = _TRAINING_FOLDS
    return fit(fit_cases([row for row in rows if row.get("source", "") != source], gpus, models))


def loso_training(rows: list[dict], gpus: dict, models: dict, workers: int | None = None) -> list:
    """One held-out prediction per row, in row order: constants refitted without the row's source. The refits
    run on `workers` processes (default: one per CPU)."""
    global _TRAINING_FOLDS
    from app.calibration.training.validate_training import predict_training_case

    groups = rows_by_source(rows)
    _TRAINING_FOLDS = (rows, gpus, models)
    try:
        fitted = refit_per_source(list(groups), workers, _refit_training_without)
    finally:
        _TRAINING_FOLDS = None
    out: list[CasePrediction | None] = [None] * len(rows)
    for source, indices in groups.items():
        for i in indices:
            out[i] = predict_training_case(rows[i], gpus, models, fitted[source])
    return [p for p in out if p is not None]


def _publication_stats(predictions: list[CasePrediction]) -> dict:
    """Per-publication median |error|, share within ±25 % and signed median of covered rows."""
    errors = [p.pct_error for p in predictions if p.covered and p.pct_error is not None]
    absolute = [abs(e) for e in errors]
    return {
        "cases": len(predictions),
        "covered": len(errors),
        "median_abs_pct_error": quantile(absolute, 0.5),
        "within_25pct_share": (sum(a <= 25 for a in absolute) / len(absolute)) if absolute else None,
        "signed_median_pct_error": quantile(errors, 0.5),
    }


def publication_weighted(predictions: Iterable[CasePrediction]) -> dict:
    """Per metric, each publication weighted equally.

    median_abs_pct_error is the median over publications of each publication's median |error|;
    within_25pct_share is the mean over publications of each publication's share within ±25 %;
    signed_median_pct_error is the median of the publications' signed medians. `by_source` keeps the
    per-publication figures the summary is made of.
    """
    metrics: dict[str, dict[str, list[CasePrediction]]] = {}
    for p in predictions:
        metrics.setdefault(p.metric, {}).setdefault(p.source, []).append(p)
    result = {}
    for metric, sources in sorted(metrics.items()):
        per_source = {name: _publication_stats(items) for name, items in sorted(sources.items())}
        covered = [s for s in per_source.values() if s["covered"]]
        shares = [s["within_25pct_share"] for s in covered]
        result[metric] = {
            "publications": len(covered),
            "cases": sum(s["cases"] for s in per_source.values()),
            "covered": sum(s["covered"] for s in per_source.values()),
            "median_abs_pct_error": quantile([s["median_abs_pct_error"] for s in covered], 0.5),
            "within_25pct_share": sum(shares) / len(shares) if shares else None,
            "signed_median_pct_error": quantile([s["signed_median_pct_error"] for s in covered], 0.5),
            "by_source": per_source,
        }
    return result
