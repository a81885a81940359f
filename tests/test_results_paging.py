"""Results pages show the best 25 feasible options with paging, however many sellers the catalog has;
the page's view (`show`, `page`) is part of its canonical URL; the JSON and CSV twins give every option."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.service.query.question import parse
from app.web.deps import get_snapshot
from benchmarks.bench_data import bench_snapshot
from tests.conftest import settings_for

QUERY = "phase=inference&model=llama-3.1-70b&weight_dtype=fp8"
TRAINING = "phase=training&model=llama-3.1-8b"
HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def many_sellers(seeded_url: str) -> Iterator[TestClient]:
    """The app over the seed's offers copied under 99 more provider ids each (100x distinct sellers)."""
    app = create_app(settings_for(seeded_url))
    snapshot = bench_snapshot(100)
    app.dependency_overrides[get_snapshot] = lambda: snapshot
    with TestClient(app) as client:
        yield client


def rows(html: str) -> list[int]:
    """The rank numbers of the table's rows, in order."""
    return [int(n) for n in re.findall(r'<tr class="row[^"]*" data-detail="terms-(\d+)"', html)]


def caption(html: str) -> str:
    found = re.search(r"<caption[^>]*>(.*?)</caption>", html, re.S)
    assert found, "no results table"
    return unescape(found.group(1))


def link(html: str, label: str) -> str:
    """The href of the pager link whose text starts with `label`; it must be htmx-enhanced to the same URL."""
    pager = re.search(r'<nav class="pager".*?</nav>', html, re.S)
    assert pager, "no pager"
    for href, hx_get, text in re.findall(r'<a href="([^"]+)"[^>]*?hx-get="([^"]+)"[^>]*>([^<]+)</a>', pager.group(0)):
        if text.strip().startswith(label):
            assert href == hx_get
            return unescape(href)
    raise AssertionError(f"no {label!r} link in {pager.group(0)}")


def test_a_hundred_times_the_sellers_still_shows_25_rows_of_the_whole_count(many_sellers: TestClient) -> None:
    everything = many_sellers.get(f"/rank.json?{QUERY}").json()
    feasible = everything["feasible_options"]
    assert feasible > 1000 and len(everything["options"]) == everything["total_options"]  # the twin gives all
    page = many_sellers.get(f"/?{QUERY}")
    assert page.status_code == 200
    assert rows(page.text) == list(range(1, 26))
    assert f"Showing 1–25 of {feasible:,} feasible offers" in caption(page.text)
    assert len(page.content) < 400_000  # the sellers are a text field, not thousands of checkboxes
    shown = re.findall(r'<tr class="row[^"]*".*?<td[^>]*data-label="Provider"[^>]*>([^<]+)</td>', page.text, re.S)
    assert shown == [o["provider_name"] for o in everything["options"][:25]]  # the same best 25, in order


def feasible_count(client: TestClient, query: str) -> int:
    """The ranking's feasible count from the rank API's lean answer (one option, no terms)."""
    body = {k: v for k, v in parse_qsl(query) if k != "phase"}
    phase = dict(parse_qsl(query))["phase"]
    return client.post(f"/api/v1/rank/{phase}?limit=1&terms=false", json=body).json()["feasible_options"]


def test_next_and_all_links_work_and_are_canonical(many_sellers: TestClient) -> None:
    first = many_sellers.get(f"/?{TRAINING}").text
    feasible = feasible_count(many_sellers, TRAINING)
    following = link(first, "Next")
    assert following == f"/?{TRAINING}&page=2"
    second = many_sellers.get(following, follow_redirects=False)
    assert second.status_code == 200  # canonical already: no redirect
    assert rows(second.text) == list(range(26, 51))
    assert f"Showing 26–50 of {feasible:,}" in caption(second.text)
    assert link(second.text, "‹ Previous") == f"/?{TRAINING}"
    assert link(first, "Show all") == f"/?{TRAINING}&show=all"
    assert link(first, "Last") == f"/?{TRAINING}&page={-(-feasible // 25)}"


def test_show_all_lists_every_feasible_option(client: TestClient) -> None:
    feasible = client.get(f"/rank.json?{TRAINING}").json()["feasible_options"]
    assert feasible > 25
    everything = client.get(f"/?{TRAINING}&show=all")
    assert rows(everything.text) == list(range(1, feasible + 1))
    assert link(everything.text, "Show 25 per page") == f"/?{TRAINING}"
    assert "Next" not in re.search(r'<nav class="pager".*?</nav>', everything.text, re.S).group(0)  # type: ignore[union-attr]


def test_an_htmx_page_turn_swaps_the_workbench_and_pushes_the_canonical_url(client: TestClient) -> None:
    turned = client.get(f"/?{TRAINING}&page=2", headers=HX)
    assert turned.status_code == 200 and "<html" not in turned.text and 'id="workbench"' in turned.text
    assert turned.headers["HX-Push-Url"] == f"/?{TRAINING}&page=2"
    assert rows(turned.text)[0] == 26


