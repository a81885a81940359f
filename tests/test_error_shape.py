"""Every JSON error has one shape, `{"detail": [{"field", "message"}]}` (app/web/errors/error_shape.py): a 422 named its
fields in a list while a 404, 405, 401, 403, 413, 429 or 503 said `{"detail": "string"}`. And POST /share, in the
OpenAPI document now, takes JSON as well as the Save button's form: a JSON body got an HTML 422 "path: Field
required" unless it also sent Accept: application/json."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.web.errors.error_shape import error_entries

LINK = {"path": "/", "query": "model=llama-3.1-8b&input_len=2000"}


@pytest.mark.parametrize(
    ("method", "url", "status", "field", "message"),
    [
        ("GET", "/api/v1/nope", 404, "path", "nothing at /api/v1/nope"),
        ("GET", "/api/v1/gpus/H900", 404, "gpu_id", "no GPU with id 'H900'; did you mean H800, H200, GH200?"),
        ("GET", "/api/v1/models/gpt-99", 404, "model_id", "no model with id 'gpt-99'"),
        ("GET", "/api/v1/offers/999999/history", 404, "offer_id", "no offer with id '999999'"),
        ("GET", "/s/nope.json", 404, "slug", "no saved link with id 'nope'"),
        ("DELETE", "/api/v1/gpus", 405, "method", "DELETE is not allowed at /api/v1/gpus; it takes GET, HEAD"),
        ("GET", "/api/v1/rank/inference", 405, "method", "GET is not allowed at /api/v1/rank/inference; it takes POST"),
        ("GET", "/api/v1/gpus?min_memory_gb=-1", 422, "min_memory_gb", "must be at least 0 GB"),
    ],
)
def test_every_error_is_a_list_of_field_and_message(
    client: TestClient, method: str, url: str, status: int, field: str, message: str
) -> None:
    response = client.request(method, url)
    assert response.status_code == status
    assert response.json() == {"detail": [{"field": field, "message": message}]}


def test_an_html_error_page_shows_the_message_not_the_entry(client: TestClient) -> None:
    page = client.get("/gpus/H900", headers={"accept": "text/html"})
    assert page.status_code == 404 and "no GPU with id &#39;H900&#39;" in page.text and "field" not in page.text


def test_a_string_detail_becomes_one_entry_at_what_to_change() -> None:
    assert error_entries(413, "too big") == [{"field": "body", "message": "too big"}]
    assert error_entries(429, "slow down") == [{"field": "request", "message": "slow down"}]
    entries = [{"field": "gpu", "message": "unknown"}]
    assert error_entries(422, entries) is entries


def test_openapi_documents_the_one_error_shape_on_every_operation(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    error = schema["components"]["schemas"]["Error"]
    assert error["properties"]["detail"]["items"] == {"$ref": "#/components/schemas/ValidationError"}
    assert schema["components"]["schemas"]["ValidationError"]["required"] == ["field", "message"]
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert len(operations) > 15
    for operation in operations:
        ref = operation["responses"]["4XX"]["content"]["application/json"]["schema"]["$ref"]
        assert ref == "#/components/schemas/Error"


def test_share_takes_a_json_body_and_answers_json(client: TestClient) -> None:
    created = client.post("/share", json=LINK)  # no Accept header: the JSON body is the ask
    assert created.status_code == 201
    slug = created.json()["slug"]
    assert created.json() == {"slug": slug, "url": f"/s/{slug}"}
    assert client.get(f"/s/{slug}.json").json()["saved"]["slug"] == slug
    form = client.post("/share", data=LINK, follow_redirects=False)  # the Save button: a form, a browser
    assert form.status_code == 303 and form.headers["location"] == f"/s/{slug}"  # the same question, the same slug


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"query": LINK["query"]}, "path", "Field required"),
        ({**LINK, "path": "/plan"}, "path", "must be one of /, /compare"),
        ({**LINK, "colour": "blue"}, "colour", "Extra inputs are not permitted"),
        ('{"path": "/", "path": "/compare", "query": "model=x"}', "path", "given more than once"),
    ],
)
def test_a_bad_json_share_is_a_json_422_naming_the_field(
    client: TestClient, body: object, field: str, message: str
) -> None:
    if isinstance(body, str):
        response = client.post("/share", content=body, headers={"content-type": "application/json"})
    else:
        response = client.post("/share", json=body)
    assert response.status_code == 422 and response.headers["content-type"] == "application/json"
    [error] = response.json()["detail"]
    assert error["field"] == field and error["message"].startswith(message)


def test_a_form_field_given_twice_is_a_422_naming_it(client: TestClient) -> None:
    response = client.post(
        "/share",
        content=b"path=/&path=/compare&query=model%3Dllama-3.1-8b",
        headers={"content-type": "application/x-www-form-urlencoded", "accept": "application/json"},
    )
    assert response.json()["detail"] == [{"field": "path", "message": "given more than once; send it once"}]


def test_openapi_documents_share_with_json_and_form_bodies(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/share"]["post"]
    content = operation["requestBody"]["content"]
    assert set(content) == {"application/json", "application/x-www-form-urlencoded"}
    assert content["application/json"]["schema"]["required"] == ["path", "query"]
    assert {"201", "303", "422"} <= set(operation["responses"])
    assert "/s/{slug}" not in client.get("/openapi.json").json()["paths"]


def test_field_errors_body_lists_each_field_in_order() -> None:
    from app.web.errors.error_shape import field_errors_body

    body = field_errors_body({"model": "unknown model 'x'", "input_len": "must be at least 1"})
    assert body == {
        "detail": [
            {"field": "model", "message": "unknown model 'x'"},
            {"field": "input_len", "message": "must be at least 1"},
        ]
    }


def test_no_module_builds_the_error_entries_by_hand() -> None:
    """error_shape.field_entries turns {field: message} into the entries; a module spelling that again (five did)
    can drift from the shape."""
    import re
    from pathlib import Path

    web = Path(__file__).resolve().parent.parent / "app" / "web"
    by_hand = [
        path.name
        for path in web.rglob("*.py")
        if path.name != "error_shape.py"
        and re.search(r"\{\"field\": [^{}]*, \"message\": [^{}]*\} for ", path.read_text(encoding="utf-8"))
    ]
    assert by_hand == []


def test_a_browser_share_of_a_question_that_cannot_replay_is_a_page_naming_the_field(client: TestClient) -> None:
    """The Save button on a page whose model the catalog has since lost (or any form post of a bad question) showed
    the browser raw JSON; a browser gets the error page, naming the field, as every other page's bad input does."""
    bad = {"path": "/", "query": "phase=inference&model=no-such-model"}
    page = client.post("/share", data=bad, headers={"accept": "text/html"})
    assert page.status_code == 422 and page.headers["content-type"].startswith("text/html")
    assert "model: unknown model" in page.text
    api = client.post("/share", json=bad)
    assert api.status_code == 422 and api.json()["detail"][0]["field"] == "model"


