"""What shared/reference/token_prices.csv says about trusting a per-token price, read from its own words.

Used by scripts/build_seed_prices.py. Each doubt becomes a column of seed_data/token_prices.csv, and
`status_note` keeps the reference's words for all of them (the pages put them in each badge's title):

- `unverified`: the reference's own word UNVERIFIED (Hyperbolic's 0.12/0.30 for 8B..405B "looks like a placeholder").
- `deprecated`: the provider deprecated or retired the model (a note saying so, or a HISTORICAL row whose entry
  vanished from the maintained table: Groq's Llama/Mixtral).
- `disputed_input_usd_per_mtok` / `disputed_output_usd_per_mtok`: another source gives other figures ("Lava gateway
  docs list 0.80/2.30 - CONFLICT"), or the reference read the same provider model twice at two prices that no
  exact dates order (readings_disagree).
- `availability_unconfirmed`: the reference asks to verify that the provider still serves the model ("Cerebras has
  retired some Llama endpoints: verify"): the price is not in doubt, its availability is.
- `weak_source`: the source the figure was read from does not back it ("LiteLLM source URL points at a Llama 3.2
  90B model-garden page: weak provenance").

Read, not guessed: notes that only sound alike carry no flag. "litellm 1.72.0 had 0.90/0.90" (DeepInfra 405B) is a
reading from an older table (~mid-2025) under a dated 2026-11-05 one, a previous price, not a second source today;
"Groq Llama/Mixtral entries absent from this LiteLLM version (retired)" on Groq's gpt-oss rows speaks of other
models; "regional prices differ" (Bedrock) states the region the price is for; "no source URL in LiteLLM" is true of
every Cerebras and Hyperbolic entry, whose source_url the reference gives (the provider's pricing page). A CONFLICT
without the other figures, or a "verify" about anything but availability, stops the build: a new kind of doubt needs
a decision, not a silent drop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

# "0.80/2.30": an input/output pair per million tokens, as the reference writes the other source's figures.
FIGURE_PAIR = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)(?![\d.])")
VERIFY = re.compile(r"\bverify\b", re.IGNORECASE)
AVAILABILITY_WORDS = ("retired", "endpoint", "availab", "discontinu")


@dataclass
class Trust:
    """The doubts the reference states about one price, and its words for them."""

    unverified: bool = False
    deprecated: bool = False
    disputed: tuple[Decimal, Decimal] | None = None  # the other source's input/output $ per million tokens
    availability_unconfirmed: bool = False
    weak_source: bool = False
    said: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        named = (
            ("unverified", self.unverified),
            ("deprecated", self.deprecated),
            ("disputed", self.disputed is not None),
            ("availability_unconfirmed", self.availability_unconfirmed),
            ("weak_source", self.weak_source),
        )
        return [name for name, on in named if on]

    @property
    def status_note(self) -> str:
        return "; ".join(self.said)


def conflict_figures(part: str) -> tuple[Decimal, Decimal]:
    """The other source's input/output figures in a CONFLICT note ("Lava gateway docs list 0.80/2.30 - CONFLICT")."""
    found = FIGURE_PAIR.findall(part)
    if len(found) != 1:
        raise ValueError(f"a CONFLICT note must give the other source's input/output figures once: {part!r}")
    return Decimal(found[0][0]), Decimal(found[0][1])


def availability_doubt(part: str) -> bool:
    """A note asking to verify that the provider still serves the model. A "verify" about anything else stops
    the build (it would be a doubt the seed has no column for)."""
    if not VERIFY.search(part):
        return False
    if not any(word in part.lower() for word in AVAILABILITY_WORDS):
        raise ValueError(f"a note asks to verify something other than availability: {part!r}")
    return True


def trust_flags(ref: dict[str, str]) -> Trust:
    """The doubts a reference row states, each with the reference's words."""
    parts = [p.strip() for p in ref["notes"].split(";") if p.strip()]
    trust = Trust(unverified="UNVERIFIED" in ref["notes"] or ref["verification"].upper().startswith("UNVERIFIED"))
    if trust.unverified:
        trust.said += [p for p in parts if "UNVERIFIED" in p or "no source url" in p.lower()]
    deprecated_notes = [p for p in parts if "deprecated" in p.lower()]
    historical = "HISTORICAL" in ref["verification"] and "retired" in ref["verification"].lower()
    trust.deprecated = historical or bool(deprecated_notes)
    trust.said += deprecated_notes
    if historical:
        trust.said.append(ref["verification"].split("HISTORICAL", 1)[1].lstrip(" -"))
    for part in parts:
        if "CONFLICT" in part:
            trust.disputed = conflict_figures(part)
            trust.said.append(part)
        elif availability_doubt(part):
            trust.availability_unconfirmed = True
            trust.said.append(part)
        elif "weak provenance" in part.lower():
            trust.weak_source = True
            trust.said.append(part)
    return trust


def readings_disagree(kept: dict[str, str], other: dict[str, str]) -> bool:
    """Two readings of one provider model at different prices are a dispute unless both carry exact dates (then the
    older is a previous price): a reading from a maintained table dated "on or before" may be older or newer than
    the other, so neither figure can be taken as the current one."""
    prices = ("input_usd_per_mtok", "output_usd_per_mtok")
    if all(Decimal(kept[p]) == Decimal(other[p]) for p in prices):
        return False
    return not (kept["as_of_basis"] == other["as_of_basis"] == "exact" and kept["as_of"] != other["as_of"])
