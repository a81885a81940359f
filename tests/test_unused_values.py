"""A value a page does not use is still read: a bad one is an error there as everywhere, a good one leaves
the link (but /plan's train_* fields without months, which stay in it, said unused). A saved link's question is
fixed, so only its view may follow it."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import settings_for


def test_precision_refuses_bad_dtypes_and_drops_good_ones(client):
    bad = client.get("/precision.json?model=llama-3.1-70b&weight_dtype=bogus&kv_dtype=zzz")
    assert bad.status_code == 422
    assert {e["field"] for e in bad.json()["detail"]} == {"weight_dtype", "kv_dtype"}
    good = client.get("/precision?model=llama-3.1-70b&weight_dtype=fp8", follow_redirects=False)
    assert good.status_code == 303 and good.headers["location"] == "/precision?model=llama-3.1-70b"


def test_plan_refuses_bad_training_fields_without_months_and_keeps_good_ones(client):
    """A good train_* field without months stays in the link, said unused: dropping it lost what the form showed
    (tests/test_plan_train_fields_without_months.py)."""
    bad = client.get("/plan.json?model=llama-3.1-70b&train_method=bogus&train_foo=1")
    assert bad.status_code == 422
    assert {e["field"] for e in bad.json()["detail"]} == {"train_method", "train_foo"}
    good = client.get("/plan?model=llama-3.1-70b&train_method=full_ft", follow_redirects=False)
    assert good.headers["location"] == "/plan?model=llama-3.1-70b&requests_per_day=100000&train_method=full_ft"


def test_a_saved_link_refuses_question_fields_after_it(fresh_url):
    with TestClient(create_app(settings_for(fresh_url)), follow_redirects=False) as client:
        slug_url = client.post("/share", data={"path": "/", "query": "phase=inference&model=llama-3.1-70b"}).headers[
            "location"
        ]
        bad = client.get(slug_url + ".json?model=llama-3.1-70b&input_len=0")
        assert bad.status_code == 422
        assert {e["field"] for e in bad.json()["detail"]} == {"model", "input_len"}
        assert client.get(slug_url + "?input_len=0").status_code == 422
        assert client.get(slug_url + ".json?sort=ttft&show=50").status_code == 200
