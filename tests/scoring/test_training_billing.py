"""A training run's hours, its start-up and the run, are billed as an inference batch job's are: rounded up to the
provider's billing unit or the term's block, at least a committed minimum term."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.pricing.price_terms import STARTUP_HOURS, billed_job_hours
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.ranking.rank import rank_training
from app.scoring.training.run.offer_terms import run_terms
from app.scoring.training.run.run_explain import billing_note, run_terms_explained
from app.scoring.workload import TrainingWorkload

W = TrainingWorkload(model="llama-3.1-8b", method="full_ft")


def test_a_capacity_block_run_is_billed_in_whole_days():
    """AWS Capacity Blocks are booked by the day: 31.1 h of use books two days, not the 24 h minimum plus 7.1 h."""
    t = run_terms("capacity_block", "aws", 24.0, 1, 31.1 - STARTUP_HOURS, W)
    assert t.billed_hours == 48.0 and t.unit_hours == 24.0 and t.min_term_hours == 24.0
    assert run_terms("capacity_block", "aws", 24.0, 1, 5.0, W).billed_hours == 24.0  # the minimum, one block


def test_a_run_is_billed_whole_hours_where_the_provider_bills_by_the_hour():
    assert run_terms("on_demand", "vultr", None, 1, 348.74, W).billed_hours == 349.0
    assert run_terms("on_demand", "vultr", None, 1, 348.75, W).billed_hours == 349.0  # a whole hour is not rounded up
    assert run_terms("on_demand", "lambda", None, 1, 348.74, W).billed_hours == 348.99  # no unit stated: time used


def test_a_short_run_pays_its_start_up_and_the_providers_whole_unit():
    """A 20-minute LoRA run: 0.25 h start-up + 0.33 h of run, one whole hour at a provider billing by the hour,
    35 minutes at one billing by the minute, and the use where the reference states no unit (said in the terms)."""
    lora = W.model_copy(update={"method": "lora"})
    by_hour, by_minute = (
        run_terms("on_demand", "vultr", None, 1, 1 / 3, lora),
        run_terms("on_demand", "scaleway", None, 1, 1 / 3, lora),
    )
    assert by_hour.wall_hours == pytest.approx(STARTUP_HOURS + 1 / 3) and by_hour.billed_hours == 1.0
    assert by_minute.billed_hours == pytest.approx(35 / 60)
    assert billing_note(by_hour) == "billed 1 h = (0.25 h start-up + 0.33 h of run) in whole hours"
    terms = {t.name: t for t in run_terms_explained(by_hour, 1, 2.0, 2.0, lora)}
    assert terms["start-up"].value == STARTUP_HOURS and "assumed" in terms["start-up"].detail
    assert "terms.csv" in terms["billed hours"].detail and terms["run total"].value == 2.0
    unstated = {
        t.name: t for t in run_terms_explained(run_terms("on_demand", "lambda", None, 1, 1 / 3, lora), 1, 2, 1, lora)
    }
    assert "assumed billed per second" in unstated["billed hours"].detail


def test_the_deadline_counts_the_start_up():
    """A run of the deadline's whole length cannot finish in time once the machine has started."""
    assert run_terms("on_demand", "lambda", None, 1, W.max_days * 24 - STARTUP_HOURS, W).reason == ""
    assert "after the" in run_terms("on_demand", "lambda", None, 1, W.max_days * 24, W).reason


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
    """The same hours of use, the run's start-up among them."""
    assert run_terms(price_type, provider, term, 1, hours - STARTUP_HOURS, W).billed_hours == pytest.approx(
        billed_job_hours(hours - STARTUP_HOURS, price_type, term, provider)
    )


def test_offers_of_one_machine_are_billed_each_by_its_providers_unit():
    """Offers of the same machine and terms share a price group; a provider with a billing unit gets its own."""
    gpus, models = load_gpu_specs(), load_model_specs()
    offers = tuple(Offer(p, p.title(), "H100-SXM", 8, "on_demand", 2.0 + i) for i, p in enumerate(("neo", "vultr")))
    ranking = rank_training(W, CatalogSnapshot(gpus=gpus, models=models, offers=offers), models["llama-3.1-8b"])
    by_provider = {o.provider: o for o in ranking.options}
    hours = by_provider["neo"].total_hours  # start-up and run
    assert hours != int(hours) and by_provider["neo"].billed_hours == hours
    assert by_provider["vultr"].billed_hours == int(hours) + 1
    assert by_provider["vultr"].total_usd == pytest.approx(by_provider["vultr"].gpu_count * 3.0 * (int(hours) + 1))
