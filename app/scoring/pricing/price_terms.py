"""What an offer's price terms do to what a buyer pays: $ per token, spot interruptions, commitments.

Pure: plain numbers in, plain numbers out. The rankings and the serving plan call these, so a price
term means the same thing everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.scoring.explain import significant

HOURS_PER_MONTH = 730.0  # 8,760 h / 12

INTERRUPTIBLE = frozenset({"spot"})
COMMITTED = frozenset({"reserved", "capacity_block"})

# Spot interruptions per node per month, by provider class. Hyperscalers: the upper end of the GPU
# instances' observed band in AWS's Spot Instance Advisor, 15-20% of instances per month
# (shared/reference/terms.csv, cloudprice.app 2026; newest generations often > 20%).
HYPERSCALERS = frozenset({"aws", "gcp", "azure", "oracle", "oci", "oracle-oci"})  # oracle-oci: the catalog id
HYPERSCALER_INTERRUPTIONS_PER_NODE_MONTH = 0.2
# Neoclouds and marketplaces publish no interruption rate (terms.csv has none): an assumption, five
# times the hyperscaler rate, so their spot prices are never taken at face value. Override it per workload.
OTHER_INTERRUPTIONS_PER_NODE_MONTH = 1.0
# Wall time lost per interruption besides the work since the last checkpoint: notice (AWS 2 min,
# GCP/Azure 30 s, terms.csv), rescheduling and reloading the checkpoint (assumption: 15 minutes).
RESTART_HOURS = 0.25
# The hours a rented job (a training run, an inference batch job) is billed before its first step: provisioning the
# machine, pulling the container image, downloading the model's weights and the first compile. shared/reference
# states none (terms.csv has billing units, not start-up times): assumed 15 minutes, the same as a spot restart's
# reload (RESTART_HOURS). The job's wall time, its deadline and its bill include it, so a 20-minute run billed by the
# hour at Vultr pays one hour, and 35 minutes of use where the provider bills by the minute.
STARTUP_HOURS = 0.25
STARTUP_DETAIL = (
    "provisioning, the container image, the model's weights and the first compile, billed with the run; assumed: "
    "shared/reference states no start-up time (price_terms.STARTUP_HOURS, as a spot restart's reload)"
)
# Above this share of time lost to interruptions a run on spot is not worth planning.
MAX_LOST_SHARE = 0.5

# Commitments whose length the catalog does not state. Reserved: one month, the shortest commitment in
# terms.csv (OVHcloud savings plans 1-36 months, DigitalOcean "multi-month"). Capacity blocks: one day,
# AWS EC2 Capacity Blocks' shortest block (aws.amazon.com/ec2/capacityblocks, 1-14 days in 1-day steps).
DEFAULT_MIN_TERM_HOURS = {"reserved": HOURS_PER_MONTH, "capacity_block": 24.0}
# Committed terms sold in whole blocks, where a source states it: AWS EC2 Capacity Blocks are reserved in 1-day
# increments (docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html, the source of the offers' 24 h
# minimum and of their notes, scripts/build_seed_prices.py TERMS; not in shared/reference): a 31 h run books 2 days.
TERM_UNIT_HOURS = {("aws", "capacity_block"): 24.0}


# The smallest unit a provider bills, where its terms say (shared/reference/terms.csv): Vultr bills Cloud GPU by the
# hour, Scaleway GPU instances by the minute. terms.csv states no unit for the others, so they are billed the time
# used. A batch job's hours are rounded up to the unit; a service that runs all month is not.
BILLING_UNIT_HOURS = {"vultr": 1.0, "scaleway": 1 / 60}


# Caveats a buyer must see beside a price, in the words its price_note carries them (scripts/build_seed_prices.py
# writes them from the reference's notes and verification columns: source_caveat (an article, a write-up, a median
# of marketplace offers), "where available", "'from'"; scripts/offer_notes.py the host, card, cluster-sale and
# supersession ones): each phrase, and the short label a ranked row shows (the whole note stays in the JSON and the
# label's title). Who hosts and what card come first: they decide whether a buyer can use the machine at all.
PRICE_CAVEATS = (
    ("not sold on these terms", "not sold on these terms: a list price only"),
    ("community-hosted", "community-hosted: third-party hosts"),
    ("consumer GeForce card", "consumer card: GeForce licence, marketplace hosts"),
    ("managed deployment", "managed deployment, not a bare VM"),
    ("sold as a GPU cluster", "sold as a cluster of unstated size"),
    ("superseded by a newer price", "superseded by a newer price"),
    ("historical snapshot", "historical snapshot"),
    ("where available", "capacity not guaranteed"),
    ("the provider's own article", "provider's article, not its price list"),
    ("third-party write-up", "third-party write-up, not a price list"),
    ("observed marketplace offers", "a median or average of marketplace offers"),
    ("'from'/'starting at' price", "'from' price"),
    ("'as low as' price", "'as low as' price"),
)


@lru_cache(maxsize=512)  # a catalog has a few dozen distinct notes; every ranked row reads one
def price_caveats(price_note: str) -> tuple[str, ...]:
    """The labels of the caveats a price note carries, in PRICE_CAVEATS' order (none for a price-list price)."""
    note = price_note.lower()
    return tuple(label for phrase, label in PRICE_CAVEATS if phrase.lower() in note)


