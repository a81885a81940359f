"""The served app's start-up raises the cyclic collector's young threshold (app.main.GC_YOUNG_THRESHOLD: a ranking
paid 15-25 % of its mean time in young collections at CPython's 700, a rank API request 7.8 % of its CPU at 10,000),
after it loads the catalog snapshot; building the app, and importing it or the scoring package, leave CPython's
thresholds alone."""

import gc
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import GC_OLDER_THRESHOLDS, GC_YOUNG_THRESHOLD, create_app
from tests.conftest import settings_for

CPYTHON_DEFAULT = (700, 10, 10)


@pytest.fixture
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*CPYTHON_DEFAULT)
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("default_thresholds")
def test_the_served_apps_start_up_raises_the_young_threshold_and_building_it_does_not(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url))
    assert gc.get_threshold() == CPYTHON_DEFAULT
    with TestClient(app) as client:
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *GC_OLDER_THRESHOLDS)
        assert client.get("/healthz").status_code == 200
    assert CPYTHON_DEFAULT[0] < GC_YOUNG_THRESHOLD


@pytest.mark.usefixtures("default_thresholds")
def test_the_threshold_is_raised_after_the_catalog_snapshot_loads(seeded_url: str) -> None:
    app = create_app(settings_for(seeded_url))
    load = app.state.snapshots.get
    seen_while_loading = []

    def recorded_load() -> object:
        seen_while_loading.append(gc.get_threshold())
        return load()

    app.state.snapshots.get = recorded_load
    with TestClient(app):
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *GC_OLDER_THRESHOLDS)
    assert seen_while_loading[0] == CPYTHON_DEFAULT  # the start-up's load ran before the threshold was raised
