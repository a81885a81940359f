"""A ranked table's column headers sort the whole ranking on the server (`sort=` in the page's canonical URL),
so they work without JavaScript, page by page, and in a shared link; each row keeps its rank."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.main import create_app
from app.service.query.question import parse
from app.service.rank import rank_sort
from tests.conftest import settings_for
from tests.test_results_paging import HX, TRAINING, caption, link, rows

INFERENCE = "phase=inference&model=llama-3.1-8b"


def header(html: str, label: str) -> tuple[str, str | None]:
    """The link of the ranked table's column header `label`, and its aria-sort (None when not sorted by it)."""
    for attrs, href, text in re.findall(
        r'<th scope="col" data-sortable([^>]*)><a href="([^"]+)"[^>]*>([^<]+)</a>', html
    ):
        if unescape(text) == label:
            sort = re.search(r'aria-sort="(\w+)"', attrs)
            return unescape(href), sort.group(1) if sort else None
    raise AssertionError(f"no sortable header {label!r}")


def cells(html: str, label: str) -> list[str]:
    return [unescape(v) for v in re.findall(rf'<td class="n[^"]*" data-label="{re.escape(label)}"[^>]*>([^<]*)', html)]


def numbers(html: str, label: str) -> list[float]:
    return [float(v.replace("$", "").replace(",", "").replace("%", "")) for v in cells(html, label)]


# --- the sort itself, on stand-in options ----------------------------------------------------------------


def _options(*values: float | None) -> list[SimpleNamespace]:
    return [SimpleNamespace(ttft_ms=v, gpu_id=f"g{i}") for i, v in enumerate(values)]


def test_ties_keep_ranked_order_and_missing_values_go_last_either_way() -> None:
    options = _options(30.0, None, 10.0, 30.0, 20.0)
    value = lambda position, name: getattr(options[position], name)  # noqa: E731
    assert rank_sort.sorted_positions(value, 5, "inference", "ttft", "") == [2, 4, 0, 3, 1]
    assert rank_sort.sorted_positions(value, 5, "inference", "-ttft", "") == [0, 3, 4, 2, 1]
    assert rank_sort.sorted_positions(value, 4, "inference", "-rank", "") == [3, 2, 1, 0]  # feasible ones only


def test_a_header_link_sorts_its_natural_way_first_then_reverses() -> None:
    assert rank_sort.next_sort(None, "ttft", "inference") == "ttft"  # lowest latency first
    assert rank_sort.next_sort("ttft", "ttft", "inference") == "-ttft"
    assert rank_sort.next_sort("-ttft", "ttft", "inference") == "ttft"
    assert rank_sort.next_sort(None, "tok_s", "inference") == "-tok_s"  # highest throughput first
    assert rank_sort.next_sort("ttft", "rank", "inference") is None  # back to ranked order
    assert rank_sort.next_sort(None, "rank", "inference") == "-rank"
    assert rank_sort.direction(None, "rank") == "ascending" and rank_sort.direction("-mfu", "mfu") == "descending"
    assert rank_sort.describe("-mfu", "training") == "MFU, highest first"
    assert rank_sort.describe("provider", "inference") == "provider, A to Z"


# --- the pages ----------------------------------------------------------------------------------------------


def test_the_whole_ranking_is_sorted_not_only_the_rows_on_screen(client: TestClient) -> None:
    whole = client.get(f"/rank.json?{TRAINING}").json()
    feasible = [o for o in whole["options"] if o["feasible"]]
    assert len(feasible) > 25  # more than one page
    first = client.get(f"/?{TRAINING}&sort=gpu_hour")
    assert first.status_code == 200
    assert "sorted by $/GPU-hour, lowest first; # is each row's rank" in caption(first.text)
    prices = numbers(first.text, "$/GPU-h")
    assert prices == sorted(prices) and prices[0] == min(o["usd_per_gpu_hour"] for o in feasible)
    following = link(first.text, "Next")
    assert following == f"/?{TRAINING}&sort=gpu_hour&page=2"  # the pager keeps the sort
    second = numbers(client.get(following).text, "$/GPU-h")
    assert second and second[0] >= prices[-1]
    # each row keeps its rank: the JSON's option at that rank is the row's
    ranked = rows(first.text)
    assert ranked != list(range(1, 26))
    providers = re.findall(r'<td[^>]*data-label="Provider"[^>]*>([^<]+)<', first.text)  # then its instance, if any
    assert [unescape(p).strip() for p in providers] == [feasible[r - 1]["provider_name"] for r in ranked]


