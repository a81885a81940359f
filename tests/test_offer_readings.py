"""What the seed builder reads about an offer beyond its price (scripts/offer_notes.py), one offer read twice shown
once (app/scoring/pricing/offer_readings.py), and migration 0010, which moves RunPod Community Cloud's stored rows."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlmodel import Session, select

from app.catalog.setup import migrate, seed
from app.catalog.snapshot import load_snapshot
from app.db import make_engine
from app.main import create_app
from app.models.hardware import Offer
from app.scoring.pricing.offer_readings import newest_readings, reading_key
from scripts.offer_notes import CONSUMER_CARD, GMI_ARTICLE_TITLE, consumer_gpus, gmi_statement
from tests.conftest import SEED_DIR, make_database, settings_for


def rows(name: str) -> list[dict[str, str]]:
    with open(SEED_DIR / name, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_runpods_two_clouds_are_two_providers_and_community_cloud_is_a_marketplace() -> None:
    providers = {p["id"]: p for p in rows("providers.csv")}
    assert (providers["runpod"]["name"], providers["runpod"]["kind"]) == ("RunPod Secure Cloud", "neocloud")
    assert providers["runpod-community"]["kind"] == "marketplace"
    offers = rows("offers.csv")
    community = [o for o in offers if o["provider_id"] == "runpod-community"]
    assert len(community) == 7 and {o["region"] for o in community} == {"Community Cloud"}
    assert all(o["price_type"] == "marketplace" and "community-hosted" in o["price_note"] for o in community)
    secure = [o for o in offers if o["provider_id"] == "runpod"]
    assert secure and not any(o["region"] == "Community Cloud" or o["price_type"] == "marketplace" for o in secure)


def test_gmis_h100_is_dated_by_the_article_that_restates_its_rate() -> None:
    """prices.csv:101 read $2.00 on 2026-05-28 (stale); the article rows 102-103 quote 'H100 at $2.00 per GPU-hour',
    read 2026-11-29: a newer reading of the same rate, from that page."""
    [h100] = [o for o in rows("offers.csv") if o["provider_id"] == "gmi-cloud" and o["gpu_id"] == "H100-SXM"]
    assert (h100["usd_per_gpu_hour"], h100["as_of"], h100["source_url"]) == (
        "2",
        "2026-11-29",
        "https://www.gmicloud.ai/",
    )
    assert GMI_ARTICLE_TITLE in h100["retrieved_via"] and "H100 at $2.00" in h100["retrieved_via"]
    assert "first read 2026-05-28 from https://www.gmicloud.ai/en/blog/h200-h100-b200-ai-inference" in h100["notes"]
    assert "provider's own article" in h100["price_note"]


def _gmi_row(gpu: str, quote: str, as_of: str = "2026-11-29") -> dict[str, str]:
    via = f"GMI Cloud article '{GMI_ARTICLE_TITLE}' (2026): '{quote}'"
    return {
        "provider": "GMI Cloud",
        "gpu_id": gpu,
        "retrieved_via": via,
        "as_of": as_of,
        "source_url": "https://www.gmicloud.ai/",
        "verification": "first-party article",
    }


def test_the_article_statement_is_read_from_its_quote_or_the_build_stops() -> None:
    quote = "H100 at $2.00 per GPU-hour to B200 at $4.00 per GPU-hour, with H200 at $2.60 where available"
    statement = gmi_statement([_gmi_row("H200", quote), _gmi_row("B200", quote)])
    assert {k: str(v) for k, v in statement.rates.items()} == {"H100-SXM": "2.00", "B200": "4.00", "H200": "2.60"}
    assert statement.as_of == "2026-11-29" and statement.source_url == "https://www.gmicloud.ai/"
    with pytest.raises(SystemExit, match="cannot read every rate"):
        gmi_statement([_gmi_row("H200", "H100 from two dollars, B200 at $4.00, H200 at $2.60")])
    with pytest.raises(SystemExit, match="differ"):
        gmi_statement([_gmi_row("H200", quote), _gmi_row("B200", quote, as_of="2026-11-30")])


def test_every_consumer_cards_offer_carries_the_licence_and_host_caveat_and_no_other_does() -> None:
    consumer = consumer_gpus(rows("gpus.csv"))
    assert {"RTX-4090", "RTX-5090", "RTX-3090"} <= consumer and not {"RTX-6000-ADA", "L40S"} & consumer
    for offer in rows("offers.csv"):
        assert (CONSUMER_CARD in offer["price_note"]) == (offer["gpu_id"] in consumer), offer


def test_one_aws_instance_read_twice_at_one_price_is_one_offer_citing_the_other_reading() -> None:
    offers = rows("offers.csv")
    for instance in ("p5.48xlarge", "p4d.24xlarge", "p4de.24xlarge"):
        [one] = [o for o in offers if o["instance_type"] == instance and o["price_type"] == "on_demand"]
        assert one["as_of"] == "2026-11-09" and one["region"] == "us-east-1"
        assert "same price read 2026-01-21 for region 'us-east-1 (same in" in one["notes"]


def test_newest_readings_keeps_the_newer_copy_of_one_offer_and_nothing_else() -> None:
    def key(r):  # type: ignore[no-untyped-def]
        return reading_key("aws", "H100-SXM", 8, "on_demand", r[0], r[1], r[2])

    old = ("p5.48xlarge", "us-east-1 (same in us-east-2, us-west-2)", 6.88, "2026-01-21")
    new = ("p5.48xlarge", "us-east-1", 6.88, "2026-11-09")
    repriced = ("p5.48xlarge", "us-east-1", 7.0, "2025-01-01")  # another price: another reading, kept
    elsewhere = ("p5.48xlarge", "eu-west-1", 6.88, "2025-01-01")
    unnamed = ("", "us-east-1", 6.88, "2025-01-01")  # no instance name: never taken for another row
    kept, dropped = newest_readings([old, new, repriced, elsewhere, unnamed], key, lambda r: r[3])
    assert kept == [new, repriced, elsewhere, unnamed] and dropped == [(old, new)]


@pytest.mark.db
def test_an_older_copy_stored_beside_the_newer_one_is_listed_and_ranked_once(fresh_url: str) -> None:
    """A database seeded before the builder merged AWS's two p5.48xlarge readings still holds the 2026-01-21 copy."""
    engine = make_engine(fresh_url)
    with Session(engine) as session:
        current = session.exec(
            select(Offer).where(Offer.instance_type == "p5.48xlarge", Offer.price_type == "on_demand")
        ).one()
        copy = Offer.model_validate(
            current.model_dump(exclude={"id"}) | {"region": "us-east-1 (same in us-east-2, us-west-2)"}
        )
        copy.as_of = date(2026, 1, 21)
        session.add(copy)
        session.commit()
        current_id, copy_id = current.id, copy.id
    with TestClient(create_app(settings_for(fresh_url))) as client:
        listed = client.get("/gpus/H100-SXM.json").json()["offers"]
        api = client.get("/api/v1/offers", params={"gpu": "H100-SXM", "price_type": "on_demand"}).json()
        ranked = client.get(
            "/rank.json?phase=training&model=llama-3.1-8b&method=lora&gpus=H100-SXM&providers=aws&include_stale=true"
        ).json()["options"]
    for offers in (listed, api):
        p5 = [o for o in offers if o["instance_type"] == "p5.48xlarge" and o["price_type"] == "on_demand"]
        assert [o["region"] for o in p5] == ["us-east-1"]
    eight = [o for o in ranked if o["gpu_count"] == 8 and o["price_type"] == "on_demand"]
    assert len(eight) == 1 and not eight[0]["stale"]  # the copy, stale, is not ranked beside it
    with Session(engine) as session:
        snapshot_ids = {o.offer_id for o in load_snapshot(session).offers}
    assert current_id in snapshot_ids and copy_id not in snapshot_ids
    engine.dispose()