def test_a_browser_share_refused_as_cross_site_is_a_page_and_a_client_still_gets_json(client: TestClient) -> None:
    """A form post from another site's page (Accept: text/html) got the 403 as raw JSON in the browser; it gets the
    error page saying why, while a JSON client gets the one {field, message} entry."""
    cross_site = {"origin": "https://evil.example"}
    page = client.post("/share", data=LINK, headers={**cross_site, "accept": "text/html"})
    assert page.status_code == 403 and page.headers["content-type"].startswith("text/html")
    assert "cross-site request refused" in page.text
    api = client.post("/share", json=LINK, headers=cross_site)
    assert api.status_code == 403 and api.json()["detail"][0]["field"] == "request"


def test_a_saved_link_answers_201_with_its_location(client: TestClient) -> None:
    """A 201 with no Location is read by HTTP clients as having created the request's own URI, /share."""
    created = client.post("/share", json=LINK)
    assert created.status_code == 201 and created.headers["location"] == created.json()["url"]
    documented = client.get("/openapi.json").json()["paths"]["/share"]["post"]["responses"]["201"]
    assert "Location" in documented["headers"] and "ShareCreated" in str(documented["content"])


def test_an_error_chosen_by_accept_says_it_varies_by_accept(client: TestClient) -> None:
    """/gpus/H900 answers a page or JSON by Accept; a 404 is cacheable by default, so without Vary: Accept a shared
    cache could hand a script the browser's page. The API's paths and the twins answer JSON whatever the Accept."""
    for accept in ("text/html", "application/json"):
        response = client.get("/gpus/H900", headers={"accept": accept})
        assert response.status_code == 404 and "accept" in response.headers["vary"].lower().split(", ")
    assert "accept" not in client.get("/api/v1/gpus/H900").headers.get("vary", "").lower().split(", ")


def test_a_share_body_neither_json_nor_a_form_is_a_415_naming_the_content_type(client: TestClient) -> None:
    """JSON sent as text/plain was read as an empty form: '422 path: Field required' for a body that has a path."""
    response = client.post("/share", content=b'{"path": "/", "query": "model=llama-3.1-8b"}', headers={
        "content-type": "text/plain", "accept": "application/json"})  # fmt: skip
    assert response.status_code == 415
    [error] = response.json()["detail"]
    assert error["field"] == "content-type" and error["message"].startswith("expects application/json or a form")
    multipart = {"path": (None, "/"), "query": (None, "model=llama-3.1-8b")}  # a form all the same
    assert client.post("/share", files=multipart, headers={"accept": "application/json"}).status_code == 201


def test_a_share_sent_as_json_in_capitals_answers_json(client: TestClient) -> None:
    """Content-Type: Application/JSON was read as JSON but answered as a form (303 to the link): media types are
    case-insensitive, so it is a JSON client's 201."""
    response = client.post("/share", json=LINK, headers={"content-type": "Application/JSON"}, follow_redirects=False)
    assert response.status_code == 201 and response.json()["url"].startswith("/s/")
