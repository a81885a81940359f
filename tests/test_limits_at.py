"""limits_at band_high through every face: the JSON API, share links, the ranking page and its form, /disagg."""

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


DISAGG = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "ttft_ms": 1000, "tpot_ms": 50}
BUSY = {"requests_per_day": 2_000_000}


def _disagg(client: TestClient, **more: object) -> dict:
    response = client.post("/api/v1/disagg", json={"workload": {**DISAGG, **more}, "traffic": BUSY})
    assert response.status_code == 200, response.text
    return response.json()


def test_disagg_sizes_each_pool_at_its_bands_slow_end_and_says_the_bands_are_borrowed(client: TestClient):
    plain, safe = _disagg(client), _disagg(client, limits_at="band_high")
    assert safe["workload"]["limits_at"] == "band_high" and "limits_at=band_high" in safe["share_url"]
    assert "borrowed because no publication measures disaggregated pools" in safe["limits_at_bands"]
    assert "limits_at_bands" not in plain and "limits_at" not in plain["share_url"]
    assert safe["disaggregated"] and plain["disaggregated"]
    for plan in safe["disaggregated"]:
        prefill, decode = plan["prefill"], plan["decode"]
        assert prefill["latency_band_ms"]["high"] <= 500 + 1e-6  # the 1 s p99 limit's mean budget, KV included
        assert prefill["latency_band_ms"]["low"] <= plan["ttft_mean_ms"] <= prefill["latency_band_ms"]["high"]
        assert decode["latency_band_ms"]["high"] <= 40 + 1e-6  # 80 % of the 50 ms p99 limit
        assert decode["step_ms"] * decode["latency_band_high_ratio"] <= 40 + 1e-6
        assert decode["latency_band_high_ratio"] > 1 and prefill["latency_band_high_ratio"] > 1
    # on the estimate each pool shows its borrowed band too, but no high ratio: nothing was sized at it
    for plan in plain["disaggregated"]:
        for pool, mean in ((plan["prefill"], plan["ttft_mean_ms"]), (plan["decode"], plan["tpot_mean_ms"])):
            assert pool["latency_band_ms"]["low"] <= mean <= pool["latency_band_ms"]["high"]
            assert "latency_band_high_ratio" not in pool

    def gpus(body: dict) -> int:
        best = body["disaggregated"][0]
        return best["prefill"]["gpus_at_peak"] + best["decode"]["gpus_at_peak"] + best["idle_gpus_at_peak"]

    assert gpus(safe) > gpus(plain)
    cost = "usd_per_million_output_tokens_at_traffic"
    assert safe["disaggregated"][0][cost] > plain["disaggregated"][0][cost]


def test_the_disagg_page_asks_it_shows_each_pools_band_and_links_back_to_the_estimate(client: TestClient):
    question = "/disagg?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=2000000"  # 1 s / 50 ms: the defaults
    safe = client.get(question + "&limits_at=band_high")
    assert safe.status_code == 200
    assert '<option value="band_high" selected>' in safe.text
    assert "slow end of the bands</span>" in safe.text and "borrowed because no publication measures" in safe.text
    assert safe.text.count('<span class="muted band"') >= 4  # a prefill and a decode band per plan shown
    summary = safe.text.split('data-layout="disaggregated"')[1].split("</tr>")[0]  # the row under the verdict
    assert summary.count("borrowed band ") == 2
    assert f'<a href="{question.replace("&", "&amp;")}">Size the pools on the estimate instead</a>' in safe.text
    assert "limits_at=band_high" in safe.text  # its own share link keeps it
    plain = client.get(question).text
    assert "slow end of the bands" not in plain and "meets its limit at the high end" not in plain
    assert plain.split('data-layout="disaggregated"')[1].split("</tr>")[0].count("borrowed band ") == 2


def test_a_band_high_plans_disagg_link_keeps_limits_at_and_answers(client: TestClient):
    import html
    import re

    page = client.get("/plan?model=llama-3.1-70b&weight_dtype=fp8&limits_at=band_high")
    assert page.status_code == 200
    link = html.unescape(re.search(r'href="(/disagg\?[^"]+)"', page.text).group(1))
    assert "limits_at=band_high" in link and "model=llama-3.1-70b" in link
    assert "its pools have no bands" not in page.text
    answer = client.get(link)
    assert answer.status_code == 200 and '<option value="band_high" selected>' in answer.text


def test_the_disagg_cli_takes_it(database, capsys):
    from app.cli.main import main

    flags = ["disagg", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--ttft-ms", "1000", "--tpot-ms", "50"]
    assert main([*flags, "--limits-at", "band_high"]) == 0
    out = capsys.readouterr().out
    assert "borrowed because no publication measures disaggregated pools" in out
    assert "At the slow end of the bands: prefill first token + queue" in out and "limits_at=band_high" in out
    assert main([*flags, "--limits-at", "band_high", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["limits_at"] == "band_high" and body["disaggregated"][0]["decode"]["latency_band_ms"]
    assert main([*flags, "--limits-at", "p90"]) == 2
    assert "--limits-at" in capsys.readouterr().err


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
    words = " ".join(page.split())
    assert "Disaggregated pools (/disagg) take it too" in words and "take the estimate only" not in words
    assert "the bands of aggregated serving in the same regime" in words and "stays on the estimate" in words
