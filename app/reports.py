"""Text tables for the command line and docs/ACCURACY.md: validation summaries and rankings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SUMMARY_COLUMNS = ("cases", "covered", "median_abs_pct_error", "p90_abs_pct_error", "within_25pct_share",
                   "signed_median_pct_error")
HEADERS = ("group", "cases", "covered", "median |err| %", "p90 |err| %", "within ±25 %", "bias (signed median) %")


def _cell(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 10 else f"{value:.{digits}f}"
    return str(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], markdown: bool = False) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in cells])


def _summary_row(name: str, stats: dict[str, Any]) -> list[Any]:
    share = stats.get("within_25pct_share")
    return [name, stats["cases"], stats["covered"], stats.get("median_abs_pct_error"),
            stats.get("p90_abs_pct_error"), None if share is None else share * 100, stats.get("signed_median_pct_error")]


def summary_tables(summary: dict[str, Any], markdown: bool = False) -> str:
    parts = [table(HEADERS, [_summary_row("all rows", summary)], markdown)]
    for title, key in (("Per metric", "by_metric"), ("Per source", "by_source"), ("Per GPU", "by_gpu")):
        rows = [_summary_row(name, stats) for name, stats in summary.get(key, {}).items()]
        parts.append(f"{title}\n\n{table(HEADERS, rows, markdown)}" if markdown else f"{title}:\n{table(HEADERS, rows)}")
    return "\n\n".join(parts)


def case_table(cases: Sequence[dict[str, Any]]) -> str:
    rows = [[c["case_id"], c["metric"], c.get("gpu", ""), c["measured"], c["predicted"], c["pct_error"],
             "" if c["covered"] else c["reason"]] for c in cases]
    return table(("case", "metric", "gpu", "measured", "predicted", "error %", "not covered because"), rows)


def ranking_table(payload: dict[str, Any], limit: int) -> str:
    inference = payload["phase"] == "inference"
    rows = []
    for i, o in enumerate([o for o in payload["options"] if o["feasible"]][:limit], start=1):
        common = [i, f"{o['gpu_count']}×{o['gpu_id']}", o["provider_name"], o["price_type"], o["usd_per_gpu_hour"]]
        if inference:
            rows.append([*common, o["usd_per_million_output_tokens"], o["ttft_ms"], o["tpot_ms"], o["batch"],
                         o["output_tokens_per_s"], "close" if o["close_call"] else ""])
        else:
            rows.append([*common, o["usd_per_step"], o["step_time_s"], o["tokens_per_s_per_gpu"], o["total_hours"],
                         o["total_usd"], "close" if o["close_call"] else ""])
    head = ["#", "config", "provider", "price type", "$/GPU-h"]
    head += (["$/M out tok", "TTFT ms", "TPOT ms", "batch", "tok/s", ""] if inference
             else ["$/step", "step s", "tok/s/GPU", "total h", "total $", ""])
    return table(head, rows)