@pytest.mark.parametrize(
    ("spelled", "canonical"),
    [
        (f"page=2&{TRAINING}", f"{TRAINING}&page=2"),
        (f"{TRAINING}&page=2&show=25", f"{TRAINING}&page=2"),
        (f"{TRAINING}&page=1", TRAINING),
        (f"{TRAINING}&page=3&show=all", f"{TRAINING}&show=all"),
        (f"{TRAINING}&show=ALL", f"{TRAINING}&show=all"),
        (f"{TRAINING}&page=2&show=10", f"{TRAINING}&show=10&page=2"),
    ],
)
def test_other_spellings_of_a_view_redirect_to_its_canonical_url(
    client: TestClient, spelled: str, canonical: str
) -> None:
    response = client.get(f"/?{spelled}", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/?{canonical}"
    parsed = parse(parse_qsl(urlsplit(response.headers["location"]).query), paged=True)
    assert parsed.canonical == canonical  # the URL round-trips


def test_a_view_reproduces_the_same_rows(client: TestClient) -> None:
    url = f"/?{TRAINING}&show=10&page=3"
    assert rows(client.get(url).text) == rows(client.get(url).text) == list(range(21, 31))


@pytest.mark.parametrize(("field", "value"), [("page", "0"), ("page", "two"), ("show", "0"), ("show", "5000")])
def test_a_bad_view_is_a_422_naming_the_field_on_the_page_and_its_twin(
    client: TestClient, field: str, value: str
) -> None:
    page = client.get(f"/?{TRAINING}&{field}={value}")
    assert page.status_code == 422 and f'id="err-{field}"' in page.text
    twin = client.get(f"/rank.json?{TRAINING}&{field}={value}")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == field


def test_twins_ignore_the_view_and_give_every_option(client: TestClient) -> None:
    whole = client.get(f"/rank.json?{TRAINING}").json()
    paged = client.get(f"/rank.json?{TRAINING}&page=3&show=10").json()
    assert paged == whole and len(whole["options"]) == whole["total_options"]
    csv_whole = client.get(f"/rank.csv?{TRAINING}").text
    assert client.get(f"/rank.csv?{TRAINING}&page=2").text == csv_whole
    assert csv_whole.count("\n") - 1 == whole["total_options"]


def test_a_page_past_the_last_redirects_to_the_last_page(client: TestClient) -> None:
    """`page=999` read "page 999 of 3" over an empty table (found by canon2): the last page is the one meant."""
    moved = client.get(f"/?{TRAINING}&page=999", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"].startswith(f"/?{TRAINING}&page=")
    last = client.get(moved.headers["location"])
    pages = moved.headers["location"].rpartition("=")[2]
    assert last.status_code == 200 and rows(last.text) and f"page {pages} of {pages}<" in last.text
    compare = client.get(f"/compare?{TRAINING}&page=999", follow_redirects=False)
    assert compare.status_code == 303 and compare.headers["location"].startswith(f"/compare?{TRAINING}&page=")


def test_pages_other_than_results_do_not_take_a_view(client: TestClient) -> None:
    assert client.get("/precision?model=llama-3.1-70b&page=2").status_code == 422


def test_a_saved_link_pages_within_its_own_prices(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url))) as client:
        slug = client.post("/share", data={"path": "/", "query": TRAINING}, headers={"accept": "application/json"})
        url = f"/s/{slug.json()['slug']}"
        first = client.get(url).text
        following = link(first, "Next")
        assert following == f"{url}?page=2"
        second = client.get(following)
        assert second.status_code == 200 and rows(second.text)[0] == 26 and "Saved comparison" in second.text
        assert client.get(following, headers=HX).headers["HX-Push-Url"] == following
        assert client.get(f"{url}?page=0").status_code == 422


def test_a_ranking_with_no_feasible_offer_shows_no_empty_table(client: TestClient) -> None:
    """Its caption read "None of 0 feasible offers, best first. Click a row's ▸ for its terms." over a header row."""
    page = client.get("/?phase=inference&model=llama-3.1-8b&scenario=request_rate&requests_per_s=500")
    assert page.status_code == 200
    assert "No offer can run this workload" in page.text
    assert "None of 0" not in page.text and 'class="data ranked' not in page.text
    assert "cannot run this workload" in page.text  # the infeasible rows' reasons are still listed


@pytest.mark.parametrize("path", ["/", "/compare"])
def test_a_sorted_twins_share_url_keeps_its_sort_as_the_rank_api_does(client: TestClient, path: str) -> None:
    """/rank.json?…&sort=ttft answered share_url "/?…" without the sort, while the page's Copy link and the rank API's
    share_url for the same sort carry it: the link opened a differently ordered page than the JSON listed."""
    question = "phase=inference&model=llama-3.1-8b&gpus=H100-SXM,H200"
    twin = path.rstrip("/") + ("/rank.json" if path == "/" else ".json")
    body = client.get(f"{twin}?{question}&sort=ttft").json()
    assert body["share_url"] == f"{path}?{question}&sort=ttft"
    assert client.get(f"{twin}?{question}").json()["share_url"] == f"{path}?{question}"
    api = client.post("/api/v1/rank/inference?sort=ttft", json={"model": "llama-3.1-8b", "gpus": ["H100-SXM", "H200"]})
    assert api.json()["share_url"] == f"/?{question}&sort=ttft"
