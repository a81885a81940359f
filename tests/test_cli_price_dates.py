"""Every price the command line shows carries its date and its source, as the page's rows do (the date, linked to
where the price was read). Found by qa13: `gpumatch rank` printed "$/GPU-h 2.00" for its #1 with neither, and `plan
serving` its dedicated rows' prices undated, so a buyer acting on the answer from a terminal could not tell a price
read last week from one read in May."""

from __future__ import annotations

import json
import re
from typing import Any

from app.cli.main import main as cli
from app.scoring.explain import usd_amount


def _ranked(capsys: Any, *args: str) -> tuple[list[dict[str, Any]], str]:
    assert cli([*args, "--json"]) == 0
    options = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]]
    assert cli(list(args)) == 0
    return options, capsys.readouterr().out


def test_each_ranked_row_shows_its_price_date_and_the_answer_names_each_source(database: str, capsys: Any) -> None:
    limit = 6
    argv = ["rank", "inference", "--model", "llama-3.1-8b", "--include-stale", "--limit", str(limit)]
    options, out = _ranked(capsys, *argv)
    rows = out.splitlines()[3 : 3 + limit]
    options = options[:limit]
    assert any(o["as_of"] is None for o in options) or any(o["stale"] for o in options)
    for option, row in zip(options, rows, strict=True):
        assert (option["as_of"] or "undated") in row, row
    sources = out.split("price sources:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    for rank, option in enumerate(options, start=1):
        line = next(s for s in sources if s.endswith(" " + option["price_source_url"]))
        assert f"#{rank}" in re.split(r"[ ,:]+", line)


def test_a_training_ranking_dates_its_prices_too(database: str, capsys: Any) -> None:
    options, out = _ranked(capsys, "rank", "training", "--model", "llama-3.1-8b", "--limit", "2")
    assert options[0]["as_of"] in out.splitlines()[3]
    assert options[0]["price_source_url"] in out.split("price sources:\n", 1)[1]


def test_the_serving_plan_dates_its_dedicated_prices(database: str, capsys: Any) -> None:
    assert cli(["plan", "serving", "--model", "llama-3.1-8b", "--requests-per-day", "100000", "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["options"][0]
    assert cli(["plan", "serving", "--model", "llama-3.1-8b", "--requests-per-day", "100000"]) == 0
    out = capsys.readouterr().out
    assert best["as_of"] in out.splitlines()[3]
    assert best["price_source_url"] in out


BATCH_JOB = "phase=inference&model=llama-3.1-70b&scenario=max_throughput&job_requests=200000&job_deadline_hours=4"


def test_every_per_token_price_beside_a_batch_job_is_dated_and_sourced_on_the_page(client: Any) -> None:
    """The page dated and linked only the cheapest API; DeepInfra's and Bedrock's prices beside it, and the cheaper
    ones left out, had neither."""
    body = client.get(f"/rank.json?{BATCH_JOB}").json()
    quotes = [*body["serverless_job"], *body["serverless_job_left_out"]]
    assert len(quotes) >= 3
    html = client.get(f"/?{BATCH_JOB}").text
    paragraph = html.split('<p class="plan-link serverless-job">', 1)[1].split("</p>", 1)[0]
    for quote in quotes:
        link = paragraph.split(quote["provider_name"], 1)[1].split("<a ", 1)[1].split("</a>", 1)[0]
        assert link.startswith(f'href="{quote["source_url"]}"') and quote["as_of_label"] in link, quote["provider"]


def test_every_per_token_price_beside_a_batch_job_is_dated_and_sourced_on_the_cli(database: str, capsys: Any) -> None:
    argv = ["rank", "inference", "--model", "llama-3.1-70b", "--scenario", "max_throughput"]
    body, out = _ranked_body(capsys, *argv, "--job-requests", "200000", "--job-deadline-hours", "4")
    line = next(s for s in out.splitlines() if s.startswith("the same job through a per-token API"))
    sources = next(s for s in out.splitlines() if s.startswith("per-token price sources: "))
    for quote in [*body["serverless_job"], *body["serverless_job_left_out"]]:
        assert f"{quote['provider_name']} {usd_amount(quote['job_usd'])} ({quote['as_of_label']})" in line
        assert f"{quote['provider_name']} {quote['source_url']}" in sources


def _ranked_body(capsys: Any, *args: str) -> tuple[dict[str, Any], str]:
    assert cli([*args, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert cli(list(args)) == 0
    return body, capsys.readouterr().out
