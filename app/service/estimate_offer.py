"""An estimate's `offer_id`: an offer the catalog has, renting the estimate's GPU. Judged on a valid request's machine
(service.estimate) and, the same way, on a request refused on another field (typed_model_checks), so an unknown offer
is said beside a bad value rather than once that is fixed."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from pydantic import TypeAdapter, ValidationError

from app.scoring.specs import CatalogSnapshot, Offer
from app.service.catalog_ids import catalog_id

_OFFER_ID = TypeAdapter(int)


def catalog_offer(snapshot: CatalogSnapshot, offer_id: int) -> Offer | None:
    return next((o for o in snapshot.offers if o.offer_id == offer_id), None)


def offer_refusal(snapshot: CatalogSnapshot, offer_id: int, gpu_id: str | None) -> str | None:
    """Why `offer_id` cannot be the estimate's machine: no such offer, or one renting another GPU than `gpu_id` (the
    catalog's id; None: the GPU is itself wrong, and not compared). None where the offer is the GPU's."""
    offer = catalog_offer(snapshot, offer_id)
    if offer is None:
        return f"no offer {offer_id} in the catalog; ranked options carry offer_id"
    if gpu_id is not None and offer.gpu_id != gpu_id:
        return f"offer {offer_id} rents {offer.gpu_id}, not {gpu_id}"
    return None


def typed_offer_errors(
    values: Mapping[str, object], snapshot: CatalogSnapshot, wrong: Collection[str]
) -> dict[str, str]:
    """{offer_id: why} for a typed offer_id (valid in shape) that offer_refusal refuses; its GPU compared where it
    is typed, valid and known (`wrong`: the fields refused on their shape and the unknown ids)."""
    typed = values.get("offer_id")
    if "offer_id" in wrong or typed is None or isinstance(typed, bool):
        return {}
    try:
        offer_id = _OFFER_ID.validate_python(typed)  # 7 or 7.0, as the request reads it
    except ValidationError:
        return {}
    gpu = values.get("gpu")
    gpu_id = catalog_id(snapshot, "gpus", gpu) if isinstance(gpu, str) and "gpu" not in wrong else None
    message = offer_refusal(snapshot, offer_id, gpu_id if gpu_id in snapshot.gpus else None)
    return {"offer_id": message} if message else {}
