"""The seed loader: idempotent, price changes appended to history, malformed files load nothing."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from sqlmodel import Session, func, select

from app.catalog.setup import seed
from app.db import make_engine
from app.models.hardware import Gpu, Offer, PriceHistory
from app.models.llm import TokenPrice
from tests.conftest import SEED_DIR


def _copy_seed(tmp_path: Path) -> Path:
    target = tmp_path / "seed"
    shutil.copytree(SEED_DIR, target)
    return target


def _rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    fieldnames = list(rows[0])
    change(rows)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)


def _count(url: str, table) -> int:  # type: ignore[no-untyped-def]
    engine = make_engine(url)
    with Session(engine) as session:
        n = session.exec(select(func.count()).select_from(table)).one()
    engine.dispose()
    return n


def test_seed_loads_every_reference_file(seeded_url: str) -> None:
    assert _count(seeded_url, Gpu) >= 30
    assert _count(seeded_url, Offer) >= 120
    assert _count(seeded_url, TokenPrice) >= 50
    assert _count(seeded_url, PriceHistory) == _count(seeded_url, Offer)


def test_second_seed_changes_nothing(fresh_url: str) -> None:
    engine = make_engine(fresh_url)
    reports = seed.seed(engine, SEED_DIR)
    engine.dispose()
    assert all(r.inserted == 0 and r.updated == 0 and not r.errors for r in reports)
    assert sum(r.unchanged for r in reports) > 300


def test_changed_price_updates_offer_and_appends_history(fresh_url: str, tmp_path: Path) -> None:
    seed_dir = _copy_seed(tmp_path)

    def raise_first_price(rows: list[dict[str, str]]) -> None:
        rows[0]["usd_per_hour"] = str(float(rows[0]["usd_per_hour"]) * 2)
        rows[0]["usd_per_gpu_hour"] = str(float(rows[0]["usd_per_gpu_hour"]) * 2)

    _rewrite(seed_dir / "offers.csv", raise_first_price)
    history_before = _count(fresh_url, PriceHistory)
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir, changed_by="test")}
    engine.dispose()
    assert reports["offers.csv"].updated == 1
    assert reports["offers.csv"].prices_changed == 1
    assert _count(fresh_url, PriceHistory) == history_before + 1


def test_malformed_row_names_file_line_field_and_loads_nothing(fresh_url: str, tmp_path: Path) -> None:
    seed_dir = _copy_seed(tmp_path)

    def break_rows(rows: list[dict[str, str]]) -> None:
        rows[0]["usd_per_hour"] = str(float(rows[0]["usd_per_hour"]) * 2)  # a valid change
        rows[0]["usd_per_gpu_hour"] = str(float(rows[0]["usd_per_gpu_hour"]) * 2)
        rows[4]["usd_per_gpu_hour"] = "cheap"  # line 6 counting the header

    _rewrite(seed_dir / "offers.csv", break_rows)
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir)}
    with Session(engine) as session:
        history = session.exec(select(func.count()).select_from(PriceHistory)).one()
        offers = session.exec(select(func.count()).select_from(Offer)).one()
    engine.dispose()
    [error] = reports["offers.csv"].errors
    assert (error.file, error.line, error.field) == ("offers.csv", 6, "usd_per_gpu_hour")
    assert "offers.csv line 6, field usd_per_gpu_hour" in str(error)
    assert history == offers  # the valid change on line 2 was not applied either


def test_unknown_gpu_id_is_reported_not_crashed(fresh_url: str, tmp_path: Path) -> None:
    seed_dir = _copy_seed(tmp_path)
    _rewrite(seed_dir / "offers.csv", lambda rows: rows[2].update(gpu_id="NO-SUCH-GPU"))
    engine = make_engine(fresh_url)
    reports = {r.file: r for r in seed.seed(engine, seed_dir)}
    engine.dispose()
    [error] = reports["offers.csv"].errors
    assert error.field == "gpu_id" and "NO-SUCH-GPU" in error.message and error.line == 4


def test_gmi_cloud_on_demand_prices_are_seeded(client) -> None:  # type: ignore[no-untyped-def]
    offers = client.get("/api/v1/offers", params={"provider": "gmi-cloud", "price_type": "on_demand"}).json()
    prices = {o["gpu_id"]: o["usd_per_gpu_hour"] for o in offers}
    assert prices["H100-SXM"] == 2.00 and prices["H200"] == 2.60 and prices["B200"] == 4.00
