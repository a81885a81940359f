"""What the reference says about an offer beyond its price, written into seed_data/offers.csv's notes and price notes.

Used by scripts/build_seed_prices.py. The app labels a price by the phrases its price note carries
(app/scoring/pricing/price_terms.py PRICE_CAVEATS), so each caveat here is worded once, in the phrase the app reads:

- community-hosted: RunPod Community Cloud runs on third-party hosts (gpus.csv row RTX-4090 names it a marketplace).
  Its rows are `marketplace`, the vocabulary's "community or peer hosts", ranked where a question asks for them.
- consumer GeForce card: by the card's form factor in gpus.csv, with the licence and host caveat of row RTX-4090.
- cluster sale: a per-GPU price of a product sold as clusters of unstated size (an instance named "GPU cluster" with no
  gpus_per_node), which a ranking offers as one GPU.
- superseded: a historical snapshot of a provider's GPU that the provider now prices with a date (mark_superseded).
- GMI Cloud's older reading of a rate its 2026 article re-states is dated by the article's reading (gmi_statement).
- One offer read twice at one price from two price-list copies is one row (merge_repeated_readings, with the app's rule
  app/scoring/pricing/offer_readings.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from app.scoring.pricing.offer_readings import newest_readings, reading_key  # the app's rule, shared
from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE  # the words the app never ranks a price by

COMMUNITY_HOSTED = {
    "RunPod (Community)": "community-hosted: RunPod Community Cloud runs on third-party hosts' machines, not RunPod's "
    "datacenters (a marketplace, gpus.csv row RTX-4090); RunPod's fixed on-demand rate",
}
# A per-GPU price of a product sold as clusters whose size the reference does not give (Together AI's "GPU cluster"
# rows, "on-demand clusters $3.49-7.49/GPU-h"): ranked per GPU, as one GPU, which the buyer may not be able to rent.
CLUSTER_SALE = "sold as a GPU cluster of unstated size, priced per GPU-hour: a single GPU may not be rentable"
CONSUMER_CARD = (
    "consumer GeForce card: NVIDIA's GeForce driver licence restricts datacenter use, and such cards are rented "
    "mainly on marketplaces (gpus.csv row RTX-4090)"
)
HISTORICAL = "historical snapshot"  # the price note of an undated or HISTORICAL row

# GMI Cloud's article "What Is AI Inference vs Training: A Practical Comparison" (2026), as the reference's rows that
# cite it quote it: "H100 at $2.00 per GPU-hour to B200 at $4.00 per GPU-hour, with H200 at $2.60 where available".
# GMI rents HGX H100 SXM5 (prices.csv's own GMI H100 row), hence H100-SXM.
GMI_ARTICLE_TITLE = "What Is AI Inference vs Training: A Practical Comparison"
GMI_ARTICLE = f"GMI Cloud article '{GMI_ARTICLE_TITLE}' (2026)"
GMI_ARTICLE_GPUS = {"H100": "H100-SXM", "H200": "H200", "B200": "B200"}
STATED_RATE = re.compile(r"\b(H100|H200|B200) at \$(\d+(?:\.\d+)?)\b")  # "H100 at $2.00 per GPU-hour"
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Statement:
    """Rates a provider's dated statement gives, per catalog GPU id, and where and when it was read."""

    rates: dict[str, Decimal]
    as_of: str
    source_url: str
    retrieved_via: str
    verification: str


