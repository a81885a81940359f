"""What every `gpumatch` subcommand shares: a migrated, seeded catalog and flag-style error messages."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from app.config import get_settings
from app.scoring.input_checks.messages import FieldError, error_location, error_message
from app.service.query.form_numbers import FREE_TEXT, as_typed_number

if TYPE_CHECKING:
    from sqlmodel import Session

    from app.scoring.specs import CatalogSnapshot
    from app.service.query.phase import QuestionKind


def setup_database(database_url: str, seed_dir: object, quiet: bool = False) -> bool:
    """Migrate to head and load the seed; True when every seed file loaded."""
    from app.catalog.setup import migrate, seed
    from app.catalog.setup.setup_lock import setup_lock
    from app.db import make_engine

    with setup_lock(database_url):  # two commands on a fresh database must not both migrate it
        migrate.upgrade(database_url)
        engine = make_engine(database_url)
        reports = seed.seed(engine, seed_dir)  # type: ignore[arg-type]
        engine.dispose()
    ok = True
    for report in reports:
        for error in report.errors:
            ok = False
            print(f"seed error: {error} (nothing from {report.file} was loaded)", file=sys.stderr)
        if not quiet and not report.errors:
            print(report.describe())
    return ok


@contextmanager
def catalog_session() -> Iterator[tuple[Session, CatalogSnapshot]]:
    """The catalog the app serves, migrated and seeded if needed: a session on it and the snapshot read from it."""
    from sqlmodel import Session

    from app.catalog.snapshot import load_snapshot as read
    from app.db import make_engine

    settings = get_settings()
    setup_database(settings.database_url, settings.seed_dir, quiet=True)
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as session:
            yield session, read(session, settings.stale_after_days)
    finally:
        engine.dispose()


def load_snapshot() -> CatalogSnapshot:
    """The catalog the app ranks with: migrated and seeded if needed, then read into memory."""
    with catalog_session() as (_, snapshot):
        return snapshot


HF_CONFIG_HELP = (
    "path of a Hugging Face config.json to {use} instead of a catalog model (its architecture and, where it has one, "
    "its quantization_config's release precision), as the API's hf_config and the form's pasted config.json"
)


def add_hf_config_flag(parser: argparse.ArgumentParser, use: str = "rank") -> None:
    """--hf-config PATH, read by read_hf_config; `use` says what the command does with the model."""
    parser.add_argument("--hf-config", metavar="PATH", help=HF_CONFIG_HELP.format(use=use))


def read_hf_config(values: dict[str, Any], path: str | None) -> bool:
    """`values` given the --hf-config file's JSON object as hf_config (strict: repeated keys and non-finite numbers
    refused, as the API refuses them); False, the flag and the reason printed, where the file cannot be read as one."""
    from pathlib import Path

    from app.scoring.input_checks import strict_json

    if path is None:
        return True
    try:
        config = strict_json.loads(Path(path).read_bytes())
    except OSError as exc:
        problem = f"could not read {path}: {exc.strerror or exc}"
    except ValueError as exc:  # json.JSONDecodeError and strict_json.UnreadableJson are both ValueErrors
        problem = f"{path} is not a readable config.json: {exc}"
    else:
        if isinstance(config, dict):
            values["hf_config"] = config
            return True
        problem = f"{path} holds a JSON {type(config).__name__}, not a config.json object"
    print(f"--hf-config: {problem}", file=sys.stderr)
    return False


def flag_values(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The flags the user gave, by field name (those left out keep the model's defaults); a number typed as the pages
    take it (`1e3`, `500,000`) reads as its digits there too (form_numbers), so --input-len 1e3 is 1000."""
    return {n: typed_flag(n, getattr(args, n)) for n in names if getattr(args, n, None) is not None}


def typed_flag(name: str, value: Any) -> Any:
    """A flag's text with a number read as the pages read one (`1e3` and `1,000` are 1000); anything else as given."""
    return as_typed_number(value.strip()) if isinstance(value, str) and name not in FREE_TEXT else value


