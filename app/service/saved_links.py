"""A saved link replayed: its question over today's catalog at the prices it was saved with, and what changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from app.catalog.saved_links import SavedLink
from app.scoring.inference.ranking.release_precision import release_weights
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload
from app.service.moved_offers import relabel_moved_offers
from app.service.query.canonical import canonical_query
from app.service.query.question import ParsedQuery, parse
from app.service.query.view import with_view
from app.service.rank.model_spec import UnknownId, model_spec_for
from app.service.removed_since import RemovedSince, kept_gpus, refusals, removed_gpus_note, removed_since, saved_when
from app.service.saved_history import history_note, history_offers
from app.service.saved_price_moves import moves_note, price_moves

MAX_QUERY_ITEMS = 200  # a saved query is canonical and short; a longer one is cut, never read whole
# The weight dtype of an inference question without one, when links without it were saved (before release precisions).
LEGACY_WEIGHT_DTYPE = "bf16"
# Stored after the release's dtype a question did not name: the replay says where it came from, as the live page does
FROM_RELEASE = ("weight_dtype_from", "release")


@dataclass(frozen=True, slots=True)
class Replay:
    """What a saved link's page ranks: its parsed question, the catalog at its prices, and the `saved` block."""

    parsed: ParsedQuery
    snapshot: CatalogSnapshot
    saved: dict[str, Any]


def query_items(query: str) -> list[tuple[str, str]]:
    return parse_qsl(query, keep_blank_values=True)[:MAX_QUERY_ITEMS]


def stored_query(parsed: ParsedQuery, snapshot: CatalogSnapshot) -> str:
    """The canonical query a link stores. An inference question names its weight dtype, the release's when it gave
    none: a link keeps the precision it was ranked at if the catalog's release precision or the default changes."""
    workload = parsed.workload
    if not isinstance(workload, InferenceWorkload) or "weight_dtype" in workload.model_fields_set:
        return parsed.canonical
    answered, _ = release_weights(workload, model_spec_for(workload, snapshot), snapshot.quality)
    return with_view(canonical_query("inference", answered), parsed.view) + "&" + "=".join(FROM_RELEASE)


def saved_items(query: str) -> list[tuple[str, str]]:
    """A stored query's items. An inference link without a weight_dtype was saved when an unset one meant BF16 (links
    saved since name theirs: stored_query): it replays as BF16, not as the model's release precision."""
    items = [item for item in query_items(query) if item != FROM_RELEASE]
    phase = next((v for k, v in items if k == "phase"), "inference")
    if phase == "inference" and not any(k == "weight_dtype" for k, _ in items):
        items.append(("weight_dtype", LEGACY_WEIGHT_DTYPE))
    return items


def replay(link: SavedLink, current: CatalogSnapshot) -> Replay:
    """Today's GPUs, models and token prices with the link's offers (relabelled where the catalog has since moved
    them: moved_offers), and how many offers changed since."""
    offers = relabel_moved_offers(link.offers, current)
    removed = removed_providers(offers, current)
    snapshot = CatalogSnapshot(
        gpus=current.gpus,
        models=current.models,
        offers=offers,
        token_prices=current.token_prices,
        version=f"saved-{link.slug}",
        providers={**removed, **current.providers} if current.providers else {},
    )
    saved: dict[str, Any] = {
        "slug": link.slug,
        "prices_as_of": link.prices_as_of,
        "saved_at": link.saved_at,
        "offers_changed_since": price_changes(offers, current.offers),
        "providers_removed_since": sorted(removed),
    }
    parsed = as_released(parse(saved_items(link.query)), link.query, current)
    saved["current_url"] = f"{link.path}?{parsed.canonical or link.query}"  # the same question, at today's prices
    gone = removed_since(offers, parsed.workload, current)
    saved["gpus_removed_since"] = gone.gpus
    saved["removed_note"] = " ".join(n for n in (removed_note(removed), removed_gpus_note(gone, offers)) if n)
    history = history_offers(offers, parsed.workload, current)
    saved["superseded_offer_ids"] = [o.offer_id for o in history]
    saved["superseded_note"] = history_note(history, current, link.saved_at)
    saved["price_moves"] = price_moves(offers, parsed.workload, current)
    saved["price_moves_note"] = moves_note(saved["price_moves"], saved["offers_changed_since"])
    _drop_removed(parsed, gone, saved_when(link.saved_at, link.prices_as_of))
    return Replay(parsed, snapshot, saved)


def as_released(parsed: ParsedQuery, query: str, current: CatalogSnapshot) -> ParsedQuery:
    """A link that stored the release's dtype of a question without one (FROM_RELEASE) replays that question unset
    where today's release answers the same dtype: the same ranking, and its note says "BF16 is assumed" or "as
    released" as the live page does, not "as asked" (found by tidy). Pinned where the release has changed since."""
    if FROM_RELEASE not in query_items(query) or parsed.workload is None:
        return parsed
    unset = parse([item for item in saved_items(query) if item[0] != "weight_dtype"])
    if not isinstance(unset.workload, InferenceWorkload):
        return parsed
    try:
        answered, _ = release_weights(unset.workload, model_spec_for(unset.workload, current), current.quality)
    except UnknownId:  # the model removed since: _drop_removed refuses it
        return parsed
    return unset if canonical_query("inference", answered) == parsed.question else parsed


def _drop_removed(parsed: ParsedQuery, gone: RemovedSince, when: str) -> None:
    """A question that needs a GPU or model removed since: a 422 where nothing it asks for is left (its model, or
    every GPU it filters on), else its GPU filter less the removed GPUs (named in the note)."""
    workload = parsed.workload
    if workload is None:
        return
    errors = refusals(gone, list(workload.gpus), when)
    if errors:
        parsed.errors.update(errors)
        parsed.workload = None  # the 422 names the field, beside the form, as an unknown id does
    elif gone.gpus and workload.gpus:
        parsed.workload = workload.model_copy(update={"gpus": kept_gpus(list(workload.gpus), gone)})


def removed_providers(saved: tuple[Offer, ...], current: CatalogSnapshot) -> dict[str, str]:
    """The saved offers' providers the catalog has since removed (id -> name): the link still ranks their saved
    prices, and its question may still name them (a `providers` filter then refused them as unknown ids)."""
    if not current.providers:  # a catalog without a provider list knows its providers by its offers: none removed
        return {}
    return {o.provider_id: o.provider_name for o in saved if o.provider_id not in current.providers}


def removed_note(removed: dict[str, str]) -> str:
    """The saved page's word on providers gone since ('' when none)."""
    if not removed:
        return ""
    names = ", ".join(f"{name} ({pid})" for pid, name in sorted(removed.items()))
    one = len(removed) == 1
    return (
        f"{names} {'has' if one else 'have'} left the catalog since: {'its' if one else 'their'} saved prices are "
        "ranked as saved, and today's prices have none of "
        f"{'it' if one else 'them'} (a providers filter naming {'it' if one else 'them'} is refused there)."
    )


def price_changes(saved: tuple[Offer, ...], current: tuple[Offer, ...]) -> int:
    """Offers added, removed or repriced since the link was saved."""

    def key(o: Offer) -> tuple[Any, ...]:
        return (o.provider_id, o.gpu_id, o.gpu_count, o.price_type, o.instance_type, o.region)

    before = {key(o): o.usd_per_gpu_hour for o in saved}
    after = {key(o): o.usd_per_gpu_hour for o in current}
    return sum(1 for k in before.keys() | after.keys() if before.get(k) != after.get(k))
