"""Generate app/scoring/efficiency/band_table.py: p10/p90 of leave-one-source-out residuals per regime, each
publication weighted equally, widened per metric by the smallest margin that puts HELD_OUT_COVERAGE of a held-out
publication's rows inside a band built without it (each publication weighted equally) and at least HELD_OUT_ROW_FLOOR
of all held-out rows pooled.

Run: python -m app.calibration.held_out.bands ../shared/validation   (part of `make calibrate`; minutes)
The rules (regimes, thin-evidence widening) are in app/scoring/efficiency/bands.py.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path

from app.calibration.validation.summary import weighted_quantile
from app.scoring.efficiency.band_table import BAND_MARGINS
from app.scoring.efficiency.bands import (
    HELD_OUT_COVERAGE,
    HELD_OUT_ROW_FLOOR,
    MIN_BAND_ROWS,
    MIN_OWN_PUBLICATIONS,
    MIN_OWN_ROWS,
    BandTable,
    band_ratio,
    key_metric,
    multinode_key,
    parent_key,
    regime_keys,
)
from app.scoring.inference.step.context import tensor_parallel_nodes

TABLE_PATH = Path(__file__).resolve().parents[2] / "scoring" / "efficiency" / "band_table.py"


def row_regime(row: dict, gpus: dict, models: dict) -> tuple[str, ...] | None:
    """The regime keys of a case row (finest first), or None when its GPU or model is unknown."""
    gpu = gpus.get(row.get("gpu", ""))
    model = models.get(row.get("model", ""))
    if gpu is None or model is None:
        return None
    metric = row.get("metric", "")
    if "framework" in row:
        return regime_keys(
            metric, row.get("framework", ""), gpu.vendor, row.get("precision", ""), row.get("method", "")
        )
    architecture = "moe" if model.is_moe else "dense"
    return regime_keys(
        metric,
        row.get("engine") or "vllm",
        gpu.vendor,
        row.get("weight_dtype", ""),
        architecture,
        row.get("scenario", ""),
    )


def row_spans_nodes(row: dict, gpus: dict) -> bool:
    """An inference row whose stated tensor-parallel group spans nodes (TP larger than the GPU's scale-up domain;
    an empty TP is a system of replicas, as the case files' README says)."""
    gpu = gpus.get(row.get("gpu", ""))
    if gpu is None or "framework" in row:
        return False
    try:
        tp = int(row.get("tensor_parallel") or 1)
    except ValueError:
        return False
    return tensor_parallel_nodes(gpu, tp) > 1


def _ratios(rows: list[dict], cases: list[dict], gpus: dict, models: dict) -> dict[str, list[tuple[float, str]]]:
    """(measured / LOSO-predicted, source) per regime key (every level). Rows whose TP group spans nodes go to
    their own regime only: the metric-level fallback of single-node estimates never sees them."""
    groups: dict[str, list[tuple[float, str]]] = {}
    for row, case in zip(rows, cases, strict=True):
        predicted, measured = case.get("loso_predicted"), case.get("measured")
        keys = row_regime(row, gpus, models)
        if not keys or not predicted or predicted <= 0 or not measured or measured != measured:
            continue
        if row_spans_nodes(row, gpus):
            keys = (multinode_key(keys[-1]),)
        for key in keys:
            groups.setdefault(key, []).append((measured / predicted, row.get("source", "")))
    return groups


def publication_quantiles(residuals: list[tuple[float, str]]) -> tuple[float, float]:
    """P10, P90 of (ratio, source) residuals with each publication weighted equally (each of its rows 1 / its
    rows in the regime), as the fit and the LOSO figures weigh them: the band is a statement about the next
    publication, and a 600-row sweep must not set it alone."""
    rows_of: dict[str, int] = {}
    for _, source in residuals:
        rows_of[source] = rows_of.get(source, 0) + 1
    pairs = [(ratio, 1 / rows_of[source]) for ratio, source in residuals]
    return weighted_quantile(pairs, 0.1), weighted_quantile(pairs, 0.9)


def band_table(
    rows: list[dict], cases: list[dict], gpus: dict, models: dict, margins: Mapping[str, float] | None = None
) -> dict[str, tuple[float, float, int]]:
    """Regime key -> (p10, p90 of measured/predicted, rows), coarse levels first so children can widen; each
    widened by its metric's margin (a factor e^margin each way) where `margins` are given."""
    groups = _ratios(rows, cases, gpus, models)
    table: dict[str, tuple[float, float, int]] = {}
    for key in sorted(groups, key=lambda k: (k.count("|"), k)):
        residuals = groups[key]
        low, high = publication_quantiles(residuals)
        parent = parent_key(key)  # the evidence text (bands.band_source) walks the same parents
        if len(residuals) < MIN_BAND_ROWS and parent is not None and parent in table:
            p_low, p_high, _ = table[parent]
            own = len(residuals) >= MIN_OWN_ROWS and (
                len({source for _, source in residuals}) >= MIN_OWN_PUBLICATIONS
                or key == multinode_key(key_metric(key))  # its rows are in no other regime: its spread is all there is
            )
            low, high = (min(low, p_low), max(high, p_high)) if own else (p_low, p_high)
        # a band always contains its own estimate: a biased regime widens on the estimate's side
        table[key] = (min(low, 1.0), max(high, 1.0), len(residuals))
    widen = {key: math.exp((margins or {}).get(key_metric(key), 0.0)) for key in table}
    return {key: (round(low / widen[key], 3), round(high * widen[key], 3), n) for key, (low, high, n) in table.items()}


def row_band(row: dict, gpus: dict, models: dict, table: BandTable | None = None) -> tuple[float, float] | None:
    """The band (measured / predicted ratios) the product would show for the row's regime, from the committed
    table or another; None for unknown ids."""
    keys = row_regime(row, gpus, models)
    if keys is None:
        return None
    _, engine, vendor, precision, architecture = keys[0].split("|")
    try:  # inference rows only: a training row's layout is the estimator's choice, and its bands are measured
        stages = 1 if "framework" in row else int(row.get("pipeline_parallel") or 1)
    except ValueError:
        stages = 1
    metric, spans_nodes = row.get("metric", ""), row_spans_nodes(row, gpus)
    low, high, _ = band_ratio(
        metric, engine, vendor, precision, architecture, spans_nodes, stages, row.get("scenario", ""), table
    )
    return low, high


def held_out_bands(
    rows: list[dict], cases: list[dict], gpus: dict, models: dict, margins: Mapping[str, float]
) -> list[tuple[float, float] | None]:
    """Per row, the band it would get from a table built without its publication's residuals (and `margins`):
    the band the next, unseen publication meets."""
    bands: list[tuple[float, float] | None] = [None] * len(rows)
    for source in sorted({row.get("source", "") for row in rows}):
        others = [i for i, row in enumerate(rows) if row.get("source", "") != source]
        table = band_table([rows[i] for i in others], [cases[i] for i in others], gpus, models, margins)
        for i, row in enumerate(rows):
            if row.get("source", "") == source:
                bands[i] = row_band(row, gpus, models, table)
    return bands


def _held_out_ratio(case: dict) -> float | None:
    predicted, measured = case.get("loso_predicted"), case.get("measured")
    if not case.get("covered") or not predicted or predicted <= 0 or not measured or measured != measured:
        return None
    return measured / predicted


def mark_held_out_bands(
    rows: list[dict], cases: list[dict], gpus: dict, models: dict, margins: Mapping[str, float] = BAND_MARGINS
) -> None:
    """Set each case's `held_out_inside_band`: its LOSO prediction's ratio inside the band built without its
    publication, with the committed margins (None where it has no LOSO prediction)."""
    for case, band in zip(cases, held_out_bands(rows, cases, gpus, models, margins), strict=True):
        ratio = _held_out_ratio(case)
        case["held_out_inside_band"] = None if ratio is None or band is None else band[0] <= ratio <= band[1]


def mark_margin_held_out(rows: list[dict], cases: list[dict], gpus: dict, models: dict) -> None:
    """Set each case's `margin_held_out_inside_band`: inside the band built without its publication, widened by a
    margin fitted without that publication's rows too (fit_margins' rule on the other publications' held-out
    shares; a metric fewer than MIN_MARGIN_PUBLICATIONS others measure takes the widest of that fold's margins).
    The committed margins are fitted on every publication's share, the one scored included, so
    `held_out_inside_band` meets HELD_OUT_COVERAGE by construction; this is what the next publication would meet.
    The other publications' bands still hold the scored one's residuals (a band table without two publications
    per fold would cost a table per pair): the margin, not the band, is what this holds out."""
    raw = held_out_bands(rows, cases, gpus, models, {})
    held: dict[str, dict[str, list[tuple[float, tuple[float, float]]]]] = {}
    where: dict[int, tuple[str, str, float, tuple[float, float]]] = {}
    for i, (row, case, band) in enumerate(zip(rows, cases, raw, strict=True)):
        ratio = _held_out_ratio(case)
        case["margin_held_out_inside_band"] = None
        if ratio is not None and band is not None:
            metric, source = row.get("metric", ""), row.get("source", "")
            held.setdefault(metric, {}).setdefault(source, []).append((ratio, band))
            where[i] = (metric, source, ratio, band)
    sources = {source for by_source in held.values() for source in by_source}
    fold_margins: dict[str, dict[str, float]] = {}
    for source in sources:
        fitted = {
            metric: _smallest_margin({s: p for s, p in by_source.items() if s != source})
            for metric, by_source in held.items()
            if len(set(by_source) - {source}) >= MIN_MARGIN_PUBLICATIONS
        }
        widest = max(fitted.values(), default=0.0)
        fold_margins[source] = {metric: fitted.get(metric, widest) for metric in held}
    for i, (metric, source, ratio, (low, high)) in where.items():
        widen = math.exp(fold_margins[source][metric])
        cases[i]["margin_held_out_inside_band"] = low / widen <= ratio <= high * widen


MARGIN_STEP = 0.01  # natural-log units: a factor 1.01 each way
MAX_MARGIN = 1.0  # e^1 = 2.7x each way: beyond it a band says nothing a user can act on
MIN_MARGIN_PUBLICATIONS = 3  # a metric measured by fewer takes the widest margin fitted in its file


def fit_margins(rows: list[dict], cases: list[dict], gpus: dict, models: dict) -> dict[str, float]:
    """Per metric, the smallest margin at which the mean over publications of the share of each one's rows inside
    the band built without it reaches HELD_OUT_COVERAGE (each publication weighted equally, as the headline) and the
    share of all those rows pooled reaches HELD_OUT_ROW_FLOOR."""
    bands = held_out_bands(rows, cases, gpus, models, {})
    held: dict[str, dict[str, list[tuple[float, tuple[float, float]]]]] = {}
    for row, case, band in zip(rows, cases, bands, strict=True):
        ratio = _held_out_ratio(case)
        if ratio is not None and band is not None:
            held.setdefault(row.get("metric", ""), {}).setdefault(row.get("source", ""), []).append((ratio, band))
    margins: dict[str, float] = {}
    for metric, by_source in held.items():
        if len(by_source) >= MIN_MARGIN_PUBLICATIONS:
            margins[metric] = _smallest_margin(by_source)
    widest = max(margins.values(), default=0.0)
    return {metric: margins.get(metric, widest) for metric in sorted(held)}


def _smallest_margin(by_source: dict[str, list[tuple[float, tuple[float, float]]]]) -> float:
    steps = 0
    while steps * MARGIN_STEP < MAX_MARGIN:
        widen = math.exp(steps * MARGIN_STEP)
        inside = [
            sum(low / widen <= ratio <= high * widen for ratio, (low, high) in pairs) for pairs in by_source.values()
        ]
        per_publication = sum(n / len(pairs) for n, pairs in zip(inside, by_source.values(), strict=True)) / len(inside)
        per_row = sum(inside) / sum(len(pairs) for pairs in by_source.values())
        if per_publication >= HELD_OUT_COVERAGE and per_row >= HELD_OUT_ROW_FLOOR:
            break
        steps += 1
    return round(min(steps * MARGIN_STEP, MAX_MARGIN), 2)


def render(table: dict[str, tuple[float, float, int]], margins: dict[str, float], sources: list[str]) -> str:
    lines = [
        '"""Generated by `python -m app.calibration.held_out.bands` (make calibrate); do not edit by hand.',
        "",
        "Regime key -> (p10, p90 of measured / leave-one-source-out predicted, LOSO residual rows), each widened by",
        "its metric's margin: a factor e^margin each way, the smallest that puts HELD_OUT_COVERAGE of a held-out",
        "publication's rows inside the band built without it (each publication weighted equally).",
        f"Source: {', '.join(sources)} ({date.today().isoformat()}); rules in bands.py.",
        '"""',
        "",
        "BAND_MARGINS: dict[str, float] = {",
    ]
    lines += [f'    "{metric}": {margin!r},' for metric, margin in sorted(margins.items())]
    lines += ["}", "", "BAND_TABLE: dict[str, tuple[float, float, int]] = {"]
    lines += [f'    "{key}": ({low!r}, {high!r}, {rows}),' for key, (low, high, rows) in sorted(table.items())]
    return "\n".join(lines + ["}", ""])


def main(argv: list[str] | None = None) -> int:
    from app.calibration.validation.case_files import read_cases
    from app.calibration.validation.validate import validate_file
    from app.catalog.spec_files import load_gpu_specs, load_model_specs

    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "../shared/validation")
    gpus, models = load_gpu_specs(), load_model_specs()
    table: dict[str, tuple[float, float, int]] = {}
    margins: dict[str, float] = {}
    names = ["inference_cases.csv", "training_cases.csv"]
    for name in names:
        rows = read_cases(folder / name)
        cases = validate_file(folder / name, gpus, models)["cases"]
        file_margins = fit_margins(rows, cases, gpus, models)
        margins.update(file_margins)
        table.update(band_table(rows, cases, gpus, models, file_margins))
        print(f"{name}: margins {file_margins}")
    TABLE_PATH.write_text(render(table, margins, [f"shared/validation/{n}" for n in names]), encoding="utf-8")
    print(f"wrote {TABLE_PATH} ({len(table)} regimes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
