"""Per-token API prices at a traffic: each provider's quote for the model (or a comparable listed one), its month
and its labels (plans/break_even.py: where dedicated GPUs cost no more).

Pure: takes token prices and model specs; no web or database imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from app.scoring.explain import percent, usd_per_mtok
from app.scoring.pricing import token_prices as trust
from app.scoring.serving.serverless.stand_in import comparable_priced_model
from app.scoring.serving.traffic.week import (
    DAYS_PER_MONTH,
)
from app.scoring.specs import ModelSpec, TokenPrice


@dataclass(frozen=True, slots=True)
class ServerlessQuote:
    provider: str
    provider_name: str
    model_id: str
    model_name: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    usd_per_request: float
    monthly_usd: float
    as_of: date | None
    source_url: str
    substitute: bool  # priced for a comparable model (stand_in.py), not the one asked about
    lora_serving: str = "unknown"  # yes | no | unknown: the provider serves your LoRA adapter at this price
    cached_input_usd_per_mtok: float | None = None  # the provider's cached-input price (None = not published)
    prefix_cache_hit: float = 0.0  # share of prompt tokens billed at the cached-input price
    cache_note: str = ""  # how the prompt was billed when a prefix-cache share was given
    provider_model_id: str = ""  # the provider's name for the model (two entries of one model differ here)
    as_of_basis: str = ""  # exact | on_or_before | approximate ("" = not stated)
    as_of_label: str = ""  # the date as the reference gives it: 2026-11-05, ≤2026-12-01, ~2025, undated
    unverified: bool = False  # the reference flags the price UNVERIFIED (placeholder-looking)
    deprecated: bool = False  # the provider has deprecated or retired the model
    stale: bool = False  # older than the stale-after days, or undated
    flags: tuple[str, ...] = ()  # its labels (token_prices.flags): never compared, compared with a doubt, stale
    status_note: str = ""  # the reference's words for each of its flags
    comparable: bool = True  # may be the cheapest serverless price (current and verified, or stale when asked)
    # A disputed price (another source gives other figures) is priced at the higher of each: input_usd_per_mtok and
    # output_usd_per_mtok above are those; the catalog entry's own figures and the other source's are kept here.
    disputed: bool = False
    listed_input_usd_per_mtok: float | None = None  # the catalog entry's own figures (None: not disputed)
    listed_output_usd_per_mtok: float | None = None
    disputed_input_usd_per_mtok: float | None = None  # the other source's figures
    disputed_output_usd_per_mtok: float | None = None
    usd_per_request_lower: float | None = None  # a disputed price's request at the lower figure of each
    availability_unconfirmed: bool = False  # the provider may no longer serve the model (the reference: "verify")
    weak_source: bool = False  # the source the figure was read from does not back it
    substitute_reason: str = ""  # a substitute: which model stood in and why it is comparable (stand_in.py)

    @property
    def doubts(self) -> tuple[str, ...]:
        """The labels of a compared price's doubts (token_prices.DOUBTS) it carries."""
        return tuple(f for f in self.flags if f in trust.DOUBTS)


def usd_per_request(input_usd_per_mtok: float, output_usd_per_mtok: float, input_len: int, output_len: int) -> float:
    return (input_len * input_usd_per_mtok + output_len * output_usd_per_mtok) / 1e6


def cached_usd_per_request(
    price: TokenPrice, input_len: int, output_len: int, prefix_cache_hit: float
) -> tuple[float, str]:
    """A request's price when `prefix_cache_hit` of its prompt hits the provider's prompt cache: those
    tokens at the cached-input price (token_prices.csv), the rest at the input price. A provider that
    publishes no cached price bills every prompt token in full (said in the note)."""
    if prefix_cache_hit <= 0:
        return usd_per_request(price.input_usd_per_mtok, price.output_usd_per_mtok, input_len, output_len), ""
    cached = price.cached_input_usd_per_mtok
    if cached is None:
        full = usd_per_request(price.input_usd_per_mtok, price.output_usd_per_mtok, input_len, output_len)
        return full, "no cached-input price published: every prompt token billed at the input price"
    hit_tokens = input_len * prefix_cache_hit
    usd = ((input_len - hit_tokens) * price.input_usd_per_mtok + hit_tokens * cached) / 1e6
    usd += output_len * price.output_usd_per_mtok / 1e6
    note = f"{percent(prefix_cache_hit)} of the prompt at the cached-input price {usd_per_mtok(cached)}/M"
    return usd, note


def serverless_monthly_usd(requests_per_day: float, usd_per_one_request: float) -> float:
    return requests_per_day * usd_per_one_request * DAYS_PER_MONTH


