"""Every command's `--help` prints and exits 0: argparse formats help with %, and a field description's own %
(own's resale_pct, "% of the price") crashed `gpumatch own --help` with a TypeError."""

from __future__ import annotations

import argparse
import shlex

import pytest

from app.cli.examples import EXAMPLES, leaf_commands
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


LEAVES = leaf_commands(build_parser())


def test_every_runnable_command_has_examples():
    """A newcomer copies an example from --help; a new command without one fails here."""
    assert set(LEAVES) == set(EXAMPLES), "add the command's examples to app/cli/examples.py"


@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=" ".join)
def test_help_shows_what_the_command_does_and_an_example_that_parses(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*command, "--help"])
    out = capsys.readouterr().out
    assert out.split("\n\n")[1].strip(), "the line under usage says what the command does"
    for example in EXAMPLES[command]:
        assert f"  {example}\n" in out
        argv = shlex.split(example)[1:]
        assert tuple(argv[: len(command)]) == command
        build_parser().parse_args(argv)  # exits 2 (SystemExit) on a flag the command no longer takes


@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=" ".join)
def test_every_flag_says_what_it_is(command: tuple[str, ...]) -> None:
    unexplained = [a.option_strings or [a.dest] for a in LEAVES[command]._actions if not a.help]
    assert unexplained == []


def test_mix_takes_include_stale_as_a_bare_switch_as_every_command_does():
    args = build_parser().parse_args(["mix", "--include-stale"])
    assert args.include_stale == "true"


@pytest.mark.parametrize("command", [("plan", "serving"), ("plan", "lifecycle"), ("disagg",)], ids=" ".join)
def test_spot_only_is_a_bare_switch_that_still_takes_its_old_value(command, capsys):
    """`--spot-only` took a value (`--spot-only true`) while every other switch is bare; `disagg` lacked it. The
    bare switch reads true, and the old form still parses, so no script breaks (found by leftovers7)."""
    parser = build_parser()
    assert parser.parse_args([*command, "--spot-only"]).spot_only == "true"
    assert parser.parse_args([*command, "--spot-only", "true", "--json"]).spot_only == "true"
    assert parser.parse_args([*command, "--spot-only", "false"]).spot_only == "false"
    assert parser.parse_args(list(command)).spot_only is None
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--help"])
    assert "--spot-only [true|false]" in capsys.readouterr().out.replace("\n", " ")
