"""Form conveniences (tokens/s per user, optimizer steps) never silently override a value typed into the field they
set; a field left at the default the form shows is theirs to set."""

from __future__ import annotations

import re


def test_tokens_per_user_and_tpot_together_are_an_error_naming_both(client):
    response = client.get("/rank.json?model=llama-3.1-8b&tokens_per_s_per_user=20&tpot_ms=10")
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"field": "tokens_per_s_per_user", "message": "give one of tokens_per_s_per_user or tpot_ms, not both"}
    ]
    alone = client.get("/rank.json?model=llama-3.1-8b&tokens_per_s_per_user=20")
    assert alone.json()["workload"]["tpot_ms"] == 50


def test_steps_and_a_token_budget_together_are_an_error_and_the_form_keeps_both(client):
    page = client.get("/?phase=training&model=llama-3.1-8b&steps=1000&total_tokens=5", follow_redirects=False)
    assert page.status_code == 422 and "give one of steps or total_tokens, not both" in page.text
    assert re.search(r'id="f-total_tokens"[^>]*value="5"', page.text)


def test_steps_must_be_a_whole_number(client):
    for steps in ("2.5", "0", "-3", "nan"):
        page = client.get(f"/?phase=training&model=llama-3.1-8b&steps={steps}", follow_redirects=False)
        assert page.status_code == 422 and "must be a whole number of optimizer steps" in page.text, steps
    whole = client.get("/?phase=training&model=llama-3.1-8b&steps=1000", follow_redirects=False)
    assert whole.headers["location"] == "/?phase=training&model=llama-3.1-8b&total_tokens=262144000"


def test_a_field_left_at_the_default_the_form_shows_is_set_by_its_convenience(client):
    """The form shows TPOT 50 ms and a 2e9-token budget filled in: typing 40 tokens/s per user (or 100 steps) beside
    them asks for 25 ms (or 100 steps' tokens), not for both at once."""
    rate = "/?phase=inference&model=llama-3.1-8b&tpot_ms=50&tokens_per_s_per_user=40"
    page = client.get(rate, follow_redirects=False)
    assert page.status_code == 303 and "tpot_ms=25" in page.headers["location"]
    steps = "/?phase=training&model=llama-3.1-8b&total_tokens=2000000000&steps=100"
    page = client.get(steps, follow_redirects=False)
    assert page.status_code == 303 and "total_tokens=2000000000" not in page.headers["location"]
