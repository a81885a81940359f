"""Pydantic's error messages as a person reads them: the message without pydantic's "Value error, " prefix."""

from __future__ import annotations

from typing import Any


def error_message(error: Any) -> str:
    """The text of one pydantic error (a dict from ValidationError.errors())."""
    return str(error["msg"]).removeprefix("Value error, ")
