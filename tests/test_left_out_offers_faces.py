"""Where the filters leave no current offer (a GPU whose catalog prices are all stale), every serving face says what
the ranking says: which offers the price terms or staleness left out and how to rank them (found by qa14: /precision
said only 'no offer passes the filters', /mix and /disagg blamed the latency limits, /plan said nothing)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.scoring.pricing.offers import matching_offers
from app.scoring.workload import InferenceWorkload

QUESTION = "model=llama-3.1-8b&gpus={gpu}"
FACES = {
    "precision": "/precision.json?" + QUESTION,
    "mix": "/mix.json?mix=chat:1&" + QUESTION,
    "disagg": "/disagg.json?" + QUESTION,
    "plan": "/plan.json?" + QUESTION,
}


@pytest.fixture(scope="module")
def stale_only_gpu(app, client: TestClient) -> str:  # type: ignore[no-untyped-def]
    """A catalog GPU with offers, every one of them stale (the seeded T4's, or another's)."""
    snapshot = app.state.snapshots.get()
    for gpu in sorted(snapshot.gpus):
        offers = [o for o in snapshot.offers if o.gpu_id == gpu and o.price_type == "on_demand"]
        if offers and all(o.stale for o in offers):
            return gpu
    pytest.skip("the seeded catalog has no GPU whose on-demand prices are all stale")


@pytest.mark.parametrize("face", FACES)
def test_a_face_with_no_current_offer_says_what_the_filters_left_out(
    app,  # type: ignore[no-untyped-def]
    client: TestClient,
    stale_only_gpu: str,
    face: str,
) -> None:
    snapshot = app.state.snapshots.get()
    ranked = client.get("/rank.json?phase=inference&" + QUESTION.format(gpu=stale_only_gpu)).json()
    asked = InferenceWorkload(model="llama-3.1-8b", gpus=[stale_only_gpu])
    assert not matching_offers(snapshot.offers, snapshot.gpus, asked)  # nothing current: the faces answer nothing
    left_out = next(n for n in ranked["notes"] if "would match without the price-term and staleness filters" in n)
    body = client.get(FACES[face].format(gpu=stale_only_gpu)).json()
    assert left_out in body["notes"], body["notes"]
    assert not any("at these limits" in note for note in body["notes"])  # no offer, not the limits, is why
