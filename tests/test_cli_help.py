"""Every command's `--help` prints and exits 0: argparse formats help with %, and a field description's own %
(own's resale_pct, "% of the price") crashed `gpumatch own --help` with a TypeError."""

from __future__ import annotations

import argparse

import pytest

from app.cli.main import build_parser


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(build_parser())


def test_every_command_is_walked():
    assert ("own",) in COMMANDS and ("rank", "inference") in COMMANDS and len(COMMANDS) > 15


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_prints(command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*command, "--help"])
    assert done.value.code == 0
    assert "usage: gpumatch" in capsys.readouterr().out
