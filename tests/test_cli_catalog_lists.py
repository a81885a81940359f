"""`gpumatch catalog gpus|offers|models|providers` list what the catalog pages list: each flag is a field of the page's
query model, read by the same parse and checks, so the JSON is the page's `.json`, the rows come in the page's order,
and a bad value exits 2 with the page's message under its flag, no traceback (found by catalog3: the CLI had no way
to ask for what the pages show)."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main

# (CLI arguments, the page whose .json it mirrors, that page's query)
SAME_LISTS = [
    (["gpus", "--vendor", "amd", "--sort", "memory"], "/gpus", {"vendor": "amd", "sort": "memory"}),
    (["gpus", "--min-memory-gb", "100", "--sort", "price"], "/gpus", {"min_memory_gb": "100", "sort": "price"}),
    (
        ["offers", "h100-sxm", "--price-type", "on_demand", "--min-gpus", "8", "--sort", "date"],
        "/gpus/H100-SXM",
        {"price_type": "on_demand", "min_gpus": "8", "sort": "date"},
    ),
    (["offers", "H100-SXM", "--provider", "LAMBDA", "--sort", "provider"], "/gpus/H100-SXM", {"provider": "LAMBDA"}),
    (["models", "--kind", "moe", "--sort", "params"], "/models", {"kind": "moe", "sort": "params"}),
    (["models", "--family", "qwen", "--min-params-b", "30"], "/models", {"family": "qwen", "min_params_b": "30"}),
    (["providers", "--sells", "gpu_offers", "--sort", "h100_price"], "/providers", {"sells": "gpu_offers"}),
    (["providers", "--kind", "serverless", "--sort", "offers"], "/providers", {"kind": "serverless", "sort": "offers"}),
]


def _page_json(client: TestClient, path: str, query: dict[str, str], argv: list[str]) -> object:
    if "--sort" in argv:
        query = {**query, "sort": argv[argv.index("--sort") + 1]}
    return client.get(f"{path}.json?{urlencode(query)}").json()


@pytest.mark.parametrize(
    ("argv", "path", "query"), SAME_LISTS, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_the_json_is_the_pages_json(
    database: str, client: TestClient, capsys: pytest.CaptureFixture[str], argv: list[str], path: str, query: dict
) -> None:
    assert main(["catalog", *argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = _page_json(client, path, query, argv)
    assert printed == expected
    rows = printed["offers"] if isinstance(printed, dict) else printed
    assert rows, "a query that lists nothing would prove little"


@pytest.mark.parametrize(
    ("argv", "path", "query"), SAME_LISTS, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_the_table_lists_the_pages_rows_in_its_order(
    database: str, client: TestClient, capsys: pytest.CaptureFixture[str], argv: list[str], path: str, query: dict
) -> None:
    assert main(["catalog", *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    page = _page_json(client, path, query, argv)
    rows = page["offers"] if isinstance(page, dict) else page  # type: ignore[index]
    first_cells = [line.split("  ")[0].strip() for line in lines[3 : 3 + len(rows)]]
    expected = [r["provider_name"] if path.startswith("/gpus/") else r["id"] for r in rows]
    assert first_cells == expected and len(lines) == 3 + len(rows)


# (CLI arguments, the page's query) refused alike: each field's message as the page's 422 body says it
REFUSED = [
    (
        ["offers", "H100-SXM", "--price-type", "hourly", "--min-gpus", "0"],
        "/gpus/H100-SXM",
        "price_type=hourly&min_gpus=0",
    ),
    (
        ["models", "--min-params-b", "10", "--max-params-b", "5", "--family", "lama"],
        "/models",
        "min_params_b=10&max_params_b=5&family=lama",
    ),
    (["providers", "--sort", "cheapest"], "/providers", "sort=cheapest"),
    (["gpus", "--vendor", "nvida", "--min-memory-gb", "lots"], "/gpus", "vendor=nvida&min_memory_gb=lots"),
]


@pytest.mark.parametrize(("argv", "path", "query"), REFUSED, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_bad_value_exits_2_with_the_pages_words_under_its_flag(
    database, client: TestClient, capsys, argv, path, query
) -> None:  # type: ignore[no-untyped-def]
    assert main(["catalog", *argv]) == 2
    captured = capsys.readouterr()
    page = client.get(f"{path}.json?{query}")
    assert page.status_code == 422
    said = {f"--{e['field'].replace('_', '-')}: {e['message']}" for e in page.json()["detail"]}
    assert len(said) >= 2 or "sort" in query
    assert set(captured.err.splitlines()) == said and captured.out == ""


def test_an_unknown_gpu_is_said_beside_its_flags(database, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["catalog", "offers", "H100", "--min-gpus", "0"]) == 2
    err = capsys.readouterr().err
    assert "unknown GPU 'H100'; did you mean" in err and "--min-gpus: must be at least 1 GPU" in err


def test_a_refused_list_is_one_line_per_field_without_a_traceback(database) -> None:  # type: ignore[no-untyped-def]
    ran = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "catalog", "offers", "H100-SXM", "--sort", "cheapest"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert ran.stderr.strip() == "--sort: Input should be 'price', 'date' or 'provider'"


def test_the_offers_line_says_the_filters(database, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["catalog", "offers", "H100-SXM", "--price-type", "spot"]) == 0
    assert "offers the filters keep (spot)" in capsys.readouterr().out.splitlines()[0]
    assert main(["catalog", "offers", "H100-SXM", "--provider", "lambda", "--min-gpus", "8"]) == 0
    assert "offer the filters keep (at Lambda, 8 GPUs or more)" in capsys.readouterr().out.splitlines()[0]
