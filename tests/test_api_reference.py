"""/docs reads without JavaScript: a plain GET holds the whole API reference, generated from the app's own OpenAPI
schema. It used to be Swagger UI alone, one paragraph without JavaScript. These tests read the HTML as a client
without JavaScript would (no browser), so a route or field left out of the static reference fails here."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.site import api_docs
from app.web.site.api_docs import cached_reference
from app.web.site.doc_text import blocks_html, inline_html
from app.web.site.schema_words import limits_text, type_text
from tests.conftest import settings_for


@dataclass
class Article:
    heading: str = ""
    text: str = ""
    examples: list[str] = field(default_factory=list)


class ReferenceParser(HTMLParser):
    """Each <article id=…>: its h3's text, all its text, and its <pre> blocks; and every in-page link."""

    def __init__(self) -> None:
        super().__init__()
        self.articles: dict[str, Article] = {}
        self.links: set[str] = set()
        self.current: Article | None = None
        self.in_heading = self.in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "article" and values.get("id"):
            self.current = self.articles.setdefault(str(values["id"]), Article())
        elif tag == "a" and (values.get("href") or "").startswith("#"):
            self.links.add(str(values["href"])[1:])
        elif self.current is not None and tag in ("h3", "pre"):
            self.in_heading, self.in_pre = tag == "h3", tag == "pre"
            if tag == "pre":
                self.current.examples.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self.current = None
        self.in_heading = self.in_heading and tag != "h3"
        self.in_pre = self.in_pre and tag != "pre"

    def handle_data(self, data: str) -> None:
        if self.current is None:
            return
        self.current.text += data
        if self.in_heading:
            self.current.heading += data
        if self.in_pre:
            self.current.examples[-1] += data


@pytest.fixture(scope="module")
def page(client: TestClient) -> ReferenceParser:
    response = client.get("/docs")
    assert response.status_code == 200
    parser = ReferenceParser()
    parser.feed(response.text)
    return parser