LIST_FIELDS = frozenset({"providers", "price_types", "gpus", "vendors"})  # comma-separated on the command line


def field_help(description: str | None, default: object) -> str:
    """A workload field's --help: its description and, where it has one, its default."""
    # "unset: ..." says what an unset field means (weight_dtype: the model's release precision), not the model's default
    stated = default is not None and default is not PydanticUndefined and not (description or "").startswith("unset:")
    if description and stated:
        return f"{description} (default {default})"
    return description or (f"default {default}" if stated else "")


def help_text(text: str | None) -> str | None:
    """A field's description as argparse help: argparse formats help with %, so a description's own % (resale_pct:
    "% of the price") is doubled, or `--help` raised TypeError."""
    return text.replace("%", "%%") if text else text


def _comma_list(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def add_field_flags(
    parser: argparse.ArgumentParser, model: type[BaseModel], names: Iterable[str], prefix: str = ""
) -> None:
    """`--flag-name` per field of `model`, as `gpumatch rank` reads a workload: the offer filters comma-separated
    (`--gpus GB200,B200`), a bool as a switch (`--include-stale`), anything else one value; each with its help.
    With a `prefix` (plan lifecycle's `train_`) the flag and its dest carry it: --train-method, args.train_method."""
    for name in names:
        info, dest = model.model_fields[name], prefix + name
        flag = "--" + dest.replace("_", "-")
        if name in LIST_FIELDS:
            text = f"{info.description}; comma-separated" if info.description else "comma-separated"
            parser.add_argument(flag, dest=dest, type=_comma_list, help=help_text(text))
        elif info.annotation is bool:
            parser.add_argument(flag, dest=dest, action="store_const", const=True, help=help_text(info.description))
        else:
            parser.add_argument(flag, dest=dest, help=help_text(field_help(info.description, info.default)))


def add_switch(parser: argparse.ArgumentParser, flag: str, dest: str, text: str | None) -> None:
    """A bool field as a bare switch (`--spot-only` reads "true") that still takes the value it once required
    (`--spot-only true`, `--spot-only false`), so a script written for the old form keeps working."""
    said = f"{text}; a bare switch (true or false after it is read too)" if text else "a bare switch"
    parser.add_argument(flag, dest=dest, nargs="?", const="true", metavar="true|false", help=help_text(said))


def add_flags(
    parser: argparse.ArgumentParser,
    helps: dict[str, str | None],
    api: str,
    func: Callable[[argparse.Namespace], int],
    switches: Iterable[str] = (),
) -> None:
    """`--flag-name` per field (with its help text), `--json` for the `api` API's JSON, and the command. A field
    in `switches` (a bool) is a bare switch, `--include-stale`, read as "true" (mix took `--include-stale true`
    and refused the bare switch the README and the other commands use)."""
    for name, text in helps.items():
        flag = "--" + name.replace("_", "-")
        if name in switches:
            add_switch(parser, flag, name, text)
        else:
            parser.add_argument(flag, dest=name, help=help_text(text))
    parser.add_argument("--json", action="store_true", help=f"print the {api} API's JSON")
    parser.set_defaults(func=func)


TEXT_ROWS = 15  # rows a table prints when --limit is not given (its --json then gives every option, as the API)


def row_limit(text: str) -> int:
    """`--limit`'s type: a whole number of rows, at least 1, as the API's `limit` (0 printed a bare header and -5
    every row but the last five); argparse names the flag and exits 2."""
    try:
        value = int(as_typed_number(text.strip()))  # 1e2 as the pages and the API's ?limit= read it
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of rows, at least 1, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1 row, not {value}")
    return value


def add_limit_flag(parser: argparse.ArgumentParser, what: str, json_default: str = "every one, as the API") -> None:
    parser.add_argument(
        "--limit",
        type=row_limit,
        help=f"the best N {what}: the rows printed (default {TEXT_ROWS}), and those --json gives (default "
        f"{json_default})",
    )


def print_field_error(field: str, message: object) -> int:
    """One rejected field (a request's, maybe prefixed: workload.input_len) as `--flag-name: message` on stderr;
    exit status 2."""
    print(f"--{field.rsplit('.', 1)[-1].replace('_', '-')}: {message}", file=sys.stderr)
    return 2


def print_flag_errors(
    exc: Any,
    flag_of: Callable[[str], str] = lambda field: field,
    typed: Mapping[str, object] | None = None,
    kind: QuestionKind = "serving",
    refused_before: Collection[str] = (),
) -> int:
    """A pydantic ValidationError as `--flag-name: message` lines on stderr (a bare line for an error that names
    no field), then the `typed` flags' unknown catalog ids and model checks (print_unknown_ids; `refused_before`:
    fields already refused, not read); exit status 2. `flag_of` maps a field to its flag's name (plan lifecycle's
    `train_` flags)."""
    wrong = {".".join(error_location(e)) for e in exc.errors()} | set(refused_before)
    found = question_errors(typed, wrong, kind) if typed is not None else {}
    for error in exc.errors():
        loc = [part for part in error_location(error) if not part.isdigit()]  # a list item's index is no flag
        loc[:1] = [flag_of(part) for part in loc[:1]]
        flag = f"--{'-'.join(loc).replace('_', '-')}: " if loc else ""
        # a name typed as an id (`--model "Llama 3.1 70B"`) is said in catalog terms, in its shape error's place
        print(f"{flag}{found.pop('.'.join(error_location(error)), None) or error_message(error)}", file=sys.stderr)
    for field, message in found.items():
        print_field_error(flag_of(field), message)
    return 2


def also_refused(
    values: dict[str, Any], model: type[BaseModel], refused: Collection[str], kind: QuestionKind = "serving"
) -> int | None:
    """Where flags were refused before the question was read (`refused`: their fields, already printed: an --hf-config
    file that cannot be read, a --sort the phase lacks), the question's own errors in the same run, not the next:
    its flags' shape, unknown ids and model checks. 2, or None where nothing was refused."""
    from pydantic import ValidationError

    if not refused:
        return None
    try:
        model.model_validate(values)
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values, kind=kind, refused_before=refused)
    print_unknown_ids(values, refused, lambda field: field, kind)
    return 2


