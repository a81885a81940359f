"""`gpumatch precision` and `gpumatch own`: tables, JSON and flag errors on a fresh seeded database."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from app.config import get_settings


@pytest.fixture
def database(fresh_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("GPUMATCH_DATABASE_URL", fresh_url)
    get_settings.cache_clear()
    yield fresh_url
    get_settings.cache_clear()


def test_precision_command_prints_every_precision_and_its_quality_sources(database, capsys):
    assert main(["precision", "--model", "llama-3.1-70b", "--tpot-ms", "50"]) == 0
    out = capsys.readouterr().out
    for label in ("BF16", "FP8 W8A8", "INT4 weight-only", "FP8 KV cache"):
        assert label in out
    assert "quality source: https://" in out and "share: /precision?model=llama-3.1-70b" in out
    assert main(["precision", "--model", "llama-3.1-70b", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["rows"]) == 5


def test_precision_command_names_a_bad_flag(database, capsys):
    assert main(["precision", "--model", "llama-3.1-70b", "--input-len", "0"]) == 2
    assert "--input-len" in capsys.readouterr().err
