"""A training run's hours are billed as an inference batch job's are: rounded up to the provider's billing unit or
the term's block, at least a committed minimum term."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.pricing.price_terms import billed_job_hours
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.training.run.offer_terms import run_terms
from app.scoring.workload import TrainingWorkload

W = TrainingWorkload(model="llama-3.1-8b", method="full_ft")


def test_a_capacity_block_run_is_billed_in_whole_days():
    """AWS Capacity Blocks are booked by the day: 31.1 h of use books two days, not the 24 h minimum plus 7.1 h."""
    t = run_terms("capacity_block", "aws", 24.0, 1, 31.1, W)
    assert t.billed_hours == 48.0 and t.unit_hours == 24.0 and t.min_term_hours == 24.0
    assert run_terms("capacity_block", "aws", 24.0, 1, 5.0, W).billed_hours == 24.0  # the minimum, one block


def test_a_run_is_billed_whole_hours_where_the_provider_bills_by_the_hour():
    assert run_terms("on_demand", "vultr", None, 1, 348.99, W).billed_hours == 349.0
    assert run_terms("on_demand", "vultr", None, 1, 349.0, W).billed_hours == 349.0  # a whole hour is not rounded up
    assert run_terms("on_demand", "lambda", None, 1, 348.99, W).billed_hours == 348.99  # no unit stated: time used


@pytest.mark.parametrize(
    ("price_type", "provider", "term", "hours"),
    [
        ("capacity_block", "aws", 24.0, 31.1),
        ("on_demand", "vultr", None, 348.99),
        ("on_demand", "scaleway", None, 2.505),
        ("reserved", "lambda", None, 29.8),
        ("reserved", "vultr", 730.0, 1000.2),
        ("on_demand", "lambda", None, 12.34),
    ],
)
def test_a_run_and_a_batch_job_of_the_same_hours_are_billed_the_same(price_type, provider, term, hours):
    assert run_terms(price_type, provider, term, 1, hours, W).billed_hours == billed_job_hours(
        hours, price_type, term, provider
    )


def test_offers_of_one_machine_are_billed_each_by_its_providers_unit():
    """Offers of the same machine and terms share a price group; a provider with a billing unit gets its own."""
    gpus, models = load_gpu_specs(), load_model_specs()
    offers = tuple(Offer(p, p.title(), "H100-SXM", 8, "on_demand", 2.0 + i) for i, p in enumerate(("neo", "vultr")))
    ranking = rank_training(W, CatalogSnapshot(gpus=gpus, models=models, offers=offers), models["llama-3.1-8b"])
    by_provider = {o.provider: o for o in ranking.options}
    hours = by_provider["neo"].total_hours
    assert hours != int(hours) and by_provider["neo"].billed_hours == hours
    assert by_provider["vultr"].billed_hours == int(hours) + 1
    assert by_provider["vultr"].total_usd == pytest.approx(by_provider["vultr"].gpu_count * 3.0 * (int(hours) + 1))
