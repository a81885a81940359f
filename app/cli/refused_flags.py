"""Flags a command refuses with the reason its page gives, not argparse's bare "unrecognized arguments": `gpumatch plan
lifecycle --train-expert-parallel 2` said only that, where /plan says why a training run takes no expert_parallel."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import Any

REFUSED = "refused_flags"  # the namespace's {flag: why} for the refused flags given


class _Refused(argparse.Action):
    """Records the flag and why it is refused, with or without a value after it (`--batch 8`, `--batch`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, reason: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kwargs)
        self.reason = reason

    def __call__(
        self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: str | None = None
    ) -> None:
        refused = dict(getattr(namespace, REFUSED, None) or {})
        refused[option_string or self.option_strings[0]] = self.reason
        setattr(namespace, REFUSED, refused)


def add_refused_flags(parser: argparse.ArgumentParser, reasons: Mapping[str, str], command: str) -> None:
    """A hidden `--flag-name` per field in `reasons` ({field: why the page refuses it}) that the command refuses,
    saying why."""
    parser.set_defaults(**{REFUSED: None})
    for name, why in reasons.items():
        flag = "--" + name.replace("_", "-")
        parser.add_argument(flag, dest=f"refused_{name}", action=_Refused, reason=f"not a flag of `{command}`: {why}")


def print_refused(args: argparse.Namespace) -> bool:
    """`--flag: why` on stderr for each refused flag given; whether there was any."""
    refused: dict[str, str] = getattr(args, REFUSED, None) or {}
    for flag, why in refused.items():
        print(f"{flag}: {why}", file=sys.stderr)
    return bool(refused)
