"""What each fitted constant rests on: the published rows, and publications, whose predictions respond to it.

A row is evidence for a constant when a 25 % change of the constant (inside the fit's bounds) moves the row's
prediction: every row responds to the TP1 streaming efficiency, only AMD rows to the ROCm factors, only
Tenstorrent's TP16 rows to the inter-node all-reduce latency. A constant that one or two publications identify
rests on little and shrinks toward its sourced prior where it has one; the report says which.
"""

from __future__ import annotations

import json
import re
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


# An engine's version as the validation notes name it ("vLLM v0.6.1 ROCm build", "vLLM 0.4.3+rocm614", "SGLang
# v0.5.7", "vLLM ~v0.19.1", "ROCm 6.1.2"), TensorRT-LLM's doc version ("doc date approximate (~2025-02 (v0.17))")
# and a NIM container's ("NIM ... container version 1.8.0").
_NAMED_VERSION = re.compile(r"\b(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp|ROCm)\s+~?v?(\d+(?:\.\d+)+)")
_DOC_VERSION = re.compile(r"doc date approximate \(~[\d-]+ \(v(\d+(?:\.\d+)+)\)\)")
_NIM_VERSION = re.compile(r"NIM\b.*?container version (\d+(?:\.\d+)+)")
# The engine column's value -> the name its notes give it; a row's own engine's versions are its software (a note
# that names another engine names the one it was compared with), and on AMD its ROCm's.
_ENGINE_NAMES = {
    "vllm": ("vLLM",),
    "sglang": ("SGLang",),
    "trtllm": ("TensorRT-LLM", "TRT-LLM"),
    "llamacpp": ("llama.cpp",),
}


def software_versions(row: dict) -> tuple[str, ...]:
    """The engine (and ROCm) versions a validation row's notes name for its own engine: ("vLLM 0.4.3", "ROCm
    6.1.2"); () where they name none."""
    notes, engine = row.get("notes") or "", row.get("engine") or ""
    own = _ENGINE_NAMES.get(engine, ())
    found = [
        f"{'TensorRT-LLM' if name == 'TRT-LLM' else name} {version}"
        for name, version in _NAMED_VERSION.findall(notes)
        if name in own or name == "ROCm"
    ]
    if engine == "trtllm":
        found += [f"TensorRT-LLM {version}" for version in _DOC_VERSION.findall(notes)]
    if engine == "other":
        found += [f"NIM {version}" for version in _NIM_VERSION.findall(notes)]
    return tuple(dict.fromkeys(found))


def publication_eras(
    hits: Sequence[tuple[str, str, tuple[str, ...]]],
) -> list[list[Any]]:
    """Per publication among `hits` ((source, date, software) of each row that moves a constant), newest first:
    [source, first date, last date, [software versions its rows name]]."""
    by_source: dict[str, tuple[list[str], dict[str, None]]] = {}
    for source, date, software in hits:
        dates, names = by_source.setdefault(source, ([], {}))
        dates += [date] if date else []
        names.update(dict.fromkeys(software))
    eras = [
        [source, min(dates, default=""), max(dates, default=""), list(names)]
        for source, (dates, names) in by_source.items()
    ]
    return sorted(eras, key=lambda era: (era[2], era[0]), reverse=True)