COMMUNITY_ROWS = text(
    "SELECT id, provider_id, price_type FROM offer WHERE region = 'Community Cloud' ORDER BY gpu_id, id"
)


@pytest.mark.db
def test_0010_moves_stored_community_rows_to_their_provider_and_the_seed_adds_none(tmp_path: Path) -> None:
    """A database seeded before 0010 holds Community Cloud's rows as `runpod`, on demand. The upgrade moves them (same
    ids, so their history and an imported newer price stay); the seed load after it then finds each row in place."""
    url = make_database(tmp_path, seeded=True)
    migrate.downgrade(url, "0009")  # the rows as the old seed stored them
    engine = make_engine(url)
    with engine.begin() as connection:
        before = connection.execute(COMMUNITY_ROWS).all()
        assert before and {(r.provider_id, r.price_type) for r in before} == {("runpod", "on_demand")}
        assert connection.execute(text("SELECT count(*) FROM provider WHERE id = 'runpod-community'")).scalar() == 0
        imported = before[0].id  # repriced by an import after the seed's reading: the seed must not undo it
        connection.execute(
            text("UPDATE offer SET usd_per_hour = 1.05, usd_per_gpu_hour = 1.05, as_of = '2026-12-04' WHERE id = :id"),
            {"id": imported},
        )
        connection.execute(
            text(
                "INSERT INTO price_history (offer_id, usd_per_hour, usd_per_gpu_hour, as_of, "
                "source_url, changed_by, changed_at) VALUES (:id, 1.05, 1.05, '2026-12-04', "
                "'https://www.runpod.io/pricing', 'admin', '2026-12-04 00:00:00')"
            ),
            {"id": imported},
        )
    engine.dispose()

    migrate.upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        after = connection.execute(COMMUNITY_ROWS).all()
    assert [r.id for r in after] == [r.id for r in before]
    assert {(r.provider_id, r.price_type) for r in after} == {("runpod-community", "marketplace")}
    reports = {r.file: r for r in seed.seed(engine, SEED_DIR)}
    with engine.connect() as connection:
        again = connection.execute(COMMUNITY_ROWS).all()
        kept = connection.execute(text("SELECT usd_per_gpu_hour FROM offer WHERE id = :id"), {"id": imported}).scalar()
        name = connection.execute(text("SELECT name FROM provider WHERE id = 'runpod'")).scalar()
    engine.dispose()
    assert not reports["offers.csv"].errors and reports["offers.csv"].inserted == 0
    assert again == after and kept == 1.05 and reports["offers.csv"].newer_kept == 1
    assert name == "RunPod Secure Cloud"