def price_provenance(price_note: str, source_url: str, stale: bool, layout_caveat: str = "") -> dict[str, object]:
    """What every view of a priced row carries about its price beside the number and date: the note, its caveats'
    labels (then what the row's layout assumes of the offer, machines.shared_rack_caveat), the page it was read from
    and whether it is stale (or undated) (the ranked rows' OfferFields, /mix's replicas, /disagg's pools)."""
    return {
        "price_note": price_note,
        "price_caveats": price_caveats(price_note) + ((layout_caveat,) if layout_caveat else ()),
        "price_source_url": source_url,
        "stale": stale,
    }


def terms_text(price_type: str, caveats: Sequence[str] = (), interruptible: bool = False, stale: bool = False) -> str:
    """A price's terms as a label's parenthesis says them, caveats included wherever the label goes (a plan's
    train-then-serve rows, its break-even): `on demand; provider's article, not its price list`, `spot,
    interruptible; stale`."""
    head = price_type.replace("_", " ") + (", interruptible" if interruptible else "")
    return "; ".join([head, *caveats, *(["stale"] if stale else [])])


def usd_per_million_tokens(usd_per_hour: float, tokens_per_s: float) -> float:
    """$ per million tokens of a machine billed `usd_per_hour` that produces `tokens_per_s`."""
    return usd_per_hour / 3600 / tokens_per_s * 1e6


def interruptions_per_node_month(provider_id: str, override: float | None = None) -> float:
    """The workload's rate if given, else the provider class's sourced default."""
    if override is not None:
        return override
    if provider_id.lower() in HYPERSCALERS:
        return HYPERSCALER_INTERRUPTIONS_PER_NODE_MONTH
    return OTHER_INTERRUPTIONS_PER_NODE_MONTH


def spot_serving_assumption(price_type: str, provider_id: str, batch_job: bool) -> str:
    """What a ranked inference row on spot assumes of its interruptions, in a sentence ('' on other terms): a batch
    job's billed hours count them (job_wall_hours); a service's price and replicas assume none."""
    if price_type not in INTERRUPTIBLE:
        return ""
    rate = interruptions_per_node_month(provider_id)
    basis = (
        "the upper end of AWS's Spot Instance Advisor bands"
        if provider_id.lower() in HYPERSCALERS
        else "assumed: the provider publishes no rate"
    )
    expected = f"{significant(rate)} interruptions per node-month expected, {basis}"
    head = f"spot: the provider may reclaim these GPUs at short notice ({expected})"
    if batch_job:
        return f"{head}; the job's billed hours include the requests each interruption loses and a restart"
    return f"{head}; the price and the replicas assume none, with no spare replica to take an interrupted one's load"


@dataclass(frozen=True, slots=True)
class SpotRun:
    """A run on interruptible capacity: expected wall time and the share of it lost to interruptions."""

    interruptions_per_hour: float  # for the whole job: nodes x rate per node-hour
    lost_share: float  # of the expected wall time: interruptions x (half a checkpoint interval + restart)
    wall_hours: float  # expected, including lost work and restarts

    @property
    def feasible(self) -> bool:
        return self.lost_share < MAX_LOST_SHARE


def spot_run(work_hours: float, nodes: int, per_node_month: float, checkpoint_hours: float) -> SpotRun:
    """Renewal approximation: each interruption costs half a checkpoint interval of work plus a restart,
    so the expected wall time is work / (1 - rate x loss per interruption)."""
    per_hour = nodes * per_node_month / HOURS_PER_MONTH
    lost = per_hour * (checkpoint_hours / 2 + RESTART_HOURS)
    wall = work_hours / (1 - min(lost, 0.99))  # capped: beyond MAX_LOST_SHARE the run is refused anyway
    return SpotRun(interruptions_per_hour=per_hour, lost_share=lost, wall_hours=wall)


def min_term_hours(price_type: str, stated: float | None) -> float:
    """Hours a committed price is paid for whether used or not (0 for pay-as-you-go terms)."""
    if price_type not in COMMITTED:
        return 0.0
    return stated if stated else DEFAULT_MIN_TERM_HOURS[price_type]


def billed_hours(use_hours: float, price_type: str, stated_min_term: float | None) -> float:
    """max(use, minimum term): a reservation is paid for its whole term."""
    return max(use_hours, min_term_hours(price_type, stated_min_term))


def billing_unit_hours(price_type: str, provider_id: str) -> float | None:
    """The smallest unit an offer's hours are billed in: its term's block (TERM_UNIT_HOURS), else the provider's
    unit (BILLING_UNIT_HOURS); None where the source states none (billed the time used)."""
    provider = provider_id.lower()
    return TERM_UNIT_HOURS.get((provider, price_type)) or BILLING_UNIT_HOURS.get(provider)


