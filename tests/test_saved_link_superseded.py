"""A saved link replays the prices it was saved with, superseded ones among them; since trust7 no ranking lists a
superseded price, so a link saved when Nebius's undated $5.50/GPU-h B200 was its #1 (a 70B full fine-tune, stale prices
asked for) opened with Nebius's $8.50 as #1 and 'no offer has changed since': a different answer, said nowhere. The
saved block now names the history prices its question would rank and what replaced them (found by qa25)."""

from __future__ import annotations

import html

from fastapi.testclient import TestClient

QUESTION = "phase=training&model=llama-3.1-70b&method=full_ft&include_stale=true&gpus=B200&providers=nebius"


def _open(client: TestClient, query: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    created = client.post("/share", json={"path": "/", "query": query})
    assert created.status_code == 201, created.text
    slug = created.json()["slug"]
    return client.get(f"/s/{slug}.json").json(), client.get(f"/s/{slug}").text


def test_a_saved_link_whose_question_a_superseded_price_matches_says_it_is_history(client: TestClient) -> None:
    body, page = _open(client, QUESTION)
    assert [o["usd_per_gpu_hour"] for o in body["options"][:1]] == [8.5]  # the $5.50 snapshot is not ranked
    saved = body["saved"]
    assert saved["offers_changed_since"] == 0  # no price changed: the count alone said nothing changed
    earlier = client.get("/api/v1/gpus/B200").json()["earlier_prices"]
    assert saved["superseded_offer_ids"] == [o["id"] for o in earlier if o["provider_id"] == "nebius"]
    note = saved["superseded_note"]
    assert "Nebius's $5.50/GPU-h B200 (undated), replaced by $8.50/GPU-h since 2026-10-07" in note
    assert "even as its #1" not in note  # saved today: no ranking since has listed a superseded price
    assert note in " ".join(html.unescape(page).split())  # the page says it in the saved note


def test_a_saved_link_no_superseded_price_could_rank_has_no_history_note(client: TestClient) -> None:
    body, _ = _open(client, QUESTION.replace("&include_stale=true", ""))  # undated snapshots need stale prices
    assert body["saved"]["superseded_offer_ids"] == [] and body["saved"]["superseded_note"] == ""


def test_only_a_link_saved_before_superseded_prices_left_the_rankings_may_have_ranked_one() -> None:
    from datetime import date, datetime, timedelta

    from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE, CatalogSnapshot, Offer
    from app.service.saved_history import SUPERSEDED_UNRANKED_SINCE, history_note

    old = Offer("nebius", "Nebius", "B200", 8, "on_demand", 5.5, price_note=SUPERSEDED_BY_NEWER_PRICE, offer_id=1)
    now = Offer("nebius", "Nebius", "B200", 8, "on_demand", 8.5, as_of=date(2026, 10, 7), offer_id=2)
    current = CatalogSnapshot(offers=(now,))
    changed = datetime.combine(SUPERSEDED_UNRANKED_SINCE, datetime.min.time())
    for saved_at, may_have_ranked in ((changed - timedelta(days=1), True), (None, True), (changed, False)):
        note = history_note([old], current, saved_at)
        assert "replaced by $8.50/GPU-h since 2026-10-07" in note
        assert ("even as its #1" in note) is may_have_ranked, saved_at
