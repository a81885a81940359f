"""Text tables for the command line and docs/ACCURACY.md: validation summaries and rankings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.calibration.evidence import THIN_PUBLICATIONS
from app.calibration.validation.targets import flagged_publications
from app.scoring.explain import duration_text, shown_as_close_call
from app.scoring.inference.ranking.options import RANK_HEADERS, RANK_METRIC_FIELDS

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


def _cell(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 10 else f"{value:.{digits}f}"
    return str(value)


def _money(value: float | None, digits: int) -> str:
    """Dollars to the digits the pages show them with (a ranking's prices line up and do not lose cents)."""
    return "–" if value is None else f"{value:,.{digits}f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], markdown: bool = False) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in cells])


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
EVIDENCE_HEADERS = ("constant", "fitted value", "rows", "publications", "sourced prior", "evidence")


def evidence_word(item: dict[str, Any]) -> str:
    """'thin, shrunk toward its prior', 'thin', or '–'."""
    if not item.get("thin"):
        return "–"
    return "thin, shrunk toward its prior" if item.get("prior") is not None else "thin"


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
            "built without the measurement's publication, as the next publication meets it)"
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
        [e["name"], e["value"], e["rows"], e["publications"], e.get("prior"), evidence_word(e)]
        for e in summary.get("evidence", [])
    ]
    if evidence:
        title = (
            "What each fitted constant rests on (rows and publications whose prediction a 25 % change of it moves; "
            f"thin: {THIN_PUBLICATIONS} publications or fewer)"
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
            "" if c["covered"] else c["reason"],
        ]
        for c in cases
    ]
    headers = ("case", "metric", "gpu", "measured", "predicted", "error %", "LOSO error %", "not covered because")
    return table(headers, rows)


def infeasible_reasons(payload: dict[str, Any], limit: int) -> str:
    """Why the configurations that cannot run the workload cannot, one line per (GPU, count, reason), as the page's
    list gives them: what a ranking with nothing feasible has to say."""
    seen: dict[tuple[str, int, str], None] = {}
    for o in payload["options"]:
        if not o["feasible"]:
            seen.setdefault((o["gpu_id"], o["gpu_count"], o["reason"]), None)
    lines = [f"{count}×{gpu}: {reason}" for gpu, count, reason in list(seen)[:limit]]
    more = len(seen) - len(lines)
    return "\n".join(lines + ([f"… and {more} more (--limit)"] if more > 0 else []))


def token_flags_text(quote: dict[str, Any]) -> str:
    """A per-token price's labels as the CLI prints them: `unverified`, `availability unconfirmed`, `disputed (the
    other figure $0.74/$0.90; priced at the higher)`."""
    said = []
    for flag in quote.get("flags") or ():
        if flag == "disputed" and quote.get("disputed_input_usd_per_mtok") is not None:
            other = f"${quote['disputed_input_usd_per_mtok']:g}/${quote['disputed_output_usd_per_mtok']:g}"
            listed = f"${quote['listed_input_usd_per_mtok']:g}/${quote['listed_output_usd_per_mtok']:g}"
            said.append(f"disputed: listed {listed}, other source {other}; priced at the higher")
        else:
            said.append(flag.replace("_", " "))
    return ", ".join(said)


def serverless_job_line(quotes: list[dict[str, Any]], left_out: list[dict[str, Any]] | None = None) -> str:
    """The batch job through the cheapest per-token APIs, as the page words it: the compared (current, verified)
    prices, then the cheaper listed ones left out with their labels."""

    def each(q: dict[str, Any]) -> str:
        flags = f" [{token_flags_text(q)}]" if q.get("flags") else ""
        substitute = f" (for {q['model_name']}, a substitute)" if q["substitute"] else ""
        return f"{q['provider_name']} ${q['job_usd']:,.2f}{flags}{substitute}"

    line = (
        f"the same job through a per-token API (list prices): {', '.join(each(q) for q in quotes)}"
        if quotes
        else "the same job through a per-token API: no current, verified per-token price"
    )
    if left_out:
        line += f"; left out, though cheaper: {', '.join(each(q) for q in left_out)}"
    return line


def _close(option: dict[str, Any], rank: int) -> bool:
    return shown_as_close_call(bool(option["close_call"]), rank)


def _flags(option: dict[str, Any], rank: int) -> str:
    """An inference row's flags: over the latency limits (ranked after the rows that meet them), a close call."""
    flags = (("OVER LIMITS", option.get("over_limits")), ("close", _close(option, rank)))
    return " ".join(flag for flag, on in flags if on)


