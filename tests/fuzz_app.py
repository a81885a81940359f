"""The app and OpenAPI schema the API fuzzing runs against (tests/test_fuzz_api.py), shared with the quick
checks of that setup (tests/test_fuzz_setup.py), which run without building the fuzz tests themselves.

A file-based SQLite database (threads of the ASGI client share it), admin API enabled so its
operation is in the schema.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis

from app.main import create_app
from tests.conftest import make_database, settings_for

ADMIN_TOKEN = "fuzz-admin-token-0123456789"


def _fuzz_app():  # type: ignore[no-untyped-def]
    # Built at import: schemathesis needs the schema at collection time (its from_fixture fails on pytest 9).
    url = make_database(Path(tempfile.mkdtemp(prefix="gpumatch-fuzz-")))
    return create_app(settings_for(url, admin_token=ADMIN_TOKEN))


APP = _fuzz_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
