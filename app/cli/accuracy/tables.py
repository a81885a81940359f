"""Text tables for docs/ACCURACY.md and `gpumatch validate`: validation summaries, LOSO beside in-sample
headlines, bands, per-source and per-group errors, calibration targets and evidence, and the per-case table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.calibration.evidence import THIN_PUBLICATIONS
from app.calibration.validation.targets import flagged_publications
from app.cli.tables.writer import table

SUMMARY_COLUMNS = (
    "cases",
    "covered",
    "median_abs_pct_error",
    "p90_abs_pct_error",
    "within_25pct_share",
    "signed_median_pct_error",
)


def accuracy_header() -> str:
    """docs/ACCURACY.md's opening: how the figures are made, and the history of what changed them (prose kept
    beside this module; `make accuracy` puts the tables after it)."""
    return Path(__file__).with_name("accuracy_header.md").read_text(encoding="utf-8")


HEADERS = (
    "group",
    "cases",
    "covered",
    "median abs error %",
    "p90 abs error %",
    "within ±25 %",
    "bias (signed median) %",
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _summary_row(name: str, stats: dict[str, Any]) -> list[Any]:
    share = stats.get("within_25pct_share")
    return [
        name,
        stats["cases"],
        stats["covered"],
        _pct(stats.get("median_abs_pct_error")),
        _pct(stats.get("p90_abs_pct_error")),
        _pct(None if share is None else share * 100),
        _pct(stats.get("signed_median_pct_error")),
    ]


def summary_tables(summary: dict[str, Any], markdown: bool = False) -> str:
    parts = [table(HEADERS, [_summary_row("all rows", summary)], markdown)]
    for title, key in (("Per metric", "by_metric"), ("Per source", "by_source"), ("Per GPU", "by_gpu")):
        rows = [_summary_row(name, stats) for name, stats in summary.get(key, {}).items()]
        parts.append(
            f"{title}\n\n{table(HEADERS, rows, markdown)}" if markdown else f"{title}:\n{table(HEADERS, rows)}"
        )
    return "\n\n".join(parts)


HEADLINE_HEADERS = (
    "metric",
    "publications",
    "covered",
    "LOSO median abs error %",
    "LOSO within ±25 %",
    "LOSO bias %",
    "in-sample median abs error %",
    "in-sample within ±25 %",
)
BAND_HEADERS = (
    "metric",
    "LOSO rows",
    "inside, band held out %",
    "per publication, band held out %",
    "inside, band and margin held out %",
    "per publication, band and margin held out %",
    "inside, around LOSO %",
    "per publication, LOSO %",
    "rows",
    "inside, around in-sample %",
)
SOURCE_HEADERS = (
    "source",
    "covered",
    "LOSO median abs error %",
    "LOSO within ±25 %",
    "LOSO bias %",
    "in-sample median abs error %",
    "in-sample bias %",
    "flagged",
)
TARGET_HEADERS = ("target", "measured", "met")
EVIDENCE_HEADERS = ("constant", "fitted value", "rows", "publications", "dates", "sourced prior", "evidence")


def evidence_word(item: dict[str, Any]) -> str:
    """'thin, shrunk toward its prior', 'thin', or '–'."""
    if not item.get("thin"):
        return "–"
    return "thin, shrunk toward its prior" if item.get("prior") is not None else "thin"


def date_range(item: dict[str, Any]) -> str:
    """'2024-08 to 2024-11': the dates of the rows a constant rests on; one date alone; '–' without any."""
    first, last = item.get("first_date"), item.get("last_date")
    if not first:
        return "–"
    return first if first == last else f"{first} to {last}"


GROUP_HEADERS = (
    "metric",
    "engine / framework",
    "vendor",
    "LOSO rows",
    "LOSO bias %",
    "LOSO median abs error %",
    "flagged",
)


def _share(value: float | None) -> str:
    return _pct(None if value is None else value * 100)


def _flag(flagged: bool, markdown: bool) -> str:
    return ("**yes**" if markdown else "yes") if flagged else ""


def _mark(met: bool, markdown: bool) -> str:
    return "yes" if met else ("**no**" if markdown else "NO")


def headline_tables(summary: dict[str, Any], markdown: bool = False) -> str:
    """LOSO beside in-sample, per metric (publication-weighted) and per metric × source."""
    headline = summary.get("headline", {})
    held, fitted = headline.get("loso", {}), headline.get("in_sample", {})
    rows = []
    for metric, stats in fitted.items():
        loso = held.get(metric, {})
        rows.append(
            [
                metric,
                stats["publications"],
                stats["covered"],
                _pct(loso.get("median_abs_pct_error")),
                _share(loso.get("within_25pct_share")),
                _pct(loso.get("signed_median_pct_error")),
                _pct(stats.get("median_abs_pct_error")),
                _share(stats.get("within_25pct_share")),
            ]
        )
    title = "Headline (each publication weighted equally)"
    if summary.get("loso_method"):
        title += f"; LOSO folds: {summary['loso_method']}"
    parts = [
        f"{title}\n\n{table(HEADLINE_HEADERS, rows, markdown)}"
        if markdown
        else f"{title}:\n{table(HEADLINE_HEADERS, rows)}"
    ]
    checks = summary.get("targets", [])
    if checks:
        met = sum(c["met"] for c in checks)
        title = f"Targets (issue 10's done-when): {met} of {len(checks)} met"
        verdicts = [[c["target"], c["measured"], _mark(c["met"], markdown)] for c in checks]
        body = table(TARGET_HEADERS, verdicts, markdown)
        parts.insert(0, f"{title}\n\n{body}" if markdown else f"{title}:\n{body}")
    flagged_sources = {(p["metric"], p["source"]) for p in flagged_publications(summary)}
    coverage = [
        [
            metric,
            c["loso_rows"],
            _share(c.get("held_out_share")),
            _share(c.get("held_out_publication_share")),
            _share(c.get("margin_held_out_share")),
            _share(c.get("margin_held_out_publication_share")),
            _share(c["share"]),
            _share(c.get("publication_share")),
            c["rows"],
            _share(c["in_sample_share"]),
        ]
        for metric, c in summary.get("band_coverage", {}).items()
    ]
    if coverage:
        title = (
            "Band coverage (share of measurements inside the p10-p90 band; target 70-90 % with the band held out: "
            "built without the measurement's publication, as the next publication meets it; with the margin held "
            "out too, the band is also widened by a margin fitted without that publication's rows)"
        )
        body = table(BAND_HEADERS, coverage, markdown)
        parts.append(f"{title}\n\n{body}" if markdown else f"{title}:\n{body}")
    groups = [
        [
            g["metric"],
            g["stack"],
            g["vendor"],
            g["covered"],
            _pct(g["signed_median_pct_error"]),
            _pct(g["median_abs_pct_error"]),
            _flag(g["flagged"], markdown),
        ]
        for g in summary.get("loso_groups", [])
    ]
    if groups:
        title = "LOSO bias per engine (framework) × GPU vendor (flagged: ≥ 20 rows and signed median beyond ±10 %)"
        body = table(GROUP_HEADERS, groups, markdown)
        parts.append(f"{title}\n\n{body}" if markdown else f"{title}:\n{body}")
    evidence = [
        [e["name"], e["value"], e["rows"], e["publications"], date_range(e), e.get("prior"), evidence_word(e)]
        for e in summary.get("evidence", [])
    ]
    if evidence:
        title = (
            "What each fitted constant rests on (rows and publications whose prediction a 25 % change of it moves; "
            f"dates: of those rows; thin: {THIN_PUBLICATIONS} publications or fewer)"
        )
        body = table(EVIDENCE_HEADERS, evidence, markdown)
        parts.append(f"{title}\n\n{body}" if markdown else f"{title}:\n{body}")
    for metric, stats in fitted.items():
        loso_sources = held.get(metric, {}).get("by_source", {})
        source_rows = []
        for source, own in stats["by_source"].items():
            loso = loso_sources.get(source, {})
            source_rows.append(
                [
                    source,
                    own["covered"],
                    _pct(loso.get("median_abs_pct_error")),
                    _share(loso.get("within_25pct_share")),
                    _pct(loso.get("signed_median_pct_error")),
                    _pct(own.get("median_abs_pct_error")),
                    _pct(own.get("signed_median_pct_error")),
                    _flag((metric, source) in flagged_sources, markdown),
                ]
            )
        name = f"{metric} per source"
        body = table(SOURCE_HEADERS, source_rows, markdown)
        parts.append(f"{name}\n\n{body}" if markdown else f"{name}:\n{body}")
    return "\n\n".join(parts)


def case_table(cases: Sequence[dict[str, Any]]) -> str:
    rows = [
        [
            c["case_id"],
            c["metric"],
            c.get("gpu", ""),
            c["measured"],
            c["predicted"],
            c["pct_error"],
            c.get("loso_pct_error"),
            c["reason"],  # a covered row's reason is what was assumed for its empty or unknown cells
        ]
        for c in cases
    ]
    headers = (
        "case",
        "metric",
        "gpu",
        "measured",
        "predicted",
        "error %",
        "LOSO error %",
        "not covered because, or assumed",
    )
    return table(headers, rows)
