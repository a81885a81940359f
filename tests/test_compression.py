"""Pages and JSON go out gzip'd to a client that accepts it, at zlib's default level (app.web.edge.GZIP_LEVEL), not
Starlette's 9: most of the time for 2 % fewer bytes."""

from __future__ import annotations

from fastapi.testclient import TestClient
from starlette.middleware.gzip import GZipMiddleware

from app.web import edge

PAGE = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8"


def test_a_results_page_is_gzipd_at_the_edges_level(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    gzips = [m for m in app.user_middleware if m.cls is GZipMiddleware]
    assert len(gzips) == 1 and gzips[0].kwargs["compresslevel"] == edge.GZIP_LEVEL == 6
    page = client.get(PAGE, headers={"accept-encoding": "gzip"})
    assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
    assert "<table" in page.text  # httpx decoded it: a whole page


def test_a_small_answer_is_not_compressed(client: TestClient) -> None:
    response = client.get("/healthz", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200 and "content-encoding" not in response.headers
