"""A heavy request refused for want of a ranking slot: browsers get HTML that retries, API clients JSON."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import anyio
from fastapi.testclient import TestClient

from app.web.middleware.ranking_slots import RankingSlots


def _refused(path: str, query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None) -> tuple[int, dict, str]:
    """One request through a middleware whose every slot is taken."""

    async def never_called(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        raise AssertionError("a refused request reached the app")

    messages: list[dict] = []

    async def send(message) -> None:  # type: ignore[no-untyped-def]
        messages.append(message)

    async def receive():  # type: ignore[no-untyped-def]
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "GET", "path": path, "query_string": query, "headers": headers or []}
    with ThreadPoolExecutor(max_workers=1) as pool:  # Playwright may hold the main thread's event loop
        pool.submit(anyio.run, RankingSlots(never_called, slots=0), scope, receive, send).result()
    start, body = messages
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body["body"].decode()


def test_a_busy_page_answers_html_that_refreshes_itself_with_the_503_and_retry_after():
    for path in ("/", "/mix", "/compare", "/disagg", "/s/ab12"):
        status, headers, body = _refused(path, b"model=llama-3.1-70b")
        assert status == 503 and headers["retry-after"] == "1", path
        assert headers["content-type"].startswith("text/html"), path
        assert '<meta http-equiv="refresh" content="1">' in body and "<script" not in body
        assert f'href="{path}?model=llama-3.1-70b"' in body  # a link to retry by hand


def test_a_busy_htmx_swap_gets_a_notice_in_its_target_that_asks_again():
    headers = [(b"hx-request", b"true"), (b"hx-target", b"planbench")]
    status, sent, body = _refused("/plan", b"model=llama-3.1-8b&x=<b>", headers)
    assert status == 503 and sent["retry-after"] == "1"
    assert body.startswith('<div id="planbench" class="busy"')
    assert 'hx-get="/plan?model=llama-3.1-8b&amp;x=&lt;b&gt;" hx-trigger="load delay:1s"' in body
    hostile = [(b"hx-request", b"true"), (b"hx-target", b'x" onload="alert(1)')]
    assert "onload" not in _refused("/plan", b"", hostile)[2]  # an unexpected target is not echoed


def test_api_clients_and_twins_keep_the_json_detail():
    for path in ("/rank.json", "/plan.csv", "/api/v1/rank/inference", "/s/ab12.json"):
        status, headers, body = _refused(path)
        assert status == 503 and headers["content-type"] == "application/json", path
        [error] = json.loads(body)["detail"]
        assert error["field"] == "request" and error["message"].startswith("busy:")


def test_htmx_swaps_the_busy_notice_instead_of_dropping_it(client: TestClient):
    page = client.get("/own").text
    config = page.split('name="htmx-config" content=\'')[1].split("'")[0]
    rules = json.loads(config)["responseHandling"]
    first = next(rule for rule in rules if rule["code"] in ("503", "[45].."))
    assert first == {"code": "503", "swap": True}
