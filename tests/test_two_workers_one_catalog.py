"""Two workers over one database (`make run-multi`): each app here is one worker, with its own catalog snapshot, as
a separate process has. An admin price change through A is what B ranks with once B rechecks the catalog version
(every GPUMATCH_CATALOG_RECHECK_S; 0: on its next request), and a link saved on A opens on B with its saved price
and the words saying the price moved since. On the test Postgres too (scripts/test.sh)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from app.catalog.snapshot import VERSION_RECHECK_S
from app.config import Settings
from app.main import create_app
from tests.conftest import settings_for

TOKEN = "test-admin-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = {"accept": "application/json"}
QUESTION = "model=llama-3.1-8b&gpus=H100-SXM&providers=runpod"
RANK_BODY = {"model": "llama-3.1-8b", "gpus": ["H100-SXM"], "providers": ["runpod"]}
# seed_data/offers.csv's RunPod Secure Cloud H100 (3.99 a GPU-hour on 2026-11-09), repriced the same day by an admin.
REPRICED = {
    "provider_id": "runpod",
    "gpu_id": "H100-SXM",
    "gpu_count": 1,
    "price_type": "on_demand",
    "instance_type": "",
    "region": "Secure Cloud",
    "usd_per_hour": 2.5,
    "usd_per_gpu_hour": 2.5,
    "as_of": "2026-11-09",
    "source_url": "https://www.runpod.io/pricing",
}


@pytest.fixture
def workers(fresh_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Worker A (admin on) and worker B (rechecking the catalog version on every request) over one database."""
    with ExitStack() as stack:
        a = stack.enter_context(TestClient(create_app(settings_for(fresh_url, admin_token=TOKEN))))
        b = stack.enter_context(TestClient(create_app(settings_for(fresh_url, catalog_recheck_s=0))))
        yield a, b


def cheapest(client: TestClient) -> float:
    response = client.post("/api/v1/rank/inference?limit=1", json=RANK_BODY)
    assert response.status_code == 200, response.text
    return response.json()["options"][0]["usd_per_gpu_hour"]


def test_the_recheck_setting_defaults_to_the_snapshots_interval() -> None:
    assert Settings.model_fields["catalog_recheck_s"].default == VERSION_RECHECK_S


def test_an_admin_price_change_through_one_worker_is_what_the_other_answers_next(
    workers: tuple[TestClient, TestClient],
) -> None:
    a, b = workers
    assert cheapest(a) == cheapest(b) == 3.99  # both snapshots loaded before the change
    slug = a.post("/share", data={"path": "/", "query": QUESTION}, headers=JSON).json()["slug"]
    response = a.post("/api/v1/admin/offers", json=[REPRICED], headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json()["prices_changed"] == 1
    assert cheapest(b) == 2.5, "worker B ranked with the price its snapshot held before A's change"
    saved = b.get(f"/s/{slug}.json")
    assert saved.status_code == 200
    assert saved.json()["options"][0]["usd_per_gpu_hour"] == 3.99, "a saved link ranks at the prices it saved"
    assert saved.json()["saved"]["offers_changed_since"] == 1
    assert "1 offer changed since" in b.get(f"/s/{slug}").text


def test_a_worker_with_the_default_interval_answers_from_memory_until_its_recheck(fresh_url: str) -> None:
    with (
        TestClient(create_app(settings_for(fresh_url, admin_token=TOKEN))) as a,
        TestClient(create_app(settings_for(fresh_url))) as b,
    ):
        assert cheapest(b) == 3.99
        assert a.post("/api/v1/admin/offers", json=[REPRICED], headers=AUTH).status_code == 200
        b.app.state.snapshots._checked_at -= VERSION_RECHECK_S  # type: ignore[attr-defined]  # the interval passed
        assert cheapest(b) == 2.5


def test_two_workers_saving_the_same_question_at_once_give_one_link(workers: tuple[TestClient, TestClient]) -> None:
    a, b = workers

    def save(i: int) -> tuple[int, str]:
        response = (a, b)[i % 2].post("/share", data={"path": "/", "query": QUESTION}, headers=JSON)
        return response.status_code, response.json().get("slug", response.text)

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = set(pool.map(save, range(16)))
    assert len(answers) == 1, answers
    [(status, slug)] = answers
    assert status == 201
    assert a.get(f"/s/{slug}.json").status_code == b.get(f"/s/{slug}.json").status_code == 200
