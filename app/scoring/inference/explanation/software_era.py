"""How old the software builds behind an estimate's engine and ROCm factors are (issue 10: "vLLM, SGLang,
TensorRT-LLM, llama.cpp and other differ by vendor and over time; ROCm builds of 2024 are not those of 2026").

The publications each software constant rests on, their dates and the builds their notes name, are
constant_evidence.SOFTWARE_ERA (written by `make accuracy`); a row priced long after its newest one says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache

from app.scoring.efficiency.constant_evidence import SOFTWARE_ERA

# A factor whose newest publication is more than this many months older than a row's price date rests on builds a
# buyer renting then will not run (ROCm and engine releases land monthly); issue 10's "ROCm builds of 2024 are not
# those of 2026".
STALE_AFTER_MONTHS = 12
# Each software constant's group, as the words name it; the constants of one group rest on the same rows.
GROUPS = {
    "amd_mbu_factor": "ROCm factors",
    "amd_mfu_factor": "ROCm factors",
    "llamacpp_mbu_factor": "llama.cpp factors",
    "llamacpp_mfu_factor": "llama.cpp factors",
    "vllm_factor": "vLLM's factor",
    "sglang_factor": "SGLang's factor",
}


def _group_eras(names: Sequence[str]) -> dict[str, list[tuple[str, str, str, tuple[str, ...]]]]:
    """Group words -> the publications (source, first date, last date, builds) behind its constants among `names`,
    newest first, each once."""
    groups: dict[str, dict[str, tuple[str, str, str, tuple[str, ...]]]] = {}
    for name in dict.fromkeys(names):
        if name in SOFTWARE_ERA:
            for era in SOFTWARE_ERA[name]:
                groups.setdefault(GROUPS[name], {}).setdefault(era[0], era)
    return {
        group: sorted(eras.values(), key=lambda era: (era[2], era[0]), reverse=True) for group, eras in groups.items()
    }


def _publication_words(era: tuple[str, str, str, tuple[str, ...]]) -> str:
    """'argonne-llm-inference-bench (2024-11: vLLM 0.6.1)'; the dates as a range where its rows span several."""
    source, first, last, builds = era
    dates = first if first == last else f"{first} to {last}"
    return f"{source} ({dates}" + (f": {', '.join(builds)})" if builds else ")")


def era_words(names: Sequence[str]) -> str:
    """'ROCm factors from mlperf-inf-v4.1 (2024-08: vLLM 0.4.3, ROCm 6.1.2) and argonne-llm-inference-bench
    (2024-11: vLLM 0.6.1)': per group of software constants among `names`, the publications it rests on, oldest
    first, with their dates and the builds their notes name; at most the three newest of a group's publications."""
    parts = []
    for group, eras in _group_eras(names).items():
        shown = [_publication_words(era) for era in reversed(eras[:3])]
        more = f" (newest three of {len(eras)})" if len(eras) > 3 else ""
        listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        parts.append(f"{group} from {listed}{more}")
    return "; ".join(parts)


def _year_month(text: str) -> tuple[int, int]:
    """'2024-11' or '2026-03-05' -> (2024, 11); a year alone ('2025') reads as its December, the latest it can be."""
    parts = text.split("-")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 12


def months_older(evidence_date: str, price_date: date) -> int:
    """Whole calendar months from an evidence date's month to the price date's."""
    year, month = _year_month(evidence_date)
    return (price_date.year - year) * 12 + price_date.month - month


def _old_groups(names: Sequence[str], reference: date) -> list[tuple[list[str], int]]:
    """Per group of software constants among `names` whose newest publication is more than STALE_AFTER_MONTHS
    older than `reference`: its constants and how many months older."""
    old = []
    for group, eras in _group_eras(names).items():
        months = months_older(max(era[2] for era in eras), reference)
        if months > STALE_AFTER_MONTHS:
            old.append(([name for name in dict.fromkeys(names) if GROUPS.get(name) == group], months))
    return old


@lru_cache(maxsize=256)  # a ranking's rows share a few (constants, price date) pairs
def stale_software_note(names: tuple[str, ...], price_date: date | None) -> str:
    """Where a group of software constants among `names` rests only on publications more than STALE_AFTER_MONTHS
    older than the row's price date: which builds, how old, and what that means for the band; '' otherwise (no
    software constant, recent evidence, or no price date to compare with)."""
    if price_date is None:
        return ""
    return "; ".join(
        f"{era_words(group)}, the newest {months} months before this price's date ({price_date.isoformat()}): newer "
        f"builds are likely faster; the band's upper edge is not evidence of {price_date.year} software"
        for group, months in _old_groups(names, price_date)
    )


# The newest publication any software constant rests on: what an estimate's terms date the others against (a term
# is the same on every offer, so it cannot compare with a price's date; the row's software_era_note does).
NEWEST_BUILD_DATE = max(era[2] for eras in SOFTWARE_ERA.values() for era in eras)


def old_builds_words(names: Sequence[str]) -> str:
    """For an estimate's terms: the groups of software constants among `names` whose builds are more than
    STALE_AFTER_MONTHS older than NEWEST_BUILD_DATE, with their publications; '' where none is."""
    year, month = _year_month(NEWEST_BUILD_DATE)
    return "; ".join(
        f"{era_words(group)}, the newest {months} months older than the newest build any engine factor rests on "
        f"({NEWEST_BUILD_DATE}): newer builds are likely faster; the band's upper edge is not evidence of them"
        for group, months in _old_groups(names, date(year, month, 1))
    )