def billing_unit_source(price_type: str, provider_id: str) -> str:
    """Where billing_unit_hours' unit is stated, in a few words; for none, that the hours are assumed billed as used."""
    provider = provider_id.lower()
    if (provider, price_type) in TERM_UNIT_HOURS:
        return "the term's booking block (AWS EC2 Capacity Blocks docs)"
    if provider in BILLING_UNIT_HOURS:
        return "the provider's billing unit (shared/reference/terms.csv)"
    return "no billing unit stated in shared/reference/terms.csv: assumed billed per second as used"


def bill_hours(use_hours: float, unit_hours: float | None, min_term: float) -> float:
    """`use_hours` rounded up to the billing unit (None: billed as used), at least the minimum term (0: none)."""
    rounded = math.ceil(use_hours / unit_hours - 1e-9) * unit_hours if unit_hours else use_hours
    return max(rounded, min_term)


def billed_use_hours(use_hours: float, price_type: str, stated_min_term: float | None, provider_id: str) -> float:
    """What `use_hours` of a job (a batch job, a training run) are billed: rounded up to the billing unit, at least a
    commitment's term."""
    unit = billing_unit_hours(price_type, provider_id)
    return bill_hours(use_hours, unit, min_term_hours(price_type, stated_min_term))


def billed_with_startup(wall_hours: float, price_type: str, stated_min_term: float | None, provider_id: str) -> float:
    """What a rented job (a training run, an inference batch job) is billed: its start-up (STARTUP_HOURS) and its
    `wall_hours` together, rounded up to the billing unit, at least a commitment's term."""
    return billed_use_hours(STARTUP_HOURS + wall_hours, price_type, stated_min_term, provider_id)


def hours_after_startup(deadline_hours: float) -> float:
    """The hours a deadline leaves a job's work after its start-up (STARTUP_HOURS): what a search sizes it to."""
    return deadline_hours - STARTUP_HOURS


def finish_hours(run_hours: float, slow_end_hours: float = 1.0) -> float:
    """When a rented job finishes, hours from its rental: the start-up, then its run at `slow_end_hours` times the
    estimate's hours (its tokens/s band's slow end where limits_at asks; the start-up does not scale). Every deadline
    check of a training run (the count search, a row's verdict, the chart, the notes) compares this with the
    deadline, so a count the search calls on time is one its row calls on time."""
    return STARTUP_HOURS + run_hours * slow_end_hours


def billed_band_ratios(
    use_hours: float,
    low_ratio: float,
    high_ratio: float,
    unit_hours: float | None,
    min_term: float,
    fixed_hours: float = 0.0,
) -> tuple[float, float]:
    """The uncertainty band of a billed cost, as ratios to that cost. The estimate's band scales the hours a job uses
    (`low_ratio`, `high_ratio`: the job at its band's fastest and slowest) past its `fixed_hours` (a training run's
    start-up, which no tokens/s makes longer); each end is billed as the job is, rounded up to the unit and at least
    the minimum term, so a job whose whole band stays inside a 730 h reservation costs the reservation, a certain
    (1.0, 1.0). Billed as used, the ratios of those hours."""
    if use_hours <= 0:
        return low_ratio, high_ratio
    low_use, high_use = (fixed_hours + (use_hours - fixed_hours) * r for r in (low_ratio, high_ratio))
    if not unit_hours and not min_term:
        return low_use / use_hours, high_use / use_hours
    billed = bill_hours(use_hours, unit_hours, min_term)
    if billed <= 0:
        return low_ratio, high_ratio
    return bill_hours(low_use, unit_hours, min_term) / billed, bill_hours(high_use, unit_hours, min_term) / billed


# A billed band's low end over its cost is at least the estimate's own low ratio l where hours are billed as used or
# with a minimum term, and at least l / 2 where they round up to a unit: ceil(l x) / ceil(x) > l k / (k + 1) for x in
# (k, k + 1] units, k >= 1 (1 for k = 0). A scan for rivals by cost may stop on this bound (explain.win_is_contested).
ROUNDED_BAND_FLOOR = 0.5


def job_wall_hours(use_hours: float, price_type: str, provider_id: str, spot: tuple[int, float] = (1, 0.0)) -> float:
    """A job's wall time under its terms: on spot its expected wall time (`spot`: nodes, and the work an
    interruption loses twice over, as spot_run's checkpoint interval), else `use_hours`."""
    if price_type not in INTERRUPTIBLE:
        return use_hours
    nodes, lost_twice_hours = spot
    return spot_run(use_hours, nodes, interruptions_per_node_month(provider_id), lost_twice_hours).wall_hours


def billed_job_hours(
    use_hours: float,
    price_type: str,
    stated_min_term: float | None,
    provider_id: str,
    spot: tuple[int, float] = (1, 0.0),
) -> float:
    """What a batch job of `use_hours` is billed: its wall time under the terms (job_wall_hours) after its start-up,
    as a training run's (billed_with_startup)."""
    wall = job_wall_hours(use_hours, price_type, provider_id, spot)
    return billed_with_startup(wall, price_type, stated_min_term, provider_id)
