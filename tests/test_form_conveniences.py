"""Form conveniences (tokens/s per user, optimizer steps) never silently override the field they set: given beside
it, the field must say the same, a default too; the form shows those fields empty at their default, so typing the
convenience sends one value."""

from __future__ import annotations

import re


def test_tokens_per_user_and_tpot_together_are_an_error_naming_both(client):
    response = client.get("/rank.json?model=llama-3.1-8b&tokens_per_s_per_user=20&tpot_ms=10")
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == "tokens_per_s_per_user"
    assert error["message"].startswith("give one of tokens_per_s_per_user or tpot_ms, not both: ")
    assert "tpot_ms = 50" in error["message"] and "tpot_ms is 10" in error["message"]
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


def test_a_convenience_beside_its_field_at_the_default_is_two_values_for_one_setting(client):
    """100 steps beside a 2e9-token budget asks for two budgets: the steps used to win silently (26,214,400
    tokens), as 40 tokens/s per user did over tpot_ms=50."""
    steps = client.get("/rank.json?phase=training&model=llama-3.1-8b&total_tokens=2e9&steps=100")
    assert steps.status_code == 422
    [error] = steps.json()["detail"]
    assert error["field"] == "steps"
    assert "total_tokens = 26,214,400" in error["message"] and "total_tokens is 2,000,000,000" in error["message"]
    rate = client.get("/?phase=inference&model=llama-3.1-8b&tpot_ms=50&tokens_per_s_per_user=40")
    assert rate.status_code == 422 and "tpot_ms = 25" in rate.text
    plan = client.get("/plan.json?model=llama-3.1-8b&months=12&train_total_tokens=2e9&train_steps=100")
    assert plan.status_code == 422 and [e["field"] for e in plan.json()["detail"]] == ["train_steps"]


def test_a_convenience_beside_the_same_value_is_one_question(client):
    same = client.get("/?phase=training&model=llama-3.1-8b&total_tokens=26214400&steps=100", follow_redirects=False)
    assert same.status_code == 303
    assert same.headers["location"] == "/?phase=training&model=llama-3.1-8b&total_tokens=26214400"
    rate = client.get("/rank.json?model=llama-3.1-8b&tokens_per_s_per_user=20&tpot_ms=50")
    assert rate.status_code == 200 and rate.json()["workload"]["tpot_ms"] == 50


def _value(page: str, name: str) -> str:
    found = re.search(rf'<input id="f-{name}"[^>]*value="([^"]*)"', page)
    assert found, name
    return found.group(1)


def test_the_form_leaves_a_field_its_convenience_sets_empty_at_the_default(client):
    """So typing steps (or tokens/s per user) into a blank form sends one value, not the default beside it."""
    blank = client.get("/?phase=training").text
    assert _value(blank, "total_tokens") == "" and 'placeholder="2000000000"' in blank
    inference = client.get("/?phase=inference&model=llama-3.1-8b").text
    assert _value(inference, "tpot_ms") == "" and 'placeholder="50"' in inference
    chosen = client.get("/?phase=training&model=llama-3.1-8b&total_tokens=5000000").text
    assert _value(chosen, "total_tokens") == "5000000"
    plan = client.get("/plan?model=llama-3.1-8b&requests_per_day=100000&months=12").text
    assert _value(plan, "train_total_tokens") == ""
