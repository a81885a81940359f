"""`gpumatch prices import` reads SkyPilot and gpuhunt catalog CSVs: GPU names mapped, region, spot and date kept."""

from __future__ import annotations

import os
import shutil
from datetime import date, datetime
from pathlib import Path

import pytest
from sqlmodel import Session, select

from app.catalog.prices.price_formats import detect_format, gpu_id
from app.cli.main import main
from app.db import make_engine
from app.models.hardware import Offer

FIXTURES = Path(__file__).parent / "fixtures" / "price_files"


def offers_from(url: str, source_url: str) -> list[Offer]:
    with Session(make_engine(url)) as session:
        return list(session.exec(select(Offer).where(Offer.source_url == source_url)).all())


def test_skypilot_file_yields_on_demand_and_spot_per_region(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "skypilot" / "aws" / "vms.csv"
    assert main(["prices", "import", str(path), "--as-of", "2026-11-30"]) == 0
    out = capsys.readouterr().out
    assert "format skypilot, provider aws, prices as of 2026-11-30 (--as-of)" in out
    assert "unknown GPU name 'V100'" in out and "no GPU (CPU-only instance)" in out
    offers = {
        (o.instance_type, o.price_type): o
        for o in offers_from(database, "https://github.com/skypilot-org/skypilot-catalog")
    }
    assert set(offers) == {
        ("p5.48xlarge", "on_demand"),
        ("p5.48xlarge", "spot"),
        ("p4de.24xlarge", "on_demand"),  # empty SpotPrice: no spot offer
        ("g6.xlarge", "on_demand"),
        ("g6.xlarge", "spot"),
    }
    p5 = offers[("p5.48xlarge", "on_demand")]
    assert (p5.gpu_id, p5.gpu_count, p5.region, p5.provider_id) == ("H100-SXM", 8, "us-east-1", "aws")
    assert p5.usd_per_gpu_hour == pytest.approx(55.04 / 8) and p5.as_of == date(2026, 11, 30)
    assert offers[("p4de.24xlarge", "on_demand")].gpu_id == "A100-SXM-80GB"
    assert offers[("g6.xlarge", "spot")].usd_per_hour == pytest.approx(0.3205)
    assert offers[("g6.xlarge", "spot")].region == "us-west-2"


def test_gpuhunt_file_dated_by_modification_time(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "gpuhunt.csv"
    shutil.copy(FIXTURES / "gpuhunt_runpod.csv", path)
    stamp = date(2026, 10, 15)
    noon = datetime(2026, 10, 15, 12).timestamp()  # local noon is 15 Oct in UTC too
    os.utime(path, (noon, noon))
    assert main(["prices", "import", str(path), "--provider", "runpod"]) == 0
    out = capsys.readouterr().out
    assert "format gpuhunt, provider runpod, prices as of 2026-10-15 (file modification date)" in out
    offers = offers_from(database, "https://github.com/dstackai/gpuhunt")
    found = {(o.gpu_id, o.price_type, o.region) for o in offers}
    assert found == {
        ("H100-SXM", "on_demand", "CA-MTL-1"),
        ("H100-SXM", "spot", "CA-MTL-1"),
        ("A100-PCIE-80GB", "on_demand", "EU-RO-1"),  # 80 GB from gpu_memory, PCIe from the name
        ("MI300X", "on_demand", "EU-RO-1"),
    }
    assert all(o.as_of == stamp for o in offers)


def test_malformed_gpuhunt_file_changes_nothing_and_names_the_line(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FIXTURES / "gpuhunt_malformed.csv"
    assert main(["prices", "import", str(path), "--provider", "runpod", "--as-of", "2026-11-01"]) == 1
    err = capsys.readouterr().err
    assert "line 4" in err and "price" in err and "nothing was changed" in err
    assert offers_from(database, "https://github.com/dstackai/gpuhunt") == []


def test_unknown_provider_rejects_whole_file(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "gpuhunt_runpod.csv"
    assert main(["prices", "import", str(path), "--as-of", "2026-11-01"]) == 2  # provider from the file name
    assert "--provider: unknown provider id 'gpuhunt_runpod'" in capsys.readouterr().err
    assert offers_from(database, "https://github.com/dstackai/gpuhunt") == []


def test_forced_format_that_does_not_match_is_rejected(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "gpuhunt_runpod.csv"
    assert main(["prices", "import", str(path), "--format", "skypilot", "--provider", "runpod"]) == 1
    assert "column" in capsys.readouterr().err


def test_unknown_header_is_rejected(database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    assert main(["prices", "import", str(path)]) == 1
    assert "line 1" in capsys.readouterr().err


def test_a_header_missing_a_column_names_the_file_and_the_column(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gpumatch file without usd_per_hour said "header line 1, field header: ... (columns not recognised)": neither
    the file nor the column it lacked."""
    path = tmp_path / "prices.csv"
    path.write_text("provider_id,gpu_id,gpu_count,price_type,usd_per_gpu_hour\nrunpod,H100-SXM,1,on_demand,2\n")
    assert main(["prices", "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "prices.csv line 1, field header" in err and "gpumatch file lacks usd_per_hour" in err


def test_format_detected_from_header() -> None:
    assert (
        detect_format(["InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region"])
        == "skypilot"
    )
    assert detect_format(["instance_name", "location", "price", "gpu_count", "gpu_name", "spot"]) == "gpuhunt"


def test_gpu_names_map_explicitly_and_unknown_ones_are_not_guessed() -> None:
    assert gpu_id("H100-MEGA", None, "a3-megagpu-8g") == "H100-SXM"
    assert gpu_id("A100", None, "p4d.24xlarge") == "A100-SXM-40GB"
    assert gpu_id("A100", 80, "x") == "A100-SXM-80GB"
    assert gpu_id("A10G", None, "g5.xlarge") == "A10G"
    assert gpu_id("A100-80GB", None, "Standard_NC24ads_A100_v4") == "A100-PCIE-80GB"  # Azure NC: PCIe cards
    assert gpu_id("H100", None, "Standard_NC40ads_H100_v5") == "H100-NVL"
    assert gpu_id("H100", None, "Standard_ND96isr_H100_v5") == "H100-SXM"
    assert gpu_id("V100", None, "p3.2xlarge") is None
    assert gpu_id("H100-80GB-ish", None, "x") is None


TOKEN = "test-admin-token-0123456789"


@pytest.fixture
def admin(fresh_url: str):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.conftest import settings_for

    with TestClient(create_app(settings_for(fresh_url, admin_token=TOKEN))) as client:
        yield client


def upload(admin, name: str, **params: str):  # type: ignore[no-untyped-def]
    return admin.post(
        "/api/v1/admin/offers/csv",
        params=params,
        content=(FIXTURES / name).read_bytes(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "text/csv"},
    )


def test_admin_csv_upload_imports_a_skypilot_file(admin) -> None:  # type: ignore[no-untyped-def]
    response = upload(admin, "skypilot/aws/vms.csv", provider="aws", as_of="2026-11-30")
    assert response.status_code == 200, response.text
    counts = response.json()
    assert counts["inserted"] + counts["updated"] + counts["unchanged"] == 5  # the seed may hold some already
    offers = [o for o in admin.get("/api/v1/offers").json() if o["instance_type"] == "p5.48xlarge"]
    assert {"on_demand", "spot"} <= {o["price_type"] for o in offers}


def test_repricing_a_catalog_offer_keeps_its_machine_and_notes(database: str) -> None:
    engine = make_engine(database)
    key = (Offer.instance_type == "p5.48xlarge", Offer.region == "us-east-1", Offer.price_type == "on_demand")
    with Session(engine) as session:
        before = session.exec(select(Offer).where(*key)).one()
    assert before.gpus_per_node == 8 and before.inter_node_fabric, "the seed describes the p5 machine"
    path = FIXTURES / "skypilot" / "aws" / "vms.csv"
    assert main(["prices", "import", str(path), "--as-of", "2026-11-30"]) == 0
    with Session(engine) as session:
        after = session.exec(select(Offer).where(*key)).one()
    assert after.as_of == date(2026, 11, 30) and after.source_url.startswith("https://github.com/skypilot-org")
    for name in ("gpus_per_node", "intra_node_link", "inter_node_fabric", "max_nodes", "price_note", "notes"):
        assert getattr(after, name) == getattr(before, name), name


def test_admin_csv_upload_needs_a_date_and_names_a_bad_line(admin) -> None:  # type: ignore[no-untyped-def]
    missing = upload(admin, "gpuhunt_runpod.csv", provider="runpod")
    assert missing.status_code == 422 and missing.json()["detail"][0]["field"] == "as_of"
    bad = upload(admin, "gpuhunt_malformed.csv", provider="runpod", as_of="2026-11-30")
    # the file's line in words, as the CLI's 'upload.csv line 4, field price' says it: "4.price" read as a JSON path
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "line 4, price"
    assert not [o for o in admin.get("/api/v1/offers").json() if o["region"] == "CA-MTL-1"]


def test_admin_csv_upload_without_token_is_refused(admin) -> None:  # type: ignore[no-untyped-def]
    response = admin.post("/api/v1/admin/offers/csv", content=b"a,b\n", headers={"Content-Type": "text/csv"})
    assert response.status_code == 401


@pytest.mark.parametrize(("option", "value"), [("provider", "lambda"), ("as_of", "2026-11-30")])
def test_admin_csv_upload_refuses_an_option_a_gpumatch_file_gives_per_row(admin, option, value) -> None:  # type: ignore[no-untyped-def]
    offers = "\n".join((Path(__file__).parents[1] / "seed_data" / "offers.csv").read_text().splitlines()[:2]) + "\n"
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "text/csv"}
    response = admin.post("/api/v1/admin/offers/csv", params={option: value}, content=offers, headers=headers)
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == option
    assert admin.post("/api/v1/admin/offers/csv", content=offers, headers=headers).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_admin_csv_upload_says_how_to_send_a_csv_when_the_content_type_is_wrong(admin, content_type) -> None:  # type: ignore[no-untyped-def]
    offers = (Path(__file__).parents[1] / "seed_data" / "offers.csv").read_bytes()
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": content_type}
    response = admin.post("/api/v1/admin/offers/csv", content=offers, headers=headers)
    assert response.status_code == 415
    [error] = response.json()["detail"]
    assert error["field"] == "content-type" and f"expects text/csv, not {content_type}" in error["message"]
    assert "--data-binary @offers.csv -H 'Content-Type: text/csv'" in error["message"]
    anonymous = admin.post("/api/v1/admin/offers/csv", content=offers, headers={"Content-Type": content_type})
    assert anonymous.status_code == 401  # the token is checked before anything about the body


def test_admin_csv_upload_takes_a_curl_file_upload_only_as_the_body(admin) -> None:  # type: ignore[no-untyped-def]
    offers = (Path(__file__).parents[1] / "seed_data" / "offers.csv").read_bytes()
    multipart = admin.post(
        "/api/v1/admin/offers/csv", files={"file": ("offers.csv", offers)}, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert multipart.status_code == 415 and "curl -F is not read" in multipart.json()["detail"][0]["message"]
    for content_type in ("text/csv; charset=utf-8", "text/plain"):
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": content_type}
        assert admin.post("/api/v1/admin/offers/csv", content=offers, headers=headers).status_code == 200


def test_an_unknown_provider_is_refused_at_the_option_naming_the_known_ones(database, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A gpuhunt file named export.csv was reported as 'line 2, field provider_id: unknown id export', every row's
    cell, though the provider came from the file name (the CLI's default) or the --provider option."""
    renamed = tmp_path / "export.csv"
    renamed.write_bytes((FIXTURES / "gpuhunt_runpod.csv").read_bytes())
    assert main(["prices", "import", str(renamed), "--as-of", "2026-11-30"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--provider: unknown provider id 'export', taken from the file's name or folder")
    assert "runpod" in err
    assert main(["prices", "import", str(renamed), "--as-of", "2026-11-30", "--provider", "runpd"]) == 2
    assert capsys.readouterr().err.startswith("--provider: unknown provider id 'runpd' (known: ")
    assert main(["prices", "import", str(renamed), "--as-of", "2026-11-30", "--provider", "runpod"]) == 0


def test_the_admin_upload_names_an_unknown_provider_at_its_parameter(admin) -> None:  # type: ignore[no-untyped-def]
    response = upload(admin, "gpuhunt_runpod.csv", provider="runpd", as_of="2026-11-30")
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == "provider" and error["message"].startswith("unknown provider id 'runpd' (known: ")


def test_a_file_whose_rows_name_their_provider_needs_no_provider_option(database, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    lines = (FIXTURES / "gpuhunt_runpod.csv").read_text().splitlines()
    named = tmp_path / "export.csv"
    named.write_text("\n".join([lines[0] + ",provider", *(line + ",runpod" for line in lines[1:])]) + "\n")
    assert main(["prices", "import", str(named), "--as-of", "2026-11-30"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [("--as-of", "2099-11-01", "as_of is in the future"), ("--source-url", "ftp://x", "must be an http(s) URL")],
)
def test_a_bad_option_is_named_at_the_option_not_at_line_2(database, capsys, flag, value, says) -> None:  # type: ignore[no-untyped-def]
    argv = ["prices", "import", str(FIXTURES / "gpuhunt_runpod.csv"), "--provider", "runpod", "--as-of", "2026-11-01"]
    argv += [flag, value]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"{flag}: {says}\n"