def test_headers_are_links_that_reverse_the_active_column(client: TestClient) -> None:
    ranked = client.get(f"/?{INFERENCE}").text
    assert header(ranked, "#") == (f"/?{INFERENCE}&sort=-rank", "ascending")  # ranked order is sorted by rank
    assert header(ranked, "TTFT\u00a0ms") == (f"/?{INFERENCE}&sort=ttft", None)
    assert header(ranked, "Tok/s") == (f"/?{INFERENCE}&sort=-tok_s", None)
    by_ttft = client.get(f"/?{INFERENCE}&sort=ttft&show=10").text
    assert header(by_ttft, "TTFT\u00a0ms") == (f"/?{INFERENCE}&sort=-ttft&show=10", "ascending")
    assert header(by_ttft, "#") == (f"/?{INFERENCE}&show=10", None)  # the rank column goes back to ranked order
    ttft = numbers(by_ttft, "TTFT ms mean (p99)")
    assert len(ttft) == 10 and ttft == sorted(ttft)
    reversed_ = numbers(client.get(f"/?{INFERENCE}&sort=-ttft").text, "TTFT ms mean (p99)")
    assert reversed_ == sorted(reversed_, reverse=True) and reversed_[0] > ttft[-1]


def test_an_htmx_sort_swaps_the_workbench_and_pushes_the_canonical_url(client: TestClient) -> None:
    swapped = client.get(f"/?{TRAINING}&sort=-mfu", headers=HX)
    assert swapped.status_code == 200 and "<html" not in swapped.text
    assert swapped.headers["HX-Push-Url"] == f"/?{TRAINING}&sort=-mfu"
    mfu = numbers(swapped.text, "MFU")
    assert mfu == sorted(mfu, reverse=True)


@pytest.mark.parametrize(
    ("spelled", "canonical"),
    [
        (f"sort=ttft&page=1&{INFERENCE}", f"{INFERENCE}&sort=ttft"),
        (f"{INFERENCE}&page=2&sort=-tok_s&show=10", f"{INFERENCE}&sort=-tok_s&show=10&page=2"),
        (f"{INFERENCE}&sort=rank", INFERENCE),
    ],
)
def test_other_spellings_of_a_sort_redirect_to_the_canonical_url(
    client: TestClient, spelled: str, canonical: str
) -> None:
    response = client.get(f"/?{spelled}", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/?{canonical}"
    assert parse(parse_qsl(urlsplit(response.headers["location"]).query), paged=True).canonical == canonical


@pytest.mark.parametrize(
    ("query", "says"),
    [
        (f"{INFERENCE}&sort=mfu", "mfu is not a column of the inference ranking"),
        (f"{TRAINING}&sort=ttft", "ttft is not a column of the training ranking"),
        (f"{INFERENCE}&sort=price", "must be a column of the inference ranking (rank, gpu, provider, gpu_hour, cost,"),
        (f"{INFERENCE}&sort=--ttft", "must be a column of the inference ranking"),
        (f"{TRAINING}&sort=price", "must be a column of the training ranking (rank, gpu, provider, gpu_hour, cost,"),
    ],
)
def test_a_sort_by_no_such_column_is_a_422_naming_it_on_the_page_and_its_twin(
    client: TestClient, query: str, says: str
) -> None:
    page = client.get(f"/?{query}")
    assert page.status_code == 422 and 'id="err-sort"' in page.text and says in unescape(page.text)
    twin = client.get(f"/rank.json?{query}")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "sort"


def twin_links(html: str) -> tuple[str, str]:
    """The results' JSON and CSV links."""
    found = re.search(r'<a href="([^"]+)">JSON</a> · <a href="([^"]+)">CSV</a>', html)
    assert found, "no twin links"
    return unescape(found.group(1)), unescape(found.group(2))


def test_the_twins_give_every_option_in_the_pages_sort_each_with_its_rank(client: TestClient) -> None:
    page = client.get(f"/?{TRAINING}&sort=-mfu&page=2").text
    json_url, csv_url = twin_links(page)
    assert (json_url, csv_url) == (f"/rank.json?{TRAINING}&sort=-mfu", f"/rank.csv?{TRAINING}&sort=-mfu")
    ranked = client.get(f"/rank.json?{TRAINING}").json()
    by_mfu = client.get(json_url).json()
    assert by_mfu["sort"] == "-mfu" and "sort" not in ranked
    assert [o["rank"] for o in ranked["options"]] == list(range(1, len(ranked["options"]) + 1))  # in ranked order too
    feasible = ranked["feasible_options"]
    assert len(by_mfu["options"]) == len(ranked["options"]) > feasible > 25  # every option, not one page
    mfu = [o["mfu"] for o in by_mfu["options"][:feasible]]
    assert mfu == sorted(mfu, reverse=True) and mfu != [o["mfu"] for o in ranked["options"][:feasible]]
    for option in by_mfu["options"]:  # each option is the one at its rank, the infeasible ones last
        assert ranked["options"][option["rank"] - 1] == option
    assert [o["feasible"] for o in by_mfu["options"]] == [o["feasible"] for o in ranked["options"]]
    table = list(csv.DictReader(io.StringIO(client.get(csv_url).text)))
    assert [int(r["rank"]) for r in table][:5] == [o["rank"] for o in client.get(json_url).json()["options"][:5]]
    assert [float(r["mfu"]) for r in table[:feasible]] == mfu


def test_the_cli_prints_and_dumps_the_sorted_ranking(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli.main import main

    assert main(["rank", "training", "--model", "llama-3.1-8b", "--sort=-mfu", "--json"]) == 0
    options = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]]
    assert [o["mfu"] for o in options] == sorted((o["mfu"] for o in options), reverse=True)
    assert main(["rank", "training", "--model", "llama-3.1-8b", "--sort=-mfu", "--limit", "3"]) == 0
    printed = capsys.readouterr().out
    assert "sorted by MFU, highest first; # is the rank" in printed
    ranks = [int(line.split()[0]) for line in printed.splitlines() if re.match(r"\d+ ", line)]
    assert ranks == [o["rank"] for o in options[:3]]


