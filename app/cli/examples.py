"""An example or two at the foot of every command's --help: a newcomer copies a line that works, not a usage
line of forty flags. tests/test_cli_help.py parses each example, so one that no longer runs fails there."""

from __future__ import annotations

import argparse

EXAMPLES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("serve",): ("gpumatch serve --port 8000", "gpumatch serve --workers 4 --behind-proxy"),
    ("db",): ("gpumatch db upgrade", "gpumatch db seed", "gpumatch db check"),
    ("validate",): ("gpumatch validate ../shared/validation/inference_cases.csv --summary-only",),
    ("accuracy-report",): ("gpumatch accuracy-report ../shared/validation --out docs/ACCURACY.md",),
    ("device-check",): ("gpumatch device-check docs/measurements/h200-2026-12-04.json --json",),
    ("rank", "inference"): (
        "gpumatch rank inference --model llama-3.1-70b --input-len 2000 --output-len 400 --ttft-ms 1000 --tpot-ms 50",
        "gpumatch rank inference --model llama-3.1-8b --scenario max_throughput --job-requests 1000000"
        " --job-deadline-hours 2",
    ),
    ("rank", "training"): (
        "gpumatch rank training --model llama-3.1-8b --method lora --total-tokens 2e9 --sort=-mfu --limit 5",
    ),
    ("plan", "serving"): ("gpumatch plan serving --model llama-3.1-70b --requests-per-day 500000 --profile diurnal",),
    ("plan", "lifecycle"): (
        "gpumatch plan lifecycle --model llama-3.1-8b --train-method lora --requests-per-day 200000 --months 12",
    ),
    ("precision",): ("gpumatch precision --model llama-3.1-70b --tpot-ms 40 --gpus H100-SXM,B200",),
    ("own",): ("gpumatch own --gpu H100-SXM --gpu-count 8 --utilisation-pct 60 --pue 1.3 --usd-per-kwh 0.09",),
    ("disagg",): (
        "gpumatch disagg --model llama-3.1-70b --weight-dtype fp8 --input-len 32000 --output-len 1000"
        " --ttft-ms 2000 --tpot-ms 40",
    ),
    ("mix",): (
        "gpumatch mix --model llama-3.1-70b --weight-dtype fp8 --requests-per-day 200000 --mix chat:0.7,rag:0.3",
    ),
    ("prices", "import"): (
        "gpumatch prices import seed_data/offers.csv",
        "gpumatch prices import vms.csv --format skypilot --provider aws --as-of 2026-12-01",
    ),
    ("catalog", "gpus"): ("gpumatch catalog gpus --vendor AMD --sort memory",),
    ("catalog", "offers"): (
        "gpumatch catalog offers H100-SXM --price-type on_demand --min-gpus 8 --sort date",
        "gpumatch catalog offers H100-SXM --provider lambda --json",
    ),
    ("catalog", "models"): ("gpumatch catalog models --kind moe --min-params-b 100 --sort params",),
    ("catalog", "providers"): ("gpumatch catalog providers --sells gpu_offers --sort h100_price",),
}


EXAMPLES_HEAD = "examples:\n"


class ExamplesAsWritten(argparse.HelpFormatter):
    """Wraps the description as argparse does, but prints the examples line by line, as they are copied."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return text if text.startswith(EXAMPLES_HEAD) else super()._fill_text(text, width, indent)


Commands = dict[tuple[str, ...], argparse.ArgumentParser]


def leaf_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Commands:
    """Every command that runs something (one without subcommands of its own), by its path: ("rank", "training")."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        return {path: parser}
    found: Commands = {}
    for action in subparsers:
        for name, sub in action.choices.items():
            found |= leaf_commands(sub, (*path, name))
    return found


def _describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """A subcommand's one-line help from its parent's list, as the top of its own --help (argparse shows `help=`
    only in the parent's list, so `gpumatch own --help` began at its usage line, saying nothing of what it does)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                sub.description = sub.description or helps.get(name)
                _describe_subcommands(sub)


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Each leaf command's examples as its --help epilog, printed as written (not re-wrapped)."""
    _describe_subcommands(parser)
    for path, command in leaf_commands(parser).items():
        lines = EXAMPLES.get(path, ())
        command.epilog = EXAMPLES_HEAD + "\n".join(f"  {line}" for line in lines) if lines else None
        command.formatter_class = ExamplesAsWritten
