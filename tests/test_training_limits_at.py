"""A training run's deadline at its tokens/s band's slow end through every face: the JSON API, share links, the
ranking page and its form, the CLI."""

import json

from fastapi.testclient import TestClient

RANK = "/api/v1/rank/training"
# 8×B200 finish in 1.6 days on the estimate, 2.6 at the band's slow end: a 2-day deadline sits between them
QUESTION = {"model": "llama-3.1-8b", "method": "full_ft", "total_tokens": 2e10, "max_days": 2}
PAGE = "/?phase=training&model=llama-3.1-8b&method=full_ft&total_tokens=20000000000&max_days=2"


def _rank(client: TestClient, **more: object) -> dict:
    response = client.post(RANK + "?terms=false", json={**QUESTION, **more})
    assert response.status_code == 200, response.text
    return response.json()


def test_band_high_leaves_no_option_at_risk_on_more_gpus(client: TestClient):
    plain, safe = _rank(client), _rank(client, limits_at="band_high")
    assert "at its band's slow end, over the 2-day deadline" in plain["options"][0]["deadline_at_risk"]
    assert safe["options"][0]["feasible"] and all(o["deadline_at_risk"] == "" for o in safe["options"])
    assert safe["options"][0]["gpu_count"] > plain["options"][0]["gpu_count"]
    assert safe["options"][0]["usd_per_step"] >= plain["options"][0]["usd_per_step"]
    assert "limits_at=band_high" in safe["share_url"] and "limits_at" not in plain["share_url"]
    assert safe["workload"]["limits_at"] == "band_high" and "limits_at" not in plain["workload"]


def test_estimate_is_the_default(client: TestClient):
    assert _rank(client, limits_at="estimate") == _rank(client)


def test_a_bad_limits_at_is_a_422_naming_the_field(client: TestClient):
    response = client.post(RANK, json={**QUESTION, "limits_at": "p90"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "limits_at"
    page = client.get(PAGE + "&limits_at=p90")
    assert page.status_code == 422 and 'id="err-limits_at"' in page.text


def test_the_results_page_badges_the_winner_and_links_to_the_slow_end(client: TestClient):
    plain = client.get(PAGE).text
    assert '<span class="badge warn">deadline at risk</span>' in plain
    link = 'href="' + PAGE.replace("&", "&amp;") + '&amp;limits_at=band_high"'
    assert f"<a {link}>meet the deadline even at the slow end of the band" in plain
    safe = client.get(PAGE + "&limits_at=band_high")
    assert safe.status_code == 200 and "deadline at risk" not in safe.text
    assert "Planned for the slow end of the band" in safe.text
    assert f'href="{PAGE.replace("&", "&amp;")}">Meet the deadline on the estimate instead' in safe.text


def test_the_training_form_asks_where_the_deadline_must_hold(client: TestClient):
    blank = client.get("/?phase=training").text
    assert 'name="limits_at"' in blank and "Meet the deadline" in blank
    asked = client.get(PAGE + "&limits_at=band_high").text
    assert '<option value="band_high" selected>' in asked


def test_the_cli_takes_it(database, capsys):
    from app.cli.main import main

    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "full_ft", "--total-tokens", "2e10"]
    argv += ["--max-days", "2", "--limits-at", "band_high", "--limit", "1", "--json"]
    assert main(argv) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["limits_at"] == "band_high" and body["options"][0]["deadline_at_risk"] == ""


def test_the_train_then_serve_plan_takes_it_as_train_limits_at(client: TestClient):
    training = {k: v for k, v in QUESTION.items() if k != "model"}
    bodies = [
        client.post(
            "/api/v1/plan/lifecycle",
            json={"training": {"model": "llama-3.1-8b", **training, **more}, "inference": {"model": "llama-3.1-8b"}},
        ).json()
        for more in ({}, {"limits_at": "band_high"})
    ]
    assert "train_limits_at=band_high" in bodies[1]["share_url"] and "limits_at" not in bodies[0]["share_url"]
    assert bodies[1]["training"]["limits_at"] == "band_high"
    cheapest = [min(row["training_usd"] for row in body["combinations"]) for body in bodies]
    assert cheapest[1] > cheapest[0]  # more GPUs for the same tokens
    plan = "/plan?model=llama-3.1-8b&months=6&train_method=full_ft&train_max_days=2"
    page = client.get(plan + "&train_limits_at=band_high")
    assert page.status_code == 200 and 'id="f-train_limits_at"' in page.text
    assert '<option value="band_high" selected>' in page.text
