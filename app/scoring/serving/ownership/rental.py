"""The rental compared with owning: the cheapest fresh on-demand offer of the GPU, in words a buyer is shown.

The offer is an instance of one owned server's GPU count (the machine owned, its GPUs and the link between them: a
1-GPU rental is another machine), else of any count; the answer names a cheaper offer of another size where there
is one. Pure: reads the catalog snapshot passed in.
"""

from __future__ import annotations

from app.scoring.explain import fixed
from app.scoring.pricing.offer_labels import label_beyond_name
from app.scoring.pricing.price_terms import price_caveats
from app.scoring.serving.ownership.question import MissingInput, OwnershipQuestion, ResolvedInput
from app.scoring.specs import CatalogSnapshot, Offer


def _fresh_on_demand(snapshot: CatalogSnapshot, gpu: str) -> list[Offer]:
    """Current on-demand offers of the GPU a buyer can rent (not a list price of a shape not sold so: Offer.unsold; not
    a price a newer one replaced: Offer.superseded)."""
    rentable = [o for o in snapshot.offers if not (o.stale or o.unsold or o.superseded)]
    return [o for o in rentable if o.gpu_id == gpu and o.price_type == "on_demand"]


def _cheapest(offers: list[Offer]) -> Offer | None:
    return min(offers, key=lambda o: (o.usd_per_gpu_hour, o.provider_id), default=None)


def cheapest_rental(snapshot: CatalogSnapshot, gpu: str, gpus_per_server: int) -> Offer | None:
    """The rental compared with owning: the cheapest of the server's size, else of any size."""
    fresh = _fresh_on_demand(snapshot, gpu)
    return _cheapest([o for o in fresh if o.gpu_count == gpus_per_server] or fresh)


def offer_words(offer: Offer) -> str:
    """'Lambda gpu_8x_h100_sxm5', or 'GMI Cloud 1× H100-SXM' for an offer without an instance name, with its price's
    caveats where it has some ('(provider's article, not its price list)'): the rental is a price a buyer is shown."""
    caveats = price_caveats(offer.price_note)
    said = f" ({'; '.join(caveats)})" if caveats else ""
    instance = label_beyond_name(offer.provider_name, offer.instance_type)
    return f"{offer.provider_name} {instance or f'{offer.gpu_count}× {offer.gpu_id}'}{said}"


def rental_default(snapshot: CatalogSnapshot, q: OwnershipQuestion) -> ResolvedInput:
    offer = cheapest_rental(snapshot, q.gpu, q.gpus_per_server)
    if offer is None:
        raise MissingInput(
            "rental_usd_per_gpu_hour",
            f"the catalog has no fresh on-demand offer of {q.gpu} to price renting: enter a rental price, in $ per "
            "GPU-hour",
        )
    size = q.gpus_per_server
    if offer.gpu_count == size:
        text = f"cheapest on-demand {size}-GPU instance, the size of the servers owned: {offer_words(offer)}"
        other = _cheapest(_fresh_on_demand(snapshot, q.gpu))
        if other is not None and other.usd_per_gpu_hour < offer.usd_per_gpu_hour:
            text += (
                f"; cheaper in another size: {offer_words(other)} at ${fixed(other.usd_per_gpu_hour, 2)} per GPU-hour "
                f"({other.gpu_count}-GPU instance, a different machine): enter it as the rental price to compare"
            )
    else:
        text = (
            f"cheapest on-demand of any size, as no fresh offer is a {size}-GPU instance: {offer_words(offer)} "
            f"({offer.gpu_count}-GPU instance)"
        )
    as_of = offer.as_of.isoformat() if offer.as_of else ""
    return ResolvedInput(
        "rental_usd_per_gpu_hour", offer.usd_per_gpu_hour, "$ per GPU-hour", False, text, as_of, offer.source_url
    )
