"""The accuracy targets the estimator is held to (issue 10's "done when"), checked against a validation summary.

Each check says what it asks, what the summary measured and whether it is met, so that `gpumatch validate`,
docs/ACCURACY.md and /methodology state the same verdict from the same numbers (never a hand-written claim).
"""

from __future__ import annotations

from typing import Any

from app.calibration.validation.summary import BIAS_GROUP_MIN_ROWS, BIAS_LIMIT_PCT

# LOSO median abs error per headline metric, each publication weighted equally (issue 10).
MEDIAN_LIMIT_PCT: dict[str, float] = {
    "output_tok_s_per_gpu": 15.0,
    "ttft_ms": 25.0,
    "tpot_ms": 25.0,
    "tokens_s_per_gpu": 12.0,
}
WITHIN_25_SHARE = 0.70  # inference: share of cases within ±25 % (mean of the publications' shares), per metric
PUBLICATION_MIN_ROWS = 10  # no publication with this many rows of a metric ...
PUBLICATION_LIMIT_PCT = 35.0  # ... above this LOSO median |error|
BAND_COVERAGE = (0.70, 0.90)  # p10-p90 bands, built without a publication, must contain this share of its LOSO rows
TRAINING_COVERED_SHARE = 0.95  # training rows the estimator covers


def flagged_publications(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Publications with at least PUBLICATION_MIN_ROWS covered rows of a metric whose LOSO median abs error is above
    PUBLICATION_LIMIT_PCT."""
    flagged = []
    for metric, stats in summary.get("headline", {}).get("loso", {}).items():
        for source, own in stats.get("by_source", {}).items():
            median = own.get("median_abs_pct_error")
            if own.get("covered", 0) >= PUBLICATION_MIN_ROWS and median is not None and median > PUBLICATION_LIMIT_PCT:
                flagged.append({"metric": metric, "source": source, "covered": own["covered"], "median": median})
    return flagged


def _check(target: str, measured: str, met: bool) -> dict[str, Any]:
    return {"target": target, "measured": measured, "met": met}


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} %"


def target_checks(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target that applies to this summary (inference or training), with its measurement; [] without LOSO."""
    loso = summary.get("headline", {}).get("loso")
    if not loso:
        return []
    checks = []
    headline = [metric for metric in MEDIAN_LIMIT_PCT if metric in loso]
    for metric in headline:
        median = loso[metric].get("median_abs_pct_error")
        limit = MEDIAN_LIMIT_PCT[metric]
        met = median is not None and median <= limit
        checks.append(_check(f"{metric}: LOSO median abs error ≤ {limit:g} %", _pct(median), met))
    training = "tokens_s_per_gpu" in loso
    if not training:
        for metric in headline:
            share = loso[metric].get("within_25pct_share")
            checks.append(
                _check(
                    f"{metric}: LOSO within ±25 % ≥ {WITHIN_25_SHARE * 100:g} %",
                    _pct(None if share is None else share * 100),
                    share is not None and share >= WITHIN_25_SHARE,
                )
            )
    else:
        stats = summary.get("by_metric", {}).get("tokens_s_per_gpu", {})
        cases, covered = stats.get("cases", 0), stats.get("covered", 0)
        share = covered / cases if cases else 0.0
        checks.append(
            _check(
                f"tokens_s_per_gpu: rows covered ≥ {TRAINING_COVERED_SHARE * 100:g} %",
                f"{share * 100:.1f} % ({covered} of {cases})",
                share >= TRAINING_COVERED_SHARE,
            )
        )
    publications = flagged_publications(summary)
    named = ", ".join(f"{p['source']} {p['metric']} {p['median']:.0f} %" for p in publications) or "none"
    checks.append(
        _check(
            f"no publication with ≥ {PUBLICATION_MIN_ROWS} rows above {PUBLICATION_LIMIT_PCT:g} % LOSO median",
            named,
            not publications,
        )
    )
    groups = [g for g in summary.get("loso_groups", []) if g.get("flagged")]
    named = ", ".join(f"{g['metric']} {g['stack']}×{g['vendor']} {g['signed_median_pct_error']:+.0f} %" for g in groups)
    checks.append(
        _check(
            f"no engine × vendor group with ≥ {BIAS_GROUP_MIN_ROWS} rows biased beyond ±{BIAS_LIMIT_PCT:g} % (LOSO)",
            named or "none",
            not groups,
        )
    )
    low, high = BAND_COVERAGE
    for metric in headline:
        band = summary.get("band_coverage", {}).get(metric, {})
        share, per_publication = band.get("held_out_share"), band.get("held_out_publication_share")
        measured = _pct(None if share is None else share * 100)
        if share is not None and per_publication is not None:
            measured += f" (each publication weighted equally: {per_publication * 100:.1f} %)"
        checks.append(
            _check(
                f"{metric}: p10-p90 band, built without the publication, holds {low * 100:g}-{high * 100:g} % of "
                "its LOSO measurements (per row and per publication)",
                measured,
                share is not None
                and per_publication is not None
                and low <= share <= high
                and low <= per_publication <= high,
            )
        )
    return checks
