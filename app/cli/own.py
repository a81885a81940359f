"""`gpumatch own`: owning N GPU servers against renting them, every input a flag (empty = sourced default)."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from pydantic import ValidationError

from app.cli.tables.writer import rounded
from app.scoring.explain import fixed, significant
from app.scoring.serving.ownership.question import OwnershipQuestion


def _figure(value: float) -> str:
    """An input as a person writes it, to 4 decimals: 317000.0 -> '317,000' (not 3.17e+05), 0.1282 -> '0.1282'."""
    return f"{significant(round(value, 4), 12)}"


NOTE_WIDTH = 100  # a source's footnote wraps here, as a terminal shows it


def _sourced_rows(inputs: list[dict[str, Any]]) -> tuple[list[list[str]], list[str]]:
    """The inputs table's rows, each default's source a footnote mark (`[1]`), and the footnotes: the rental's
    source (which offer, and a cheaper one in another size) ran the table to ~350 characters wide."""
    marks: dict[tuple[str, str], int] = {}
    rows = []
    for i in inputs:
        origin, as_of = ("your value" if i["overridden"] else "–"), i["as_of"]
        if not i["overridden"] and i["source"]:
            origin = f"[{marks.setdefault((i['source'], i['source_url']), len(marks) + 1)}]"
            as_of = as_of or ("undated" if i["source_url"] else "–")
        rows.append([i["name"], _figure(i["value"]), i["unit"], origin, as_of])
    return rows, [_source_note(n, text, url) for (text, url), n in marks.items()]


def _source_note(mark: int, text: str, url: str) -> str:
    """A default's footnote: what it is, then where it was read (the page links it), the URL whole on its own line."""
    note = textwrap.fill(f"[{mark}] {text}", NOTE_WIDTH, subsequent_indent="    ")
    return f"{note}\n    {url}" if url else note


def _print(body: dict[str, Any]) -> None:
    from app.cli.tables.writer import table

    q = body["question"]
    print(f"{q['gpu_count']}× {body['gpu_name']} at {significant(q['utilisation_pct'])}% utilisation")
    inputs, sources = _sourced_rows(body["inputs"])
    print(table(["input", "value", "unit", "from", "as of"], inputs))
    print("\n".join(sources))
    print()
    terms, hows = _term_rows(body["terms"], first_mark=len(sources) + 1)
    print(table(["term", "value", "unit", "how"], terms))
    print("\n".join(hows))
    months = body["break_even_months"]
    share = body["break_even_utilisation_pct"]
    print(f"\nbreak-even utilisation: {'none' if share is None else f'{fixed(share, 1)}%'}")
    print(f"break-even months at this utilisation: {'never' if months is None else f'{fixed(months, 1)}'}")
    for note in body["notes"]:
        print(textwrap.fill(note, NOTE_WIDTH, subsequent_indent="  "))


def _term_rows(terms: list[dict[str, Any]], first_mark: int) -> tuple[list[list[str]], list[str]]:
    """The terms table's rows, each term's working a footnote mark numbered on from the inputs' (`[10]`), and the
    footnotes: the working in the table ran it to ~135 characters wide."""
    rows, notes = [], []
    for n, t in enumerate(terms, start=first_mark):
        rows.append([t["name"], rounded(t["value"], 2), t["unit"], f"[{n}]" if t["detail"] else "–"])
        if t["detail"]:
            notes.append(textwrap.fill(f"[{n}] {t['detail']}", NOTE_WIDTH, subsequent_indent="    "))
    return rows, notes


def cmd_own(args: argparse.Namespace) -> int:
    from app.cli.common import emit, flag_values, load_snapshot, print_field_errors, print_flag_errors
    from app.service import ownership

    values = flag_values(args, OwnershipQuestion.model_fields)
    try:
        snapshot = load_snapshot()
        question = OwnershipQuestion.model_validate(values)
        question = ownership.with_catalog_gpu(question, snapshot)
        share = "/own?" + ownership.canonical_own_query(question)
        body = ownership.own_payload(question, snapshot, share, charts=args.json)
    except ValidationError as exc:
        return print_flag_errors(exc, typed=values, kind="own")
    except ownership.MissingInput as exc:
        return print_field_errors(exc)
    return emit(body, args.json, _print)


def add_own_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from app.cli.common import add_flags

    parser = sub.add_parser("own", help="own N GPU servers or rent them: monthly costs and the break-even")
    helps = {name: info.description for name, info in OwnershipQuestion.model_fields.items()}
    add_flags(parser, helps, "own", cmd_own)