def gmi_statement(refs: list[dict[str, str]]) -> Statement:
    """GMI's article rates, read from the quote in the retrieved_via of the prices.csv rows that cite it, dated by
    those rows. Stops where no row cites it, the rows quote it differently, or the quote does not name every GPU."""
    rows = [r for r in refs if r["provider"] == "GMI Cloud" and GMI_ARTICLE_TITLE in r["retrieved_via"]]
    if not rows:
        raise SystemExit(f"no prices.csv row of GMI Cloud cites {GMI_ARTICLE}")
    quotes = {(r["retrieved_via"], r["as_of"], r["source_url"], r["verification"]) for r in rows}
    if len(quotes) > 1:
        raise SystemExit(f"prices.csv rows citing {GMI_ARTICLE} differ in quote, date or source: {sorted(quotes)}")
    [(quote, as_of, url, verification)] = quotes
    rates = {GMI_ARTICLE_GPUS[name]: Decimal(value) for name, value in STATED_RATE.findall(quote)}
    if set(rates) != set(GMI_ARTICLE_GPUS.values()) or not ISO.match(as_of):
        raise SystemExit(f"cannot read every rate and a date from the rows citing {GMI_ARTICLE}: {quote!r}, {as_of!r}")
    return Statement(rates, as_of, url, quote, verification)


def consumer_gpus(gpus_csv: list[dict[str, str]]) -> set[str]:
    """GPU ids whose form factor in gpus.csv is a consumer card's ("consumer PCIe triple-slot")."""
    return {row["id"] for row in gpus_csv if row["form_factor"].strip().lower().startswith("consumer")}


def _join(*parts: str) -> str:
    return "; ".join(p.strip() for p in parts if p and p.strip())


def mark_superseded(rows: list[dict[str, str]], provider_names: dict[str, str], report: dict[str, list[str]]) -> None:
    """A historical snapshot of a provider's GPU on terms the provider now prices with a date is superseded: its price
    note says by which price (of the same instance size where there is one, the latest, cheapest on a tie), so a
    ranking of stale prices labels it."""
    for row in rows:
        if HISTORICAL not in row["price_note"]:
            continue
        same = ("provider_id", "gpu_id", "price_type")
        dated = [
            r for r in rows if r["as_of"] and HISTORICAL not in r["price_note"] and all(r[k] == row[k] for k in same)
        ]
        if not dated:
            continue
        latest = max(
            dated, key=lambda r: (r["gpu_count"] == row["gpu_count"], r["as_of"], -Decimal(r["usd_per_gpu_hour"]))
        )
        name = provider_names[row["provider_id"]]
        now = f"{name} lists ${latest['usd_per_gpu_hour']}/GPU-h ({latest['as_of']})"
        row["price_note"] = _join(row["price_note"], f"{SUPERSEDED_BY_NEWER_PRICE}: {now}")
        report["superseded"].append(f"{row['_where']}: ${row['usd_per_gpu_hour']}/GPU-h, {now}")


def _reading(row: dict[str, str]) -> tuple[object, ...]:
    """app.scoring.pricing.offer_readings.reading_key of a CSV row; a row without an instance name matches only its own
    natural key at its own price."""
    named = reading_key(
        row["provider_id"],
        row["gpu_id"],
        int(row["gpu_count"]),
        row["price_type"],
        row["instance_type"],
        row["region"],
        float(Decimal(row["usd_per_gpu_hour"])),
    )
    if named is not None:
        return named
    keys = ("provider_id", "gpu_id", "gpu_count", "price_type", "instance_type", "region", "usd_per_hour")
    return ("unnamed", *(row[k] for k in keys))


def merge_repeated_readings(rows: list[dict[str, str]], report: dict[str, list[str]]) -> list[dict[str, str]]:
    """One offer read at one price from two sources (AWS p5.48xlarge in us-east-1, 2026-11-09, and in "us-east-1
    (same in us-east-2, us-west-2)", 2026-01-21): the newer reading stays, citing the other and the regions it named."""
    kept, dropped = newest_readings(rows, _reading, lambda r: r["as_of"])
    for older, newer in dropped:
        region = f" for region '{older['region']}'" if older["region"] != newer["region"] else ""
        newer["notes"] = _join(
            newer["notes"], f"same price read {older['as_of'] or 'undated'}{region} via {older['retrieved_via']}"
        )
        report["dropped"].append(f"{older['_where']}: same offer and price as {newer['_where']}, cited in its notes")
    return kept
