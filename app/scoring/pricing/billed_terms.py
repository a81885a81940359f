"""What a job's billed hours read of an offer's provider, as a key: offers with equal keys bill equal hours.

price_terms.billed_job_hours reads the provider id twice: its billing unit (billing_unit_hours, for the price type)
and, on interruptible terms, its interruption rate (interruptions_per_node_month). Every other input is the job's or
the offer's price type and stated minimum term. So (price type, stated minimum term, billing_terms_key) decides the
hours: a ranking that bills a batch job on thousands of offers works them out once per key and configuration
(inference/ranking/pricing.py) and reads the same float for every offer that shares it.
"""

from __future__ import annotations

from app.scoring.pricing.price_terms import INTERRUPTIBLE, billing_unit_hours, interruptions_per_node_month

BillingTerms = tuple[float | None, float | None]  # (billing unit hours or None, interruptions per node-month or None)

# (price type, provider id) -> its key; the tables read are module constants, so an entry never goes stale. Cleared
# when full (a catalog has tens of providers; the bound only guards against an unbounded id space).
_KEYS: dict[tuple[str, str], BillingTerms] = {}
_KEYS_LIMIT = 4096


def billing_terms_key(price_type: str, provider_id: str) -> BillingTerms:
    """The provider's part of what billed_job_hours reads: its billing unit for `price_type`, and its interruption
    rate where the terms are interruptible (None otherwise: billed_job_hours does not read it)."""
    key = (price_type, provider_id)
    hit = _KEYS.get(key)
    if hit is None:
        rate = interruptions_per_node_month(provider_id) if price_type in INTERRUPTIBLE else None
        if len(_KEYS) >= _KEYS_LIMIT:
            _KEYS.clear()
        hit = _KEYS[key] = (billing_unit_hours(price_type, provider_id), rate)
    return hit
