"""`gpumatch prices import`: exit codes, stderr on rejection, all-or-nothing, who in price_history."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from sqlmodel import Session, select

from app.cli.main import main
from app.db import make_engine
from app.models.hardware import Offer, PriceHistory
from tests.conftest import SEED_DIR

ROW = {
    "provider_id": "runpod",
    "gpu_id": "H100-SXM",
    "gpu_count": "1",
    "instance_type": "cli-box",
    "region": "x",
    "price_type": "on_demand",
    "usd_per_hour": "0.5",
    "usd_per_gpu_hour": "0.5",
    "as_of": "2026-12-01",
    "source_url": "https://example.com/cli",
}


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with open(SEED_DIR / "offers.csv", encoding="utf-8") as seed_file:
        header = next(csv.reader(seed_file))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def history_of(url: str, instance_type: str) -> list[PriceHistory]:
    with Session(make_engine(url)) as session:
        offer = session.exec(select(Offer).where(Offer.instance_type == instance_type)).first()
        if offer is None:
            return []
        return list(session.exec(select(PriceHistory).where(PriceHistory.offer_id == offer.id)).all())


def test_import_ok_records_who(database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "p.csv", [ROW])
    assert main(["prices", "import", str(path), "--by", "alice"]) == 0
    assert "1 new" in capsys.readouterr().out
    repriced = {**ROW, "usd_per_hour": "0.6", "usd_per_gpu_hour": "0.6"}
    assert main(["prices", "import", str(write_csv(tmp_path / "q.csv", [repriced]))]) == 0
    rows = history_of(database, "cli-box")
    assert rows[0].changed_by == "alice" and rows[1].changed_by.startswith("cli:")
    assert rows[1].usd_per_gpu_hour == 0.6 and rows[1].source_url == "https://example.com/cli"


def test_bad_line_rejects_file(database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "bad.csv", [ROW, {**ROW, "instance_type": "b", "usd_per_gpu_hour": "-3"}])
    assert main(["prices", "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 3" in err and "usd_per_gpu_hour" in err
    assert history_of(database, "cli-box") == []


def test_a_file_that_cannot_be_read_exits_2_as_any_bad_input(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file exited 1, the status of a file read and rejected; every other command's bad input exits 2."""
    assert main(["prices", "import", "/nonexistent/offers.csv"]) == 2
    assert "no such file" in capsys.readouterr().err
    binary = tmp_path / "offers.csv"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    assert main(["prices", "import", str(binary)]) == 2
    assert f"cannot read {binary}" in capsys.readouterr().err


GMI_B200 = {
    **ROW,
    "provider_id": "gmi-cloud",
    "gpu_id": "B200",
    "instance_type": "",
    "region": "",
    "usd_per_hour": "4.6",
    "usd_per_gpu_hour": "4.6",
}


def gmi_b200(url: str) -> Offer:
    with Session(make_engine(url)) as session:
        offer = session.exec(select(Offer).where(Offer.provider_id == "gmi-cloud", Offer.gpu_id == "B200")).one()
        session.expunge(offer)
        return offer


def test_the_seed_never_undoes_an_imported_price(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every CLI command and server start migrates and seeds: the committed seed (GMI's B200 at $4, 2026-11-29) must not
    replace a newer imported reading, nor one imported the same day; a newer seed reading still replaces it."""
    main(["db", "seed"])  # the seeded database every command starts from
    seeded = gmi_b200(database)
    assert (seeded.usd_per_gpu_hour, str(seeded.as_of)) == (4.0, "2026-11-29")
    for as_of in ("2026-11-29", "2026-12-05"):  # the seed's own day, then newer
        assert main(["prices", "import", str(write_csv(tmp_path / "g.csv", [{**GMI_B200, "as_of": as_of}]))]) == 0
        main(["db", "seed"])  # what `gpumatch rank`, `own`, `plan` and `serve` run first
        assert "1 newer stored prices kept" in capsys.readouterr().out
        kept = gmi_b200(database)
        assert (kept.usd_per_gpu_hour, str(kept.as_of)) == (4.6, as_of)
    older = {**GMI_B200, "usd_per_hour": "3.9", "usd_per_gpu_hour": "3.9", "as_of": "2026-10-01"}
    assert main(["prices", "import", str(write_csv(tmp_path / "old.csv", [older]))]) == 0
    assert "1 newer stored prices kept" in capsys.readouterr().out  # an older reading never replaces a newer one
    assert gmi_b200(database).usd_per_gpu_hour == 4.6


def test_the_seed_keeps_an_imported_prices_own_note(database: str, tmp_path: Path) -> None:
    """A price's note and notes describe that reading: the seed's older one ("price from the provider's own article, not
    its price list", "the same $4/GPU-h re-stated...") relabelled a newer price-list import it did not replace."""
    main(["db", "seed"])
    imported = {**GMI_B200, "as_of": "2026-12-05", "price_note": "price list", "notes": "read from the price page"}
    assert main(["prices", "import", str(write_csv(tmp_path / "g.csv", [imported]))]) == 0
    main(["db", "seed"])  # what every command and server start runs first
    kept = gmi_b200(database)
    assert (kept.usd_per_gpu_hour, kept.price_note, kept.notes) == (4.6, "price list", "read from the price page")


def test_the_same_offer_twice_rejects_the_file_naming_both_lines(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two rows for one offer were "2 updated (2 price changes)": the last row won and both prices went into the
    history."""
    again = {**ROW, "usd_per_hour": "0.7", "usd_per_gpu_hour": "0.7"}
    path = write_csv(tmp_path / "twice.csv", [ROW, {**ROW, "instance_type": "other"}, again])
    assert main(["prices", "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 4" in err and "the same offer as line 2" in err and "instance_type cli-box" in err
    assert history_of(database, "cli-box") == []


def test_a_row_with_more_fields_than_the_header_rejects_the_file(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_csv(tmp_path / "wide.csv", [ROW, {**ROW, "instance_type": "b"}])
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines[:2], lines[2] + ",surplus"]) + "\n", encoding="utf-8")
    assert main(["prices", "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 3" in err and "1 more field(s) than the header has columns ('surplus')" in err
    assert history_of(database, "cli-box") == []


def test_a_price_that_is_not_a_number_says_so(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for price in ("nan", "inf"):
        path = write_csv(tmp_path / f"{price}.csv", [{**ROW, "usd_per_gpu_hour": price}])
        assert main(["prices", "import", str(path)]) == 1
        err = capsys.readouterr().err
        assert "line 2, field usd_per_gpu_hour: must be a finite number" in err, err


def test_an_option_a_gpumatch_file_gives_per_row_exits_2(database: str, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = write_csv(tmp_path / "p.csv", [ROW])
    assert main(["prices", "import", str(path), "--provider", "lambda"]) == 2
    assert capsys.readouterr().err.startswith("--provider: a gpumatch file gives each row's provider_id itself")
    assert history_of(database, "cli-box") == []
