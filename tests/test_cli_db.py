"""`gpumatch db check`: an operator's question ("is this database at head, do models and migrations agree?") answered
in one line and an exit status, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.main import main
from app.config import get_settings


def main_on_database(url: str, command: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """The CLI's exit status for `command` with GPUMATCH_DATABASE_URL at `url` (settings read afresh, then reset)."""
    monkeypatch.setenv("GPUMATCH_DATABASE_URL", url)
    get_settings.cache_clear()
    try:
        return main(command)
    finally:
        get_settings.cache_clear()


def test_db_check_on_a_database_not_at_head_says_so_and_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh file (or one behind the migrations) raised alembic's CommandError as a 40-line traceback."""
    assert main_on_database(f"sqlite:///{tmp_path / 'empty.db'}", ["db", "check"], monkeypatch) == 1
    err = capsys.readouterr().err
    assert "db check: Target database is not up to date" in err and "gpumatch db upgrade" in err
    assert "Traceback" not in err


def test_db_check_on_a_seeded_database_passes(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "check"]) == 0
    assert "models and migrations agree" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["db", "check"], ["db", "upgrade"], ["prices", "import", __file__]])
def test_a_database_server_that_refuses_is_one_line_naming_the_reason(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command opening an unreachable database printed a psycopg traceback."""
    pytest.importorskip("psycopg")
    refused = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # port 1: refused
    assert main_on_database(refused, command, monkeypatch) == 1
    err = capsys.readouterr().err
    assert err.startswith("gpumatch: cannot open the database at GPUMATCH_DATABASE_URL: connection failed")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("not a url", "not a database URL (e.g. sqlite:///var/gpumatch.db"),
        ("", "not a database URL"),
        ("nosuchdb://user:secret@host/db", "no such database dialect: Can't load plugin: sqlalchemy.dialects:nosuchdb"),
        ("oracle+cx_oracle://user:secret@host/db", "its driver is not installed: no module named 'cx_Oracle'"),
    ],
)
@pytest.mark.parametrize("command", [["db", "check"], ["own", "--gpu", "H100-SXM"], ["rank", "inference"]])
def test_a_database_url_sqlalchemy_cannot_read_is_one_line_not_naming_the_password(
    url: str, reason: str, command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in GPUMATCH_DATABASE_URL, or a driver not installed, was a SQLAlchemy traceback (found by qa20)."""
    assert main_on_database(url, command, monkeypatch) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gpumatch: GPUMATCH_DATABASE_URL: {reason}") and len(err.splitlines()) == 1
    assert "secret" not in err