def constant_evidence(
    sources: Sequence[str],
    sensitivity: Sequence[frozenset[str]],
    base: Any,
    names: Sequence[str],
    priors: dict,
    eras: Sequence[tuple[str, tuple[str, ...]]] | None = None,
) -> list[dict[str, Any]]:
    """Per fitted constant: its value, the rows and publications that respond to it, its prior (None: none), whether
    its evidence is thin, and (with `eras`, each row's (date, software versions)) the dates its rows span
    (first_date, last_date: "2024-08", "2024-11") and each publication's era (`publication_eras`)."""
    eras = eras or [("", ())] * len(sources)
    out = []
    for name in names:
        hits = [
            (source, date, software)
            for source, responds, (date, software) in zip(sources, sensitivity, eras, strict=True)
            if name in responds
        ]
        dates = [date for _, date, _ in hits if date]
        out.append(
            {
                "name": name,
                "value": getattr(base, name),
                "rows": len(hits),
                "publications": len({source for source, _, _ in hits}),
                "prior": priors.get(name),
                "thin": len({source for source, _, _ in hits}) <= THIN_PUBLICATIONS,
                "first_date": min(dates, default=None),
                "last_date": max(dates, default=None),
                "publication_eras": publication_eras(hits),
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
    eras = [(row.get("date") or "", software_versions(row)) for row in rows]
    return constant_evidence(sources, sensitivity, DEFAULT_EFFICIENCY, FITTED, priors, eras)


def training_evidence(rows: Sequence[dict], gpus: dict, models: dict) -> list[dict[str, Any]]:
    """The training fit's constants against the rows the fit uses (tokens/s rows it can price)."""
    from app.calibration.training.calibrate_training import PRIOR_PREFIXES, START, _clip, case_error, fit_cases
    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY, FITTED

    cases = fit_cases(list(rows), gpus, models)
    sensitivity = probe_sensitivity(cases, case_error, DEFAULT_TRAINING_EFFICIENCY, FITTED, _clip)
    priors = {name: value for name, value in START.items() if name.startswith(PRIOR_PREFIXES)}
    sources = [case[9] for case in cases]
    dates_by_source: dict[str, list[str]] = {}
    for row in rows:  # a case keeps its row's source, not its date: a publication's rows span its dates
        dates_by_source.setdefault(row.get("source", ""), []).extend([row["date"]] if row.get("date") else [])
    eras = [(max(dates_by_source.get(source, []), default=""), ()) for source in sources]
    return constant_evidence(sources, sensitivity, DEFAULT_TRAINING_EFFICIENCY, FITTED, priors, eras)


TABLE_PATH = Path(__file__).resolve().parents[1] / "scoring" / "efficiency" / "constant_evidence.py"


def evidence_table_source(evidence: Sequence[dict[str, Any]], validation_file: str) -> str:
    """The text of app/scoring/efficiency/constant_evidence.py: each fitted inference constant's rows, publications
    and thinness, and each software constant's publications with their dates and the builds their notes name, as
    `make accuracy` found them, so that an estimate's terms can say what each constant rests on, and how old."""
    from app.scoring.efficiency.inference import SOFTWARE_CONSTANTS

    lines = [
        '"""Generated by `make accuracy` (app/cli/accuracy/commands.py); do not edit by hand.',
        "",
        "Fitted inference constant -> (validation rows, publications, thin): the published rows, and publications,",
        "whose prediction a 25% change of the constant moves (app/calibration/evidence.py); thin: two publications or",
        f"fewer. The same figures as /methodology's Evidence column. Source: shared/validation/{validation_file}.",
        "",
        "SOFTWARE_ERA: each software constant (efficiency.inference.SOFTWARE_CONSTANTS) -> its publications, newest",
        "first: (source, first date, last date, the engine and ROCm versions the rows' notes name) over those rows.",
        '"""',
        "",
        "INFERENCE_EVIDENCE: dict[str, tuple[int, int, bool]] = {",
    ]
    for item in sorted(evidence, key=lambda item: item["name"]):
        lines.append(f'    "{item["name"]}": ({int(item["rows"])}, {int(item["publications"])}, {bool(item["thin"])}),')
    lines += ["}", "", "SOFTWARE_ERA: dict[str, tuple[tuple[str, str, str, tuple[str, ...]], ...]] = {"]
    for item in sorted(evidence, key=lambda item: item["name"]):
        if item["name"] not in SOFTWARE_CONSTANTS:
            continue
        eras = [
            f'("{source}", "{first}", "{last}", ({", ".join(json.dumps(name) for name in software)}'
            + ("," if len(software) == 1 else "")
            + "))"
            for source, first, last, software in item.get("publication_eras", [])
        ]
        if len(eras) == 1:  # as ruff formats a one-element tuple: on one line
            lines.append(f'    "{item["name"]}": ({eras[0]},),')
        else:
            lines += [f'    "{item["name"]}": (', *(f"        {era}," for era in eras), "    ),"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_evidence_table(evidence: Sequence[dict[str, Any]], validation_file: str, path: Path = TABLE_PATH) -> None:
    path.write_text(evidence_table_source(evidence, validation_file), encoding="utf-8")