def layout_cell(option: dict[str, Any], inference: bool) -> str:
    """A row's parallel layout, as the page's count cell says it: `TP8 PP2, 2 nodes`, `TP1, 4 per 4-GPU instance`,
    `TP4 FSDP ×8, no recompute, 4 nodes` (nodes: physical ones, several inside one NVL72 rack's NVLink domain)."""
    o = option
    if inference:
        text = f"TP{o['tensor_parallel']}" + (f" PP{o['pipeline_parallel']}" if o["pipeline_parallel"] > 1 else "")
        text += (" DP-attn" if o.get("attention_parallel") == "dp" else "") + (
            " EP" if o.get("expert_parallel") == "ep" else ""
        )
    else:
        text = o["layout"]
    if o.get("nodes", 1) > 1:
        text += f", {o['nodes']} nodes"
    if o.get("copies_per_instance", 1) > 1:
        text += f", {o['copies_per_instance']} per {o['instance_gpus']}-GPU instance"
    return text


def ranking_table(payload: dict[str, Any], limit: int) -> str:
    """The feasible options as a text table, in the payload's order; # is each one's rank (a sorted payload's
    options carry it)."""
    inference = payload["phase"] == "inference"
    job = inference and bool(payload["workload"].get("job_requests"))
    rank_by: str = payload["rank_by"] if payload.get("rank_by") in RANK_METRIC_FIELDS else "output_tokens"
    rows = []
    feasible = [o for o in payload["options"] if o["feasible"]][:limit]
    for position, o in enumerate(feasible, start=1):
        i = o.get("rank", position)
        terms = (
            o["price_type"]
            + (f" ({'; '.join(o['price_caveats'])})" if o.get("price_caveats") else "")
            + (" interruptible" if o.get("interruptible") else "")
            + (" STALE" if o.get("stale") else "")
        )
        config = f"{o['gpu_count']}×{o['gpu_id']}"
        common = [i, config, layout_cell(o, inference), o["provider_name"], terms, _money(o["usd_per_gpu_hour"], 2)]
        if inference:
            rows.append(
                [
                    *common,
                    _money(o[RANK_METRIC_FIELDS[rank_by]], 0 if rank_by == "fleet" else 3),
                    *([o["replicas"], _money(o["usd_per_million_output_tokens"], 3)] if rank_by == "fleet" else []),
                    f"{o['ttft_mean_ms']:.0f} ({o['ttft_p99_ms']:.0f})",
                    f"{o['tpot_mean_ms']:.1f} ({o['tpot_p99_ms']:.1f})",
                    o["batch"],
                    o["output_tokens_per_s"],
                    *([o["replicas"], duration_text(o["job_hours"] * 3600), _money(o["job_usd"], 2)] if job else []),
                    _flags(o, i),
                ]
            )
        else:
            rows.append(
                [
                    *common,
                    _money(o["usd_per_step"], 4),
                    o["step_time_s"],
                    o["tokens_per_s_per_gpu"],
                    o["total_hours"],
                    o.get("billed_hours"),
                    _money(o["total_usd"], 0),
                    " ".join(f for f, on in (("close", _close(o, i)), ("NODES?", o.get("cluster_caveat"))) if on),
                ]
            )
    head = ["#", "config", "layout", "provider", "price terms", "$/GPU-h"]
    head += (
        [
            RANK_HEADERS[rank_by],
            *(["replicas", "$/M out tok"] if rank_by == "fleet" else []),
            "TTFT ms mean (p99)",
            "TPOT ms mean (p99)",
            "batch",
            "tok/s",
        ]
        + [*(["replicas", "job time", "job $"] if job else []), ""]
        if inference
        else ["$/step", "step s", "tok/s/GPU", "total h", "billed h", "total $", ""]
    )
    return table(head, rows)


def training_row_notes(payload: dict[str, Any], limit: int) -> str:
    """What the training table's rows rest on beyond their figures, each said once with the ranks it applies to:
    `#1, #3: billed 730 h = max(29.8 h of use, 1-month minimum, ...)`, `#1: NODES? 16 nodes of 8 GPUs: ...`."""
    ranks: dict[str, list[str]] = {}
    feasible = [o for o in payload["options"] if o["feasible"]][:limit]
    for position, o in enumerate(feasible, start=1):
        for text in (o.get("billing_note"), o.get("cluster_caveat") and f"NODES? {o['cluster_caveat']}"):
            if text:
                ranks.setdefault(text, []).append(f"#{o.get('rank', position)}")
    return "\n".join(f"{', '.join(where)}: {text}" for text, where in ranks.items())
