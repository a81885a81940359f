"""Schemathesis over every /api/v1 operation: no 5xx, and every documented response matches its schema.

A file-based SQLite database (threads of the ASGI client share it), admin API enabled so its
operation is in the schema; each operation runs with the admin token, and the admin ones also without it. Derandomized
and bounded (25 examples per operation) so CI is stable and quick.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance

from app.main import create_app
from tests.conftest import make_database, settings_for

ADMIN_TOKEN = "fuzz-admin-token-0123456789"
CHECKS = [not_a_server_error, response_schema_conformance]


def _fuzz_app():  # type: ignore[no-untyped-def]
    # Built at import: schemathesis needs the schema at collection time (its from_fixture fails on pytest 9).
    url = make_database(Path(tempfile.mkdtemp(prefix="gpumatch-fuzz-")))
    return create_app(settings_for(url, admin_token=ADMIN_TOKEN))


APP = _fuzz_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
FUZZ = settings(
    max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.mark.slow
@schema.parametrize()
@FUZZ
def test_api_with_admin_token(case) -> None:  # type: ignore[no-untyped-def]
    case.call_and_validate(headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, checks=CHECKS)


@pytest.mark.slow
@schema.include(path_regex="/admin/").parametrize()  # only the admin API reads the token
@FUZZ
def test_admin_api_without_token(case) -> None:  # type: ignore[no-untyped-def]
    case.call_and_validate(checks=CHECKS)


def test_every_operation_is_fuzzed() -> None:
    paths = set(schema.raw_schema["paths"])
    assert "/api/v1/admin/offers" in paths and "/api/v1/offers/{offer_id}/history" in paths
    assert all(p.startswith("/api/") or p in ("/healthz", "/readyz") for p in paths)


def test_database_is_a_file() -> None:
    url = APP.state.settings.database_url
    if not url.startswith("sqlite"):
        pytest.skip("this run uses the test Postgres (GPUMATCH_TEST_DATABASE_URL)")
    assert Path(url.removeprefix("sqlite:///")).is_file()
