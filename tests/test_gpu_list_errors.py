"""/gpus with a bad filter re-renders itself, the typed value in its form and the error beside its field (422), as
the question pages do; it answered the general "Invalid input" page. Its /gpus.json twin answers the 422 JSON naming
the field, as before."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

BAD = [
    ("min_memory_gb=abc", "min_memory_gb", "abc", "must be a number of GB"),
    ("min_memory_gb=-1", "min_memory_gb", "-1", "must be at least 0 GB"),
    ("min_memory_gb=nan", "min_memory_gb", "nan", "finite"),
    ("min_memory_gb=1e400", "min_memory_gb", "1e400", "finite"),
    ("min_memory_gb=20000", "min_memory_gb", "20000", "must be at most 10,000 GB"),
    ("min_memory_gb=80&min_memory_gb=40", "min_memory_gb", "40", "given more than once"),
    ("vendor=nvidai", "vendor", "nvidai", "unknown vendor id 'nvidai'"),
    ("sort=bogus", "sort", "bogus", "Input should be"),
]


@pytest.mark.parametrize(("query", "field", "typed", "why"), BAD)
def test_a_bad_filter_rerenders_the_gpu_list_with_the_error_beside_its_field(
    client: TestClient, query: str, field: str, typed: str, why: str
) -> None:
    response = client.get(f"/gpus?{query}")
    assert response.status_code == 422
    page = response.text
    assert "<h1>GPUs</h1>" in page and "Invalid input" not in page
    marked = rf'id="f-{field}"[^>]*aria-invalid="true"[^>]*>'
    beside = re.search(rf'{marked}.*?<span class="field-error" id="err-{field}">(.*?)</span>', page, re.S)
    assert beside and why in unescape(beside.group(1)), page
    assert f'value="{typed}"' in page  # what was typed stays in the form, to be corrected
    assert 'id="error-summary"' in page and "<tbody" not in page  # no list for a question it could not read
    twin = client.get(f"/gpus.json?{query}")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == field


def test_an_htmx_filter_change_swaps_in_the_error_summary(client: TestClient) -> None:
    """The form swaps only #gpu-table: the summary naming the field is inside it."""
    response = client.get("/gpus?min_memory_gb=abc", headers={"HX-Request": "true"})
    assert response.status_code == 422 and response.text.lstrip().startswith('<div id="gpu-table"')
    assert '<a href="#f-min_memory_gb">Minimum memory</a>: must be a number of GB' in response.text


def test_a_key_the_gpu_list_does_not_take_is_named_on_the_page(client: TestClient) -> None:
    page = client.get("/gpus?min_memory=80").text
    named = "min_memory: not a query parameter of GET /gpus (did you mean min_memory_gb?)"
    assert f'<li id="err-min_memory">{named}' in page
    assert client.get("/gpus.json?min_memory=80").json()["detail"][0]["field"] == "min_memory"


def test_good_filters_still_list_and_canonicalise(client: TestClient) -> None:
    assert client.get("/gpus?min_memory_gb=80.0&vendor=", follow_redirects=False).headers["location"] == (
        "/gpus?min_memory_gb=80"
    )
    page = client.get("/gpus?vendor=AMD&min_memory_gb=150&sort=memory")
    rows = re.findall(r'<td data-label="Vendor" role="cell">(.*?)</td>', page.text)
    assert page.status_code == 200 and rows and set(rows) == {"AMD"}
    assert 'value="150"' in page.text and '<option value="memory" selected>' in page.text
    listed = client.get("/gpus.json?vendor=AMD&min_memory_gb=150").json()
    assert listed and all(g["vendor"] == "AMD" and g["memory_gb"] >= 150 for g in listed)