def print_unknown_ids(
    typed: Mapping[str, object],
    wrong: Collection[str],
    flag_of: Callable[[str], str],
    kind: QuestionKind = "serving",
) -> None:
    """The catalog ids the flags name that the catalog lacks, and what the model and GPUs they name refuse (a length
    beyond the context, ep on a dense model; an owned GPU's inputs without a sourced default), said beside the flags
    refused on their shape (`wrong`, not read again) rather than only once those are fixed."""
    for field, message in question_errors(typed, wrong, kind).items():
        print_field_error(flag_of(field), message)


def question_errors(typed: Mapping[str, object], wrong: Collection[str], kind: QuestionKind) -> dict[str, str]:
    """typed_question_errors on the catalog: unknown ids, names typed as ids (at their shape error's field), and the
    model checks of the flags not refused."""
    from app.service.typed_model_checks import typed_question_errors

    return typed_question_errors(typed, load_snapshot(), wrong, {"": kind})


def print_field_errors(exc: FieldError, flag_of: Callable[[str], str] = lambda field: field) -> int:
    """Each field a service rejected (an unknown model, GPU ids, …) as `--flag-name: message`, once; exit status 2."""
    # plan lifecycle's training.hf_config and inference.hf_config are one --hf-config: say its problem once
    for field, message in dict.fromkeys((flag_of(f), str(m)) for f, m in exc.errors.items()):
        print_field_error(field, message)
    return 2


def emit(body: dict[str, Any], as_json: bool, print_text: Callable[[dict[str, Any]], None]) -> int:
    """A report's JSON (`--json`) or its text form followed by its share link; exit status 0."""
    if as_json:
        print(json.dumps(body, indent=2, default=str))
        return 0
    print_text(body)
    print(f"\nshare: {body['share_url']}")
    return 0
