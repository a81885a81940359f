"""What each fitted constant rests on: the published rows, and publications, whose predictions respond to it.

A row is evidence for a constant when a 25 % change of the constant (inside the fit's bounds) moves the row's
prediction: every row responds to the TP1 streaming efficiency, only AMD rows to the ROCm factors, only
Tenstorrent's TP16 rows to the inter-node all-reduce latency. A constant that one or two publications identify
rests on little and shrinks toward its sourced prior where it has one; the report says which.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

PROBE = 0.25  # the relative change that probes a constant
THIN_PUBLICATIONS = 2  # a constant that at most this many publications move rests on thin evidence


def probe_points(base: Any, names: Sequence[str], clip: Callable[[str, float], float]) -> list[tuple[str, Any]]:
    """Per constant, `base` with that constant moved up by PROBE (down where the bound stops it)."""
    points = []
    for name in names:
        value = getattr(base, name)  # every fitted constant is positive
        up = value * (1 + PROBE)
        moved = up if clip(name, up) == up else clip(name, value / (1 + PROBE))
        points.append((name, replace(base, **{name: moved})))
    return points


def moved(value: float | None, base: float | None) -> bool:
    if value is None or base is None:
        return value != base
    return abs(value - base) > 1e-9 * max(abs(base), 1e-12)


def probe_sensitivity(
    cases: Sequence[Any | None],
    respond: Callable[[Any, Any], float | None],
    base: Any,
    names: Sequence[str],
    clip: Callable[[str, float], float],
) -> list[frozenset[str]]:
    """Per case, the constants whose probe moves `respond(case, constants)`; empty for None (uncovered) cases."""
    points = probe_points(base, names, clip)
    out: list[frozenset[str]] = []
    for case in cases:
        if case is None:
            out.append(frozenset())
            continue
        reference = respond(case, base)
        out.append(frozenset(name for name, point in points if moved(respond(case, point), reference)))
    return out


def constant_evidence(
    sources: Sequence[str], sensitivity: Sequence[frozenset[str]], base: Any, names: Sequence[str], priors: dict
) -> list[dict[str, Any]]:
    """Per fitted constant: its value, the rows and publications that respond to it, its prior (None: none) and
    whether its evidence is thin."""
    out = []
    for name in names:
        hits = [source for source, responds in zip(sources, sensitivity, strict=True) if name in responds]
        out.append(
            {
                "name": name,
                "value": getattr(base, name),
                "rows": len(hits),
                "publications": len(set(hits)),
                "prior": priors.get(name),
                "thin": len(set(hits)) <= THIN_PUBLICATIONS,
            }
        )
    return out


def bounded_clip(bounds: dict[str, tuple[float, float]]) -> Callable[[str, float], float]:
    """A clip to each constant's (low, high) bounds."""

    def clip(name: str, value: float) -> float:
        low, high = bounds[name]
        return min(max(value, low), high)

    return clip


def inference_evidence(rows: Sequence[dict], sensitivity: Sequence[frozenset[str]]) -> list[dict[str, Any]]:
    """The inference fit's constants against the rows' sensitivities (`loso.sensitive_constants`)."""
    from app.calibration.inference.calibrate_inference import PRIORS
    from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, FITTED

    priors = {name: prior for name, (prior, _) in PRIORS.items()}
    sources = [row.get("source", "") for row in rows]
    return constant_evidence(sources, sensitivity, DEFAULT_EFFICIENCY, FITTED, priors)


def training_evidence(rows: Sequence[dict], gpus: dict, models: dict) -> list[dict[str, Any]]:
    """The training fit's constants against the rows the fit uses (tokens/s rows it can price)."""
    from app.calibration.training.calibrate_training import PRIOR_PREFIXES, START, _clip, case_error, fit_cases
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY, FITTED

    cases = fit_cases(list(rows), gpus, models)
    sensitivity = probe_sensitivity(cases, case_error, DEFAULT_TRAINING_EFFICIENCY, FITTED, _clip)
    priors = {name: value for name, value in START.items() if name.startswith(PRIOR_PREFIXES)}
    sources = [case[9] for case in cases]
    return constant_evidence(sources, sensitivity, DEFAULT_TRAINING_EFFICIENCY, FITTED, priors)


TABLE_PATH = Path(__file__).resolve().parents[1] / "scoring" / "efficiency" / "constant_evidence.py"


def evidence_table_source(evidence: Sequence[dict[str, Any]], validation_file: str) -> str:
    """The text of app/scoring/efficiency/constant_evidence.py: each fitted inference constant's rows, publications
    and thinness, as `make accuracy` found them, so that an estimate's terms can say what each constant rests on."""
    lines = [
        '"""Generated by `make accuracy` (app/cli/accuracy/commands.py); do not edit by hand.',
        "",
        "Fitted inference constant -> (validation rows, publications, thin): the published rows, and publications,",
        "whose prediction a 25% change of the constant moves (app/calibration/evidence.py); thin: two publications or",
        f"fewer. The same figures as /methodology's Evidence column. Source: shared/validation/{validation_file}.",
        '"""',
        "",
        "INFERENCE_EVIDENCE: dict[str, tuple[int, int, bool]] = {",
    ]
    for item in sorted(evidence, key=lambda item: item["name"]):
        lines.append(f'    "{item["name"]}": ({int(item["rows"])}, {int(item["publications"])}, {bool(item["thin"])}),')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_evidence_table(evidence: Sequence[dict[str, Any]], validation_file: str, path: Path = TABLE_PATH) -> None:
    path.write_text(evidence_table_source(evidence, validation_file), encoding="utf-8")