def test_a_saved_link_sorts_within_its_own_prices(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url))) as client:
        slug = client.post("/share", data={"path": "/", "query": TRAINING}, headers={"accept": "application/json"})
        url = f"/s/{slug.json()['slug']}"
        assert header(client.get(url).text, "Run time")[0] == f"{url}?sort=days"
        page = client.get(f"{url}?sort=days")
        assert page.status_code == 200 and "Saved comparison" in page.text
        assert link(page.text, "Next") == f"{url}?sort=days&page=2"
        assert client.get(f"{url}?sort=ttft").status_code == 422
        # its twins are its own: the saved prices, in the view's sort
        assert twin_links(page.text) == (f"{url}.json?sort=days", f"{url}.csv?sort=days")
        saved = client.get(f"{url}.json?sort=days").json()
        days = [o["total_hours"] for o in saved["options"] if o["feasible"]]
        assert saved["sort"] == "days" and saved["saved"]["slug"] == url[3:] and days == sorted(days)
        table = list(csv.DictReader(io.StringIO(client.get(f"{url}.csv?sort=days").text)))
        assert [int(r["rank"]) for r in table] == [o["rank"] for o in saved["options"]]
        assert client.get(f"{url}.csv?sort=ttft").json()["detail"][0]["field"] == "sort"
        assert twin_links(client.get(url).text) == (f"{url}.json", f"{url}.csv")


def test_unsorted_twins_and_the_api_give_each_option_its_rank_too(client: TestClient) -> None:
    """README: /rank.json and /rank.csv give options 'with each option's rank', sorted or not."""
    ranked = client.get(f"/rank.json?{TRAINING}").json()["options"]
    assert [o["rank"] for o in ranked] == list(range(1, len(ranked) + 1))
    table = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{TRAINING}").text)))
    assert next(iter(table[0])) == "rank" and [int(r["rank"]) for r in table] == [o["rank"] for o in ranked]
    body = {"model": "llama-3.1-8b", "input_len": 1000, "output_len": 300}
    api = client.post("/api/v1/rank/inference?limit=5&terms=false", json=body).json()["options"]
    assert [o["rank"] for o in api] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("phase", "other_phase_column"), [("inference", "mfu"), ("training", "ttft")])
def test_a_bad_sort_lists_only_the_columns_of_the_phase_asked(
    client: TestClient, database: str, capsys: Any, phase: str, other_phase_column: str
) -> None:
    """The message listed both tables' columns (mfu for an inference ranking, ttft for training): page, JSON twin,
    rank API and CLI list the phase's own."""
    query = {"inference": INFERENCE, "training": TRAINING}[phase]
    own = ", ".join(rank_sort.COLUMNS[phase])
    messages = [
        client.get(f"/rank.json?{query}&sort=bogus").json()["detail"][0]["message"],
        client.post(f"/api/v1/rank/{phase}?sort=bogus", json={"model": "llama-3.1-8b"}).json()["detail"][0]["message"],
    ]
    assert cli(["rank", phase, "--model", "llama-3.1-8b", "--sort", "bogus"]) == 2
    messages.append(capsys.readouterr().err)
    for message in messages:
        assert f"must be a column of the {phase} ranking ({own})" in message
        assert other_phase_column not in message


def test_a_rank_api_share_url_saved_through_post_share_keeps_its_sort(fresh_url: str) -> None:
    """The rank API's share_url carries its `sort`; POSTed to /share it was refused ('sort: not a field of this
    form'), so a script could not save what it was given. The question is saved, the view follows the link (qa41)."""
    with TestClient(create_app(settings_for(fresh_url))) as client:
        answer = client.post("/api/v1/rank/training?sort=-mfu", json={"model": "llama-3.1-8b"}).json()
        query = answer["share_url"].split("?", 1)[1]
        assert query.endswith("&sort=-mfu")
        created = client.post("/share", json={"path": "/", "query": query})
        unsorted = client.post("/share", json={"path": "/", "query": query.removesuffix("&sort=-mfu")}).json()
        assert created.status_code == 201 and created.json()["slug"] == unsorted["slug"]  # one question, one slug
        url = created.json()["url"]
        assert url == f"/s/{unsorted['slug']}?sort=-mfu" == created.headers["location"]
        saved = client.get(url.replace("?", ".json?")).json()
        assert [o["rank"] for o in saved["options"]] == [o["rank"] for o in answer["options"]]
        for view, field in (("&sort=ttft", "sort"), ("&page=0", "page"), ("&sort=days&sort=mfu", "sort")):
            refused = client.post("/share", json={"path": "/", "query": query.removesuffix("&sort=-mfu") + view})
            assert refused.status_code == 422 and refused.json()["detail"][0]["field"] == field, view
