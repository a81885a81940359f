"""What a saved link's question needs that the catalog has removed since: a model or GPU. The link stores its offers,
not the specs of the GPUs and model they were ranked with, so unlike a removed provider (saved_links.removed_providers)
neither can be ranked again: a GPU's saved offers drop out with a note, and a question that names only removed GPUs,
or a removed model, is a 422 naming what left and when the link was saved."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload, TrainingWorkload

Workload = InferenceWorkload | TrainingWorkload


@dataclass(frozen=True, slots=True)
class RemovedSince:
    """The saved question's GPUs and model that today's catalog lacks (ids as saved)."""

    gpus: list[str] = field(default_factory=list)  # saved offers' GPUs and the question's GPU filter
    model: str | None = None


def removed_since(offers: tuple[Offer, ...], workload: Workload | None, current: CatalogSnapshot) -> RemovedSince:
    """A catalog without GPUs or models (a test's) knows none to have removed."""
    asked = list(workload.gpus) if workload is not None else []
    known_gpus = {g.lower() for g in current.gpus}
    gpus = {o.gpu_id for o in offers} | set(asked)
    gone_gpus = sorted(g for g in gpus if g.lower() not in known_gpus) if current.gpus else []
    return RemovedSince(gpus=gone_gpus, model=_removed_model(workload, current))


def _removed_model(workload: Workload | None, current: CatalogSnapshot) -> str | None:
    if workload is None or workload.model is None or workload.custom_model or workload.hf_config or not current.models:
        return None  # a pasted architecture or config.json needs no catalog model
    known = {m.lower() for m in current.models}
    return None if workload.model.lower() in known else workload.model


def saved_when(saved_at: datetime | None, prices_as_of: date | None) -> str:
    """When the link was saved, in the words of an error ('saved 2026-11-01, prices of 2026-10-30')."""
    saved = f"saved {saved_at:%Y-%m-%d}" if saved_at else "saved"
    return f"{saved}, prices of {prices_as_of}" if prices_as_of else saved


def refusals(removed: RemovedSince, asked_gpus: list[str], when: str) -> dict[str, str]:
    """{field: why} where the link cannot answer: its model, or every GPU its filter names, has left the catalog."""
    errors: dict[str, str] = {}
    if removed.model:
        errors["model"] = (
            f"model {removed.model!r} has left the catalog since this link was {when}: the link stored its prices, "
            "not the model's specs, so its question cannot be ranked again"
        )
    gone = {g.lower() for g in removed.gpus}
    if asked_gpus and all(g.lower() in gone for g in asked_gpus):
        named = ", ".join(repr(g) for g in asked_gpus)
        errors["gpus"] = (
            f"GPU{'s' if len(asked_gpus) > 1 else ''} {named} left the catalog since this link was {when}: the link "
            "stored their prices, not their specs, so none of the GPUs it asks for can be ranked again"
        )
    return errors


def kept_gpus(asked_gpus: list[str], removed: RemovedSince) -> list[str]:
    """The question's GPU filter less the GPUs removed since (the filter's other GPUs still rank)."""
    gone = {g.lower() for g in removed.gpus}
    return [g for g in asked_gpus if g.lower() not in gone]


def removed_gpus_note(removed: RemovedSince, offers: tuple[Offer, ...]) -> str:
    """The saved page's word on GPUs gone since ('' when none)."""
    if not removed.gpus:
        return ""
    gone = set(removed.gpus)
    dropped = sum(1 for o in offers if o.gpu_id in gone)
    one = len(gone) == 1
    return (
        f"{', '.join(removed.gpus)} {'has' if one else 'have'} left the catalog since: the link stored "
        f"{dropped} saved offer{'' if dropped == 1 else 's'} of {'it' if one else 'them'} but not "
        f"{'its' if one else 'their'} specs, so {'it is' if one else 'they are'} not ranked here."
    )
