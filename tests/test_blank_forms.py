"""One rule for every page: a query with nothing but its phase (phase=inference on a serving page, either phase
on the ranking pages) is the page's blank form, its defaults shown, 200; a repeated or unknown phase is a
question with an error, a 422 naming phase."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

PAGES = ("/", "/compare", "/plan", "/disagg", "/mix", "/precision", "/own")


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("query", ["phase=inference", "phase=", "phase=%20"])
def test_a_query_of_only_a_phase_is_the_blank_form(client: TestClient, path: str, query: str) -> None:
    blank = client.get(path)
    response = client.get(f"{path}?{query}", follow_redirects=False)
    assert response.status_code == 200, response.headers.get("location") or response.text[:300]
    assert _page(response.text) == _page(blank.text)


def _page(html: str) -> str:
    """The page less its JSON twin's links (the twin of the query as asked)."""
    return re.sub(r'\.json\?[^"]*"', '.json"', html)


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("query", ["phase=inference&phase=inference", "phase=bogus"])
def test_a_repeated_or_unknown_phase_is_a_422_naming_phase(client: TestClient, path: str, query: str) -> None:
    response = client.get(f"{path}?{query}", follow_redirects=False)
    assert response.status_code == 422
    assert re.search(r'id="err-phase"|href="#f-phase"', response.text)  # the error summary names the field
