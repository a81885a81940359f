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


def test_own_command_prints_inputs_terms_and_the_break_even(database, capsys):
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--utilisation-pct", "60"]) == 0
    out = capsys.readouterr().out
    assert "break-even months at this utilisation:" in out and "never" not in out.split("break-even months")[1][:40]
    assert "colocation_usd_per_kw_month" in out and "share: /own?gpu=H100-SXM" in out
    assert main(["own", "--pue", "1.2", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert next(i for i in body["inputs"] if i["name"] == "pue")["overridden"]


def test_own_command_names_the_input_without_a_sourced_default(database, capsys):
    assert main(["own", "--gpu", "B200"]) == 2
    assert "--purchase-usd-per-server" in capsys.readouterr().err
