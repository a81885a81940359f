"""/plan's train-then-serve named each offer and its terms but never when or where its price was read (found by
qa28): the best training run and serving offer of a year-long plan carried no date in the page, the JSON or the CLI.
Every price there now has its date, linked to its source, as the ranked tables' rows do."""

from __future__ import annotations

import json
from datetime import date

from markupsafe import escape

from app.cli.main import main as cli
from app.scoring.serving.plans.lifecycle import ServingCandidate, combine
from app.scoring.training.ranking.results import TrainingOption

PLAN = "/plan?model=llama-3.1-8b&requests_per_day=500000&months=12&train_total_tokens=1000000000"


def _dated(as_of: str | None) -> str:
    return as_of or "undated"


def test_each_train_then_serve_combination_carries_both_prices_dates_and_sources(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get(PLAN.replace("/plan?", "/plan.json?")).json()
    combinations = body["lifecycle"]["combinations"]
    trained = client.get("/rank.json?phase=training&model=llama-3.1-8b&total_tokens=1000000000").json()["options"]
    training_prices = {(o["provider"], o["gpu_id"], o["usd_per_gpu_hour"]): o for o in trained if o["feasible"]}
    served = {o["provider_name"]: o for o in body["options"]}
    assert combinations
    for c in combinations:
        assert c["training_price_source_url"].startswith("https://")
        assert c["serving_price_source_url"].startswith("https://")
        run = [o for o in training_prices.values() if c["training"].startswith(f"{o['gpu_count']}×{o['gpu_id']} at ")]
        assert c["training_as_of"] in {o["as_of"] for o in run}
        assert c["serving_kind"] == "dedicated"
        offer = next(o for name, o in served.items() if f" at {name} (" in c["serving"])
        assert (c["serving_as_of"], c["serving_price_source_url"]) == (offer["as_of"], offer["price_source_url"])
        assert c["serving_as_of_label"] == _dated(offer["as_of"])


def test_the_plan_page_links_each_combinations_price_dates_to_their_sources(client) -> None:  # type: ignore[no-untyped-def]
    combinations = client.get(PLAN.replace("/plan?", "/plan.json?")).json()["lifecycle"]["combinations"]
    page = client.get(PLAN).text
    for c in combinations:
        for role, label in (("training", _dated(c["training_as_of"])), ("serving", c["serving_as_of_label"])):
            link = f'<a class="muted price-source" href="{c[role + "_price_source_url"]}"'
            assert f"{escape(c[role])} {link}" in page
            assert f'title="where this price was read">{label}</a>' in page
    best = page.split("Best: train on", 1)[1].split("in all", 1)[0]
    assert best.count("; price of <a") == 2


def test_the_cli_lifecycle_table_dates_each_price_and_names_its_source(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["plan", "lifecycle", "--model", "llama-3.1-8b", "--requests-per-day", "500000", "--limit", "3"]
    assert cli([*argv, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["combinations"][:3]
    assert cli(argv) == 0
    out = capsys.readouterr().out
    sources = out.split("price sources:\n", 1)[1]
    for c in shown:
        assert f"{c['training']} {_dated(c['training_as_of'])}" in out
        assert f"{c['serving']} {c['serving_as_of_label']}" in out
        assert f"{c['training']}: {c['training_price_source_url']}" in sources
        assert f"{c['serving']}: {c['serving_price_source_url']}" in sources


def test_a_serverless_serving_price_keeps_its_date_as_its_source_gives_it() -> None:
    """A per-token price read from a maintained table is dated 'on or before' that day: the combination says so."""
    train = TrainingOption(
        "H200", 8, "dp8", "a", "A", "on_demand", 4.0, date(2026, 9, 20), True, "", False, [], 1.0, 1.0, 1.0, 0.4,
        10.0, 320.0, 50.0, None, price_source_url="https://a.example/prices",
    )  # fmt: skip
    serverless = ServingCandidate(
        "S serverless", "serverless", 2000.0, (), date(2026, 12, 1), "≤2026-12-01", "https://s.example/tokens"
    )
    (row,) = combine([train], [serverless], 3)
    assert (row.training_as_of, row.training_price_source_url) == (date(2026, 9, 20), "https://a.example/prices")
    assert (row.serving_as_of, row.serving_as_of_label) == (date(2026, 12, 1), "≤2026-12-01")
    assert row.serving_price_source_url == "https://s.example/tokens"
