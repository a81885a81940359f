"""A list price of a shape its provider does not sell on those terms (specs.Offer.unsold: GCP's a3-highgpu-1g on
demand, Spot/Flex-start only) is never an answer: not ranked, not the rental /own compares owning with."""

from __future__ import annotations

from datetime import date

from app.catalog.spec_files import load_gpu_specs
from app.scoring.pricing.offers import left_out_note, matching_offers
from app.scoring.serving.ownership.rental import cheapest_rental
from app.scoring.specs import UNSOLD_ON_THESE_TERMS, CatalogSnapshot, Offer
from app.scoring.workload import Filters

GPUS = load_gpu_specs()
DAY = date(2026, 11, 1)
UNSOLD = Offer("g", "G", "H100-SXM", 1, "on_demand", 1.0, DAY, price_note=f"{UNSOLD_ON_THESE_TERMS}: Spot only")
SOLD = Offer("p", "P", "H100-SXM", 1, "on_demand", 2.0, DAY)


def test_an_unsold_list_price_is_never_ranked_whatever_the_filters() -> None:
    assert UNSOLD.unsold and not SOLD.unsold
    everything = Filters(
        price_types=["on_demand", "spot", "reserved", "marketplace", "capacity_block"], include_stale=True
    )
    for filters in (Filters(), Filters(providers=["g"]), everything):
        assert UNSOLD not in matching_offers([UNSOLD, SOLD], GPUS, filters)
    assert left_out_note([UNSOLD], GPUS, Filters()) == ""  # nothing a looser filter would rank


def test_own_compares_owning_with_a_rental_that_exists() -> None:
    catalog = CatalogSnapshot(gpus=GPUS, offers=(UNSOLD, SOLD))
    assert cheapest_rental(catalog, "H100-SXM", 1) == SOLD