@pytest.fixture(scope="module")
def schema(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def _article(page: ReferenceParser, method: str, path: str) -> tuple[str, Article]:
    found = [(anchor, a) for anchor, a in page.articles.items() if " ".join(a.heading.split()) == f"{method} {path}"]
    assert len(found) == 1, f"{method} {path} has no section of its own in /docs' reference"
    return found[0]


def _schema_operations(routes: list[Any], prefix: str = "", shown: bool = True) -> Iterator[tuple[str, str]]:
    """(method, path) of every route with an OpenAPI operation, through routers included in routers."""
    for route in routes:
        inner = getattr(route, "original_router", None)  # FastAPI's included router
        if inner is not None:
            context = route.include_context
            yield from _schema_operations(inner.routes, prefix + context.prefix, shown and context.include_in_schema)
        elif isinstance(route, APIRoute) and shown and route.include_in_schema:
            yield from ((method, prefix + route.path_format) for method in sorted(route.methods))


def test_every_route_in_the_schema_has_its_section_summary_and_contents_link(
    app: Any, page: ReferenceParser, schema: dict[str, Any]
) -> None:
    operations = list(_schema_operations(app.routes))
    assert len(operations) > 15
    for method, path in operations:
        summary = schema["paths"][path][method.lower()]["summary"]
        anchor, article = _article(page, method, path)
        assert summary and summary in article.text, (method, path)
        assert anchor in page.links, f"the contents do not link to {method} {path}"


def test_every_post_shows_its_example_body_in_a_curl(page: ReferenceParser, schema: dict[str, Any]) -> None:
    posts = [(path, ops["post"]) for path, ops in schema["paths"].items() if "post" in ops]
    assert len(posts) >= 10
    for path, operation in posts:
        example = operation["requestBody"]["content"]["application/json"]["example"]
        curl = next(text for text in _article(page, "POST", path)[1].examples if text.startswith("curl"))
        assert f"-X POST 'http://testserver{path}'" in curl
        body = curl.split(" -d '", 1)[1].rsplit("'", 1)[0].replace("'\\''", "'")
        assert json.loads(body) == example, path


def _properties(schema: dict[str, Any], fragment: dict[str, Any]) -> list[str]:
    if fragment.get("type") == "array":
        fragment = fragment["items"]
    name = fragment.get("$ref", "").rsplit("/", 1)[-1]
    return list(schema["components"]["schemas"].get(name, {}).get("properties", {}))


def test_every_parameter_body_field_and_response_field_is_listed(page: ReferenceParser, schema: dict[str, Any]) -> None:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            text = _article(page, method.upper(), path)[1].text.replace("\u200b", "")
            names = [parameter["name"] for parameter in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            names += _properties(schema, body.get("schema", {}))
            success = operation["responses"].get("200") or operation["responses"].get("201") or {}
            names += _properties(schema, success.get("content", {}).get("application/json", {}).get("schema", {}))
            missing = [name for name in names if not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)]
            assert missing == [], f"{method.upper()} {path}"


def test_a_nested_object_lists_its_own_fields_one_level_down(page: ReferenceParser) -> None:
    text = _article(page, "POST", "/api/v1/plan/serving")[1].text
    assert "requests_per_day" in text and "peak_factor" in text  # Traffic's, inside the body's traffic field
    assert "diurnal: busiest hour / mean" in text  # with their descriptions


def test_the_error_shape_and_names_table_read_without_javascript(client: TestClient) -> None:
    html = client.get("/docs").text
    swagger_at = html.index('id="swagger-ui"')
    assert html.index('<section id="errors">') > swagger_at  # the reference is not inside the folded Swagger UI
    assert "one entry per bad field" in html and "<code>usd_<wbr>per_<wbr>month_<wbr>at_<wbr>peak</code>" in html
    assert "<script>" not in html.split('<div class="api-ref">', 1)[1]


def test_the_reference_is_built_once_per_schema(app: Any) -> None:
    first = cached_reference(app)
    assert cached_reference(app) is first
    app.openapi_schema = None  # what a change of routes asks for: the schema, and so the reference, is rebuilt
    try:
        rebuilt = cached_reference(app)
        assert rebuilt is not first and rebuilt.schema is app.openapi_schema
        assert rebuilt.html == first.html
    finally:
        app.openapi_schema = first.schema
        app.state.api_reference = first


def test_start_up_builds_the_reference_before_anyone_asks_for_docs(seeded_url: str) -> None:
    """The first GET /docs after start-up took ~1.1 s (app.openapi() builds the schema, ~1.3 s of it); a thread the
    lifespan starts builds it, so the first visitor finds it made (found by leftovers10)."""
    app = create_app(settings_for(seeded_url, warm_api_docs=True))
    with TestClient(app) as client:
        app.state.api_docs_warm_up.join(timeout=60)
        cached = app.state.api_reference  # filled without a request for /docs
        assert cached.schema is app.openapi() and 'id="errors"' in cached.html
        assert client.get("/docs").status_code == 200 and app.state.api_reference is cached


def test_start_up_and_healthz_do_not_wait_for_the_reference(seeded_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm-up held back: start-up completes and /healthz answers while it is still running; off, no thread."""
    release, built = threading.Event(), threading.Event()

    def slow_build(app: Any) -> None:
        release.wait(timeout=60)
        built.set()

    monkeypatch.setattr(api_docs, "cached_reference", slow_build)
    app = create_app(settings_for(seeded_url, warm_api_docs=True))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200 and not built.is_set()
        release.set()
        app.state.api_docs_warm_up.join(timeout=60)
        assert built.is_set()
    off = create_app(settings_for(seeded_url))
    with TestClient(off):
        assert not hasattr(off.state, "api_docs_warm_up") and not hasattr(off.state, "api_reference")


@pytest.mark.parametrize(
    ("fragment", "type_words", "limit_words"),
    [
        ({"anyOf": [{"type": "integer"}, {"type": "null"}], "ge": 1, "le": 1000}, "integer | null", "1 to 1,000"),
        ({"type": "number", "exclusiveMinimum": 0}, "number", "> 0"),
        (
            {"type": "array", "maxItems": 10, "items": {"type": "string", "enum": ["spot", "reserved"]}},
            "array of string",
            "at most 10 items; each one of spot, reserved",
        ),
        ({"anyOf": [{"$ref": "#/components/schemas/Traffic"}, {"type": "null"}]}, "Traffic | null", ""),
        ({"type": "string", "maxLength": 20}, "string", "at most 20 characters"),
        ({"type": "number", "maximum": 1e10, "minimum": 1e-06}, "number", "0.000001 to 10,000,000,000"),
    ],
)
def test_schema_fragments_in_words(fragment: dict[str, Any], type_words: str, limit_words: str) -> None:
    assert type_text(fragment) == type_words
    assert limits_text(fragment) == limit_words


def test_descriptions_are_escaped_before_their_markdown_is_read() -> None:
    assert inline_html("<b>x</b> `a<i>` **bold**") == (
        "&lt;b&gt;x&lt;/b&gt; <code>a&lt;i&gt;</code> <strong>bold</strong>"
    )
    table = blocks_html("intro\n\n| a | b |\n|---|---|\n| `x_y` | <z> |")
    assert "<p>intro</p>" in table and "<td><code>x_<wbr>y</code></td><td>&lt;z&gt;</td>" in table


def test_a_description_table_is_named_by_the_paragraph_before_it() -> None:
    """A screen reader announces /docs' name table by what introduces it, not as an unnamed table (found by qa24)."""
    named = blocks_html("**Two names.** Where faces differ:\n\n| a | b |\n|---|---|\n| x | y |")
    assert '<table class="data doc-table" aria-label="Two names. Where faces differ:">' in named
    assert 'aria-label="a, b"' in blocks_html("| a | b |\n|---|---|\n| x | y |")