def priced_at(price: TokenPrice, higher: bool = True) -> TokenPrice:
    """The price with the figures a comparison uses: the listed ones, or for a disputed price the higher of the listed
    and the other source's figure, each (token_prices.compared_figures), or with `higher=False` the lower of each.
    The cached-input price stays the listed one (no other source gives one)."""
    other_in, other_out = price.disputed_input_usd_per_mtok, price.disputed_output_usd_per_mtok
    if other_in is None or other_out is None:
        return price
    listed_in, listed_out = price.input_usd_per_mtok, price.output_usd_per_mtok
    if higher:
        high_in, high_out = trust.compared_figures(listed_in, listed_out, other_in, other_out)
        return replace(price, input_usd_per_mtok=high_in, output_usd_per_mtok=high_out)
    return replace(price, input_usd_per_mtok=min(listed_in, other_in), output_usd_per_mtok=min(listed_out, other_out))


def serverless_quotes(
    model: ModelSpec,
    prices: Sequence[TokenPrice],
    models: dict[str, ModelSpec],
    requests_per_day: float,
    input_len: int,
    output_len: int,
    prefix_cache_hit: float = 0.0,
    include_stale: bool = False,
) -> list[ServerlessQuote]:
    """Every listed price of the model (or of a comparable listed model, stand_in.py, marked substitute), one entry
    per provider and model on the same terms: the comparable ones (current and verified; stale too with `include_stale`)
    cheapest first, then the others (unverified, deprecated, stale), cheapest first, each labelled. A disputed price
    is priced at the higher of its two figures (token_prices.compared_figures). With a prefix-cache share, cached
    prompt tokens are billed at each provider's cached-input price."""
    prices = trust.one_per_provider_model(prices)
    listed = [p for p in prices if p.model_id.lower() == model.id.lower()]
    shown, substitute, reason = model, False, ""
    if not listed:
        usable = {p.model_id for p in prices if trust.comparable(p.unverified, p.deprecated, p.stale, include_stale)}
        stand_in = comparable_priced_model(model, usable, models) or comparable_priced_model(
            model, {p.model_id for p in prices}, models
        )
        if stand_in is None:
            return []
        listed, shown, substitute = [p for p in prices if p.model_id == stand_in.model.id], stand_in.model, True
        reason = stand_in.reason
    quotes = []
    for p in listed:
        compared = priced_at(p)
        per_request, cache_note = cached_usd_per_request(compared, input_len, output_len, prefix_cache_hit)
        disputed = p.disputed_input_usd_per_mtok is not None
        quotes.append(
            ServerlessQuote(
                p.provider_id,
                p.provider_name,
                p.model_id,
                shown.name,
                compared.input_usd_per_mtok,
                compared.output_usd_per_mtok,
                per_request,
                serverless_monthly_usd(requests_per_day, per_request),
                p.as_of,
                p.source_url,
                substitute,
                lora_serving=p.lora_serving,
                cached_input_usd_per_mtok=p.cached_input_usd_per_mtok,
                prefix_cache_hit=prefix_cache_hit,
                cache_note=cache_note,
                provider_model_id=p.provider_model_id,
                as_of_basis=p.as_of_basis,
                as_of_label=trust.as_of_label(p.as_of, p.as_of_basis),
                unverified=p.unverified,
                deprecated=p.deprecated,
                stale=p.stale,
                flags=trust.row_flags(p, p.stale),
                status_note=p.status_note,
                comparable=trust.comparable(p.unverified, p.deprecated, p.stale, include_stale),
                disputed=disputed,
                listed_input_usd_per_mtok=p.input_usd_per_mtok if disputed else None,
                listed_output_usd_per_mtok=p.output_usd_per_mtok if disputed else None,
                disputed_input_usd_per_mtok=p.disputed_input_usd_per_mtok,
                disputed_output_usd_per_mtok=p.disputed_output_usd_per_mtok,
                usd_per_request_lower=(
                    cached_usd_per_request(priced_at(p, higher=False), input_len, output_len, prefix_cache_hit)[0]
                    if disputed
                    else None
                ),
                availability_unconfirmed=p.availability_unconfirmed,
                weak_source=p.weak_source,
                substitute_reason=reason,
            )
        )
    return sorted(quotes, key=lambda q: (not q.comparable, q.usd_per_request, q.provider, q.provider_model_id))


def cheapest_comparable(quotes: Sequence[ServerlessQuote]) -> ServerlessQuote | None:
    """The cheapest price a comparison may stand on (None: every listed price is unverified, deprecated or stale)."""
    return next((q for q in quotes if q.comparable), None)
