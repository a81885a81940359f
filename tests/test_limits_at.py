"""limits_at band_high through every face: the JSON API, share links, the ranking page and its form."""

import json

from fastapi.testclient import TestClient

RANK = "/api/v1/rank/inference"
QUESTION = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "tpot_ms": 40}


def _rank(client: TestClient, **more: object) -> dict:
    response = client.post(RANK, json={**QUESTION, **more})
    assert response.status_code == 200, response.text
    return response.json()


def test_band_high_leaves_no_option_at_risk_and_costs_at_least_the_estimates_winner(client: TestClient):
    plain, safe = _rank(client), _rank(client, limits_at="band_high")
    assert plain["options"][0]["limits_at_risk"]  # the question the option answers
    feasible = [o for o in safe["options"] if o["feasible"]]
    assert feasible and all(o["limits_at_risk"] == "" for o in safe["options"])
    assert all(o["tpot_p99_band"]["high"] <= 40 and o["ttft_p99_band"]["high"] <= 1000 for o in feasible)
    cost = "usd_per_million_output_tokens"
    assert feasible[0][cost] >= plain["options"][0][cost]
    assert "limits_at=band_high" in safe["share_url"] and "limits_at" not in plain["share_url"]
    assert safe["workload"]["limits_at"] == "band_high" and "limits_at" not in plain["workload"]


def test_estimate_is_the_default_and_leaves_the_link(client: TestClient):
    assert _rank(client, limits_at="estimate") == _rank(client)


def test_a_bad_limits_at_is_a_422_naming_the_field(client: TestClient):
    response = client.post(RANK, json={**QUESTION, "limits_at": "p90"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "limits_at"
    page = client.get("/?phase=inference&model=llama-3.1-70b&limits_at=p90")
    assert page.status_code == 422 and 'id="err-limits_at"' in page.text


def test_the_form_offers_where_to_meet_the_limits_in_plain_words(client: TestClient):
    blank = client.get("/?phase=inference").text
    assert 'name="limits_at"' in blank and "Meet the limits" in blank
    assert "even at the slow end of its band (safer, fewer tokens per GPU)" in blank
    asked = client.get("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40&limits_at=band_high").text
    assert '<option value="band_high" selected>' in asked


def test_the_results_say_which_plan_was_used_and_point_from_one_to_the_other(client: TestClient):
    question = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"
    plain = client.get(question).text
    assert "limits at risk" in plain and "Planned for the slow end of the bands" not in plain
    link = 'href="' + question.replace("&", "&amp;") + '&amp;limits_at=band_high"'
    assert f"<a {link}>meet the limits even at the slow end of the bands" in plain
    safe = client.get(question + "&limits_at=band_high")
    assert safe.status_code == 200
    assert "Planned for the slow end of the bands" in safe.text and "limits at risk" not in safe.text
    assert f'href="{question.replace("&", "&amp;")}">Meet them on the estimate instead' in safe.text


def test_an_explicit_estimate_is_the_default_question(client: TestClient):
    response = client.get("/?phase=inference&model=llama-3.1-8b&limits_at=estimate", follow_redirects=False)
    assert response.status_code == 303
    assert "limits_at" not in response.headers["location"]


def test_the_pages_that_plan_on_the_ranking_take_it_and_keep_it_in_their_links(client: TestClient):
    served = {"model": "llama-3.1-70b", "weight_dtype": "fp8"}
    plans = [
        client.post("/api/v1/plan/serving?limit=1", json={"workload": {**served, **more}, "traffic": {}}).json()
        for more in ({}, {"limits_at": "band_high"})
    ]
    assert "limits_at=band_high" in plans[1]["share_url"] and "limits_at" not in plans[0]["share_url"]
    assert plans[1]["workload"]["limits_at"] == "band_high"
    mixes = [
        client.post("/api/v1/mix", json={**served, "mix": "chat:0.7,rag:0.3", **more}).json()
        for more in ({}, {"limits_at": "band_high"})
    ]
    assert mixes[1]["mix"]["usd_per_month"] > mixes[0]["mix"]["usd_per_month"]  # smaller batches, more replicas
    assert client.get("/mix?model=llama-3.1-70b&mix=chat:1&limits_at=band_high").status_code == 200
    precision = client.post("/api/v1/precision", json={**served, "limits_at": "band_high"})
    assert precision.status_code == 200


def test_disagg_refuses_the_bands_slow_end_rather_than_answer_on_the_estimate(client: TestClient):
    workload = {"model": "llama-3.1-70b", "limits_at": "band_high"}
    response = client.post("/api/v1/disagg", json={"workload": workload, "traffic": {}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["field"] == "workload.limits_at"
    page = client.get("/disagg?model=llama-3.1-70b&limits_at=band_high")
    assert page.status_code == 422 and 'id="err-limits_at"' in page.text and "sized to meet the limits on" in page.text


def test_a_band_high_plans_disagg_link_asks_on_the_estimate_and_says_so(client: TestClient):
    import html
    import re

    page = client.get("/plan?model=llama-3.1-70b&weight_dtype=fp8&limits_at=band_high")
    assert page.status_code == 200
    link = html.unescape(re.search(r'href="(/disagg\?[^"]+)"', page.text).group(1))
    assert "limits_at" not in link and "model=llama-3.1-70b" in link
    assert "(on the estimate: its pools have no bands)" in page.text
    assert client.get(link).status_code == 200  # a link the plan writes answers, never a 422
    plain = client.get("/plan?model=llama-3.1-70b&weight_dtype=fp8")
    assert "its pools have no bands" not in plain.text


def test_the_cli_takes_it(database, capsys):
    from app.cli.main import main

    assert (
        main(
            [
                "rank",
                "inference",
                "--model",
                "llama-3.1-70b",
                "--weight-dtype",
                "fp8",
                "--tpot-ms",
                "40",
                "--limits-at",
                "band_high",
                "--limit",
                "1",
                "--json",
            ]
        )
        == 0
    )
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["limits_at"] == "band_high" and body["options"][0]["limits_at_risk"] == ""


def test_methodology_says_what_the_option_does(client: TestClient):
    page = client.get("/methodology").text
    assert "Limits at the slow end of the bands" in page and "limits_at=band_high" in page
