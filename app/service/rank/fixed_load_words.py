"""A load one replica takes whole, in the words the results page and `gpumatch rank` both say beside replicas_url."""

from __future__ import annotations

from app.scoring.explain import significant


def load_words(scenario: str | None, concurrency: int | None, requests_per_s: float | None) -> str:
    """'12 requests/s' or '200 clients' ('' when the question has no fixed load)."""
    if scenario == "concurrency" and concurrency:
        return f"{concurrency:,} client" + ("s" if concurrency != 1 else "")
    rate = requests_per_s
    return f"{significant(rate)} request{'' if rate == 1 else 's'}/s" if rate else ""


def one_replica_sentence(load: str, scenario: str | None) -> str:
    """The page's sentence before its replicas link: each row takes the whole load, and the link spreads it."""
    spread = "clients" if scenario == "concurrency" else "traffic"
    return f"Each row is one replica taking all {load}. The same {spread} spread over replicas sized to meet the limits"
