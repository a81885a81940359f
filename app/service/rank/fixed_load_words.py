"""A load one rented instance takes whole, in the words the results page and `gpumatch rank` say beside replicas_url."""

from __future__ import annotations

from typing import Any

from app.scoring.explain import fixed, significant


def load_words(scenario: str | None, concurrency: int | None, requests_per_s: float | None) -> str:
    """'12 requests/s' or '200 clients' ('' when the question has no fixed load)."""
    if scenario == "concurrency" and concurrency:
        return f"{concurrency:,} client" + ("s" if concurrency != 1 else "")
    rate = requests_per_s
    return f"{significant(rate)} request{'' if rate == 1 else 's'}/s" if rate else ""


def one_replica_sentence(load: str, scenario: str | None) -> str:
    """The page's sentence before its replicas link: each row's rented instance takes the whole load over the copies
    it holds (estimates.spread_load), and the link spreads it over replicas sized for it."""
    spread = "clients" if scenario == "concurrency" else "traffic"
    return (
        f"Each row is one rented instance taking all {load}, spread over the copies it holds. The same {spread} "
        "spread over replicas sized to meet the limits"
    )


def _layout(point: dict[str, Any]) -> str:
    """The page's layout macro: '8×H200, TP2 × PP4', and the copies a fixed load is spread over: '…, 4 copies'."""
    piped = f" × PP{point['pipeline_parallel']}" if point["pipeline_parallel"] > 1 else ""
    copies = point.get("copies_sharing_load", 1)
    spread = f", {copies} copies" if copies > 1 else ""
    return f"{point['gpu_count']}×{point['gpu_id']}, TP{point['tensor_parallel']}{piped}{spread}"


def over_limits_sentence(over_limits: str, lowest_p99: dict[str, Any] | None, band_high: bool) -> str:
    """The page's words where even the best row misses the limits at a fixed load: what it misses, and the lowest
    p99 TTFT and TPOT any layout reaches at that load."""
    text = f"No offer meets the latency limits at this load ({over_limits}); every row is over them."
    if lowest_p99:
        ttft, tpot = lowest_p99["ttft_p99_ms"], lowest_p99["tpot_p99_ms"]
        slow = " at its band's slow end" if band_high else ""
        text += (
            f" At this load the lowest p99 TTFT any layout reaches{slow} is {fixed(ttft['value'], 0)} ms "
            f"({_layout(ttft)}), the lowest p99 TPOT {fixed(tpot['value'], 1)} ms ({_layout(tpot)})."
        )
    return text
