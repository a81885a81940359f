"""Quick checks of what the API fuzzing (tests/test_fuzz_api.py, slow) runs against."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz_app import APP, schema


def test_every_operation_is_fuzzed() -> None:
    paths = set(schema.raw_schema["paths"])
    assert "/api/v1/admin/offers" in paths and "/api/v1/offers/{offer_id}/history" in paths and "/share" in paths
    assert all(p.startswith("/api/") or p in ("/healthz", "/readyz", "/share") for p in paths)


def test_database_is_a_file() -> None:
    url = APP.state.settings.database_url
    if not url.startswith("sqlite"):
        pytest.skip("this run uses the test Postgres (GPUMATCH_TEST_DATABASE_URL)")
    assert Path(url.removeprefix("sqlite:///")).is_file()
