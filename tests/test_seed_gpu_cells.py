"""The audit of every numeric cell scripts/build_seed_specs.py reads from reference/gpus.csv: a number comes only
from the figure a cell opens with, and a range, a conflict or an unknown annotation is flagged, never read as
the first number found in its words (B300 INT8 was 300 TOPS, read from the string "B300")."""

from __future__ import annotations

import csv
import importlib
import re

import pytest

from tests.conftest import SEED_DIR

REFERENCE = SEED_DIR.parent.parent / "shared" / "reference"
builder = importlib.import_module("scripts.build_seed_specs")
PARSED = (
    "memory_gb",
    "memory_bandwidth_tbs",
    *builder.GPU_NUMERIC.values(),
    "interconnect_gbs_bidir",
    "pcie_gen",
    "tdp_w",
    "release_year",
)
PLAIN = re.compile(r"\d+(\.\d+)?")


def _cells() -> list[tuple[str, str, str]]:
    with open(REFERENCE / "gpus.csv", encoding="utf-8") as handle:
        return [(row["id"], column, row[column].strip()) for row in csv.DictReader(handle) for column in PARSED]


needs_reference = pytest.mark.skipif(not (REFERENCE / "gpus.csv").exists(), reason="no shared reference")


@pytest.mark.parametrize(
    ("cell", "parsed"),
    [
        (
            "CONFLICTING (NVIDIA HGX B300 table: 2 POPS sparse per 8 GPUs => ~125 TOPS dense/GPU; "
            "ml-engineering lists 4500)",
            ("", "unverified"),
        ),
        ("450-1000 (whole superchip, configurable)", ("", "unverified")),
        ("1100-1400 (UNVERIFIED)", ("", "unverified")),
        ("~13500 (CONFLICTING: 108 PF dense/8 per HGX page; ml-eng 12600 fp4 / 15000 nvfp4)", ("13500", "unverified")),
        ("~1200 (UNVERIFIED; per-GPU share of superchip)", ("1200", "unverified")),
        ("~504 (derived)", ("504", "derived")),
        ("190 (cFP8)", ("190", "")),
        ("192 (GiB)", ("206.2", "derived")),
        ("not published", ("", "unverified")),
        ("989.5", ("989.5", "")),
    ],
)
def test_a_cell_gives_only_its_leading_figure_and_flags_doubt(cell, parsed):
    assert builder.number(cell) == parsed


@needs_reference
def test_every_parsed_reference_cell_gives_its_leading_figure_or_none_and_flags_the_rest():
    for gpu, column, cell in _cells():
        value, status = builder.number(cell)
        where = f"{gpu}.{column}: {cell!r} -> {value!r} {status!r}"
        if not cell or PLAIN.fullmatch(cell) or cell.lower() == "n/a":
            assert (value, status) == ((cell, "") if cell.lower() != "n/a" else ("", "n/a")), where
            continue
        opening = re.match(r"~?\s*(\d+(?:\.\d+)?)", cell)
        if value:  # a number only from the figure the cell opens with (a GiB cell converted to GB)
            assert opening is not None, where
            assert value == opening.group(1) or cell.endswith("(GiB)"), where
        if opening is None or re.match(r"~?\s*\d+(\.\d+)?\s*[-–]", cell):  # words first, or a range
            assert value == "" and status == "unverified", where
        if "CONFLICT" in cell.upper() or "UNVERIFIED" in cell.upper():
            assert status == "unverified", where
        annotation = cell[opening.end() :].strip() if opening else cell
        if annotation not in builder.PLAIN_ANNOTATIONS:
            assert status, where  # every other annotated cell is flagged


@needs_reference
def test_committed_gpu_seed_is_the_builders_output(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    with open(SEED_DIR / "gpus.csv", encoding="utf-8") as handle:
        seeded = list(csv.DictReader(handle))
    assert seeded == builder.build_gpus()
    b300 = next(row for row in seeded if row["id"] == "B300")
    assert b300["int8_tops"] == "" and "int8_tops:unverified" in b300["unverified_fields"]
    gh200 = next(row for row in seeded if row["id"] == "GH200")
    assert gh200["tdp_w"] == "" and "tdp_w:unverified" in gh200["unverified_fields"]
    assert "tdp_w: 450-1000 (whole superchip, configurable)" in gh200["notes"]


def test_gpu_page_shows_no_range_as_a_figure_and_flags_it(client):
    page = client.get("/gpus/GH200").text
    assert "450 W" not in page and "tdp_w: 450-1000 (whole superchip, configurable)" in page
    b300 = client.get("/api/v1/gpus/B300").json()
    assert b300["int8_tops"] is None and "int8_tops:unverified" in b300["unverified_fields"]


@needs_reference
def test_gpus_page_lists_the_reference_rows_the_build_left_out_and_why(client, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    left_out: list[dict[str, str]] = []
    builder.build_gpus(left_out)
    with open(SEED_DIR / builder.LEFT_OUT_FILE, encoding="utf-8") as handle:
        assert list(csv.DictReader(handle)) == left_out  # the committed record is the build's
    assert [row["id"] for row in left_out] == ["TPU-V7"]
    page = client.get("/gpus").text
    assert "TPU7x (Ironwood)" in page and "memory_bandwidth_tbs not published in the reference" in page
