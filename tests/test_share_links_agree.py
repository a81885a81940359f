"""One question, one link: the share_url every feature API and the CLI give is the canonical URL the page
itself keeps (it answers 200, not a 303 to another spelling), the default traffic included."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli

QUESTIONS = [
    ("/api/v1/plan/serving", {"workload": {"model": "llama-3.1-8b"}}),
    ("/api/v1/disagg", {"workload": {"model": "llama-3.1-8b"}}),
    ("/api/v1/plan/lifecycle", {"training": {"model": "llama-3.1-8b"}, "inference": {"model": "llama-3.1-8b"}}),
    ("/api/v1/plan/serving", {"workload": {"model": "llama-3.1-8b"}, "traffic": {"peak_requests_per_s": 2}}),
    ("/api/v1/mix", {"model": "llama-3.1-8b"}),
    ("/api/v1/precision", {"model": "llama-3.1-8b", "ttft_ms": 1000.0}),
    ("/api/v1/own", {"gpu": "H100-SXM", "utilisation_pct": 60}),
    ("/api/v1/rank/training", {"model": "llama-3.1-8b"}),
]


@pytest.mark.parametrize(("path", "body"), QUESTIONS)
def test_an_api_share_url_is_the_pages_canonical_url(client: TestClient, path: str, body: dict[str, Any]) -> None:
    share_url = client.post(path, json=body).json()["share_url"]
    page = client.get(share_url, follow_redirects=False)
    assert page.status_code == 200, f"{share_url} redirects to {page.headers.get('location')}"


def test_the_cli_share_link_is_the_pages_canonical_url(client: TestClient, database: str, capsys: Any) -> None:
    assert cli(["disagg", "--model", "llama-3.1-8b"]) == 0
    share_url = capsys.readouterr().out.rsplit("share: ", 1)[1].strip()
    assert share_url.endswith("requests_per_day=100000")
    assert client.get(share_url, follow_redirects=False).status_code == 200
