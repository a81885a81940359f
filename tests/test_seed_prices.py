"""Invariants of the committed price seed files (built by scripts/build_seed_prices.py)."""

import csv
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from tests.migration_checks import upgrade_then_seed

SEED = Path(__file__).resolve().parents[1] / "seed_data"
PRICE_TYPES = {"on_demand", "spot", "reserved", "capacity_block", "marketplace", "serverless"}


def rows(name: str) -> list[dict[str, str]]:
    with open(SEED / name, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_offers_reference_known_ids_and_are_consistent() -> None:
    gpus = {r["id"] for r in rows("gpus.csv")}
    providers = {r["id"]: r for r in rows("providers.csv")}
    offers = rows("offers.csv")
    assert len(offers) >= 120
    keys = Counter(
        (o["provider_id"], o["gpu_id"], o["gpu_count"], o["price_type"], o["instance_type"], o["region"])
        for o in offers
    )
    assert max(keys.values()) == 1
    for offer in offers:
        assert offer["gpu_id"] in gpus and offer["provider_id"] in providers
        assert offer["price_type"] in PRICE_TYPES
        assert offer["as_of"] == "" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", offer["as_of"])
        total, per_gpu = Decimal(offer["usd_per_hour"]), Decimal(offer["usd_per_gpu_hour"])
        assert abs(per_gpu * int(offer["gpu_count"]) - total) < Decimal("0.0001")
    gmi = {o["gpu_id"]: o["usd_per_gpu_hour"] for o in offers if o["provider_id"] == "gmi-cloud"}
    assert gmi == {"H100-SXM": "2", "H200": "2.6", "B200": "4"}
    assert providers["gmi-cloud"]["kind"] == "neocloud"


def test_token_prices_and_providers() -> None:
    models = {r["id"] for r in rows("models.csv")}
    providers = rows("providers.csv")
    tokens = rows("token_prices.csv")
    assert len(providers) >= 20 and len({p["id"] for p in providers}) == len(providers)
    assert {p["kind"] for p in providers} <= {"hyperscaler", "neocloud", "marketplace", "serverless"}
    assert len({(t["provider_id"], t["provider_model_id"]) for t in tokens}) == len(tokens)
    for token in tokens:
        assert token["model_id"] == "" or token["model_id"] in models
        assert token["provider_id"] in {p["id"] for p in providers}
        assert float(token["input_usd_per_mtok"]) >= 0 and float(token["output_usd_per_mtok"]) >= 0


def test_prices_not_read_from_a_price_list_say_so_to_the_buyer() -> None:
    """The reference's caveats reach the row a buyer sees (price_note): 'where available', a provider's own article,
    a third-party write-up; a price read from a price list carries none of them."""
    notes = {(o["provider_id"], o["gpu_id"]): o["price_note"] for o in rows("offers.csv")}
    assert "where available" in notes[("gmi-cloud", "H200")]
    assert "provider's own article" in notes[("gmi-cloud", "B200")]
    assert "third-party write-up" in notes[("modal", "H100-SXM")]
    assert "price list" not in notes[("coreweave", "B200")]


def test_a_shape_not_sold_on_demand_says_so_in_its_price_note() -> None:
    """GCP sells a3-highgpu-1g only as Spot or Flex-start (prices.csv: "1g/2g/4g shapes are Spot/Flex-start only;
    on-demand-equivalent list price"): its on-demand row stays (a stored database keeps its id and history) and its
    price note carries the words the app leaves such a price out by (specs.UNSOLD_ON_THESE_TERMS)."""
    gcp = {
        (o["instance_type"], o["price_type"]): o["price_note"] for o in rows("offers.csv") if o["provider_id"] == "gcp"
    }
    assert "not sold on these terms" in gcp[("a3-highgpu-1g", "on_demand")]
    assert "not sold on these terms" not in gcp[("a3-highgpu-1g", "spot")]
    unsold = [o for o in rows("offers.csv") if "not sold on these terms" in o["price_note"]]
    assert [(o["provider_id"], o["instance_type"], o["price_type"]) for o in unsold] == [
        ("gcp", "a3-highgpu-1g", "on_demand")
    ]


def test_an_nvlink_domain_wider_than_the_node_is_read_from_the_topology_source() -> None:
    """Only an offer whose topology source says its NVLink domain spans more GPUs than a node gets one (CoreWeave's
    GB200 NVL72 node); Oracle's GB200.4, whose link is inferred from the form factor, stays one 4-GPU node."""
    domains = {(o["provider_id"], o["gpu_id"]): o["scaleup_domain_gpus"] for o in rows("offers.csv")}
    assert domains[("coreweave", "GB200")] == "72"
    assert domains[("oracle-oci", "GB200")] == ""
    assert {k for k, v in domains.items() if v} == {("coreweave", "GB200")}


@pytest.mark.db
def test_0008_adds_the_scaleup_domain_and_the_next_seed_fills_existing_offers(tmp_path: Path) -> None:
    query = "SELECT scaleup_domain_gpus FROM offer WHERE provider_id = :provider AND gpu_id = 'GB200'"
    params = [{"provider": "coreweave"}, {"provider": "oracle-oci"}]
    upgraded, seeded, reports = upgrade_then_seed(tmp_path, "0007", "offer", "scaleup_domain_gpus", query, params)
    assert upgraded == [(None,), (None,)] and seeded == [(72,), (None,)]
    assert not reports["offers.csv"].errors
