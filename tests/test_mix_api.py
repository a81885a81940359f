"""The GPU mix: API, the /mix page and its JSON twin, on the seeded catalog."""

from __future__ import annotations

import json
import re

import pytest

CHAT_RAG = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "requests_per_day": 200_000, "mix": "chat:0.7,rag:0.3"}


@pytest.fixture(scope="module")
def chat_rag(client):  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/mix", json=CHAT_RAG)
    assert response.status_code == 200
    return response.json()


def test_chat_and_rag_mix_costs_no_more_than_the_best_single_type(chat_rag) -> None:  # type: ignore[no-untyped-def]
    body = chat_rag
    mix, best = body["mix"], body["best_single"]
    assert mix and best and mix["usd_per_month"] > 0
    assert mix["usd_per_month"] <= best["usd_per_month"] + 0.01
    assert body["saving_usd_per_month"] == pytest.approx(best["usd_per_month"] - mix["usd_per_month"], abs=0.01)
    assert len(best["gpu_types"]) == 1
    assert [f["usd_per_month"] for f in body["singles"]] == sorted(f["usd_per_month"] for f in body["singles"])
    assert body["singles"][0] == best
    # the busiest hour of a diurnal profile (x3) at 200k/day, split 70/30
    assert body["peak_requests_per_s"] == pytest.approx(200_000 / 86_400 * 3, rel=1e-6)
    buckets = {b["name"]: b for b in body["buckets"]}
    assert buckets["chat"]["share"] == pytest.approx(0.7) and buckets["rag"]["input_len"] == 7_590
    assert buckets["rag"]["source_url"].startswith("https://")


def test_every_bucket_is_served_by_enough_whole_replicas(chat_rag) -> None:  # type: ignore[no-untyped-def]
    body = chat_rag
    types = {r["key"]: r for r in body["replica_types"]}
    for fleet in (body["mix"], body["best_single"]):
        for bucket in body["buckets"]:
            rounding = 5e-7 * len(fleet["rows"])  # 6-decimal JSON shares (the solver's tolerance is divided out)
            assert sum(r["shares"][bucket["name"]] for r in fleet["rows"]) == pytest.approx(1.0, abs=rounding)
    for row in body["best_single"]["rows"]:  # one row serves every request of each bucket: exactly 1, not 0.999999
        assert set(row["shares"].values()) == {1.0}
        for row in fleet["rows"]:
            fits = {f["bucket"]: f for f in types[row["replica"]]["fits"]}
            load = sum(
                row["shares"][b["name"]] * b["requests_per_s"] / fits[b["name"]]["requests_per_s"]
                for b in body["buckets"]
                if row["shares"][b["name"]] > 0
            )
            assert load == pytest.approx(row["load_replicas"], rel=1e-4) and row["replicas"] >= load - 1e-6
            for f in fits.values():  # a replica that serves a bucket meets the limits there
                if f["requests_per_s"] > 0:
                    assert f["ttft_ms"] <= 1_000 and f["tpot_ms"] <= 50
            names = [t["name"] for t in row["terms"]]
            assert "load" in names and "monthly cost" in names
    assert {"saving", "mix monthly cost", "best single type", "busiest-hour request rate"} <= {
        t["name"] for t in body["terms"]
    }
    assert any(n.startswith("Considered") for n in body["notes"])


def test_mix_never_costs_more_than_one_type_at_larger_traffic(client) -> None:  # type: ignore[no-untyped-def]
    # (tests/scoring/test_mix_plan.py shows a strict saving on a catalog built for it)
    body = client.post(
        "/api/v1/mix", json={"model": "llama-3.1-8b", "requests_per_day": 5_000_000, "mix": "chat:1,rag:1"}
    ).json()
    assert body["mix"]["usd_per_month"] <= body["best_single"]["usd_per_month"]
    assert body["saving_pct"] == pytest.approx(
        body["saving_usd_per_month"] / body["best_single"]["usd_per_month"] * 100, abs=1e-3
    )
    assert sum(r["replicas"] for r in body["mix"]["rows"]) >= 2


def test_histogram_buckets_and_named_shapes_mix_in_json_and_text(client) -> None:  # type: ignore[no-untyped-def]
    as_list = {
        "model": "llama-3.1-8b",
        "mix": [{"shape": "code", "share": 2}, {"input_len": 1000, "output_len": 200, "share": 1}],
    }
    body = client.post("/api/v1/mix", json=as_list).json()
    assert [b["name"] for b in body["buckets"]] == ["code", "1000x200"]
    assert body["question"]["mix_text"] == "code:2,1000x200:1"
    assert body["share_url"] == "/mix?model=llama-3.1-8b&mix=code:2,1000x200:1&requests_per_day=100000"
    text = client.post("/api/v1/mix", json={**as_list, "mix": "code:2, 1000x200:1"}).json()
    assert text["mix"] == body["mix"]


@pytest.mark.parametrize(
    ("mix", "needle"),
    [
        ("chat:0,rag:0", "more than 0"),
        ("-5x100:1", "input_len"),
        ("100x-3:1", "output_len"),
        ("chat:-1", "share"),
        ("summaries:1", "named shape"),
        ("context:1", "named shape"),  # an x in a name was read as INPUTxOUTPUT: "input_len: not an integer" (qa30)
        ("x", "named shape"),
        ("1000xabc:1", "output_len"),
    ],
)
def test_bad_distributions_are_422_naming_mix_in_api_page_and_json(client, mix: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/mix", json={**CHAT_RAG, "mix": mix})
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["field"].startswith("mix") and needle in detail["field"] + detail["message"]
    page = client.get("/mix", params={"model": "llama-3.1-8b", "mix": mix})
    assert page.status_code == 422 and 'id="err-mix"' in page.text and needle in page.text
    twin = client.get("/mix.json", params={"model": "llama-3.1-8b", "mix": mix})
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "mix"


def test_other_bad_fields_are_422_naming_the_field(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/mix", json={"model": "no-such-model"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "model"
    response = client.post("/api/v1/mix", json={"requests_per_day": -1})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "requests_per_day"
    twin = client.get("/mix.json?model=llama-3.1-8b&tpot_ms=0")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "tpot_ms"
    page = client.get("/mix?model=no-such-model")
    assert page.status_code == 422 and 'id="err-model"' in page.text


def test_mix_page_redirects_to_the_canonical_link_and_shows_mix_and_single_type(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(
        "/mix?mix=chat:0.7,+RAG:0.3&requests_per_day=2000000.0&model=llama-3.1-70b&weight_dtype=fp8",  # B200 + H100
        follow_redirects=False,
    )
    assert response.status_code == 303
    target = response.headers["location"]
    assert target == "/mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=2000000&weight_dtype=fp8"
    page = client.get(target)
    assert page.status_code == 200
    summary = re.search(r'<p class="summary" id="mix-summary">(.*?)</p>', page.text, re.S)
    assert summary and "Cheapest mix:" in summary.group(1) and "Best single GPU type:" in summary.group(1)
    assert "Saving:" in summary.group(1) and "LMSYS-Chat-1M" in page.text and "Mooncake" in page.text
    assert "<script>" not in page.text
    block = re.search(r'<script type="application/json" data-chart="mix-cost">(.*?)</script>', page.text, re.S)
    assert block
    figure = json.loads(block.group(1))
    assert figure["layout"]["barmode"] == "stack" and figure["data"][0]["y"][0] == "cheapest mix"
    twin = client.get(target.replace("/mix?", "/mix.json?"))
    assert twin.status_code == 200 and twin.json()["share_url"] == target
    assert page.headers["link"].startswith("</mix.json?")


def test_plan_page_links_to_the_mix_for_its_traffic(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=200000")
    assert page.status_code == 200
    assert (
        'href="/mix?model=llama-3.1-70b&amp;mix=chat:0.5,rag:0.5&amp;requests_per_day=200000&amp;weight_dtype=fp8"'
        in (page.text)
    )
    assert 'href="/mix"' in client.get("/").text  # in the navigation


def test_mix_api_is_documented_with_its_response_model(client) -> None:  # type: ignore[no-untyped-def]
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/mix"]["post"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/MixResponse")


def test_htmx_swap_gets_the_block_and_pushes_the_canonical_url(client) -> None:  # type: ignore[no-untyped-def]
    form = {"model": "llama-3.1-8b", "mix": "chat:0.7, rag:0.3", "requests_per_day": "1000000", "tpot_ms": "50"}
    response = client.get("/mix", params=form, headers={"HX-Request": "true"})
    assert response.status_code == 200 and not response.text.lstrip().startswith("<!doctype")
    assert response.headers["HX-Push-Url"] == "/mix?model=llama-3.1-8b&mix=chat:0.7,rag:0.3&requests_per_day=1000000"
    assert 'id="mixbench"' in response.text and 'data-chart="mix-cost"' in response.text
    bad = client.get("/mix", params={**form, "mix": "chat:0,rag:0"}, headers={"HX-Request": "true"})
    assert bad.status_code == 422 and "HX-Push-Url" not in bad.headers
    assert 'value="chat:0,rag:0"' in bad.text  # what was typed stays in the field


def test_shares_that_do_not_add_up_to_1_are_weights_said_in_a_note_page_and_json(client) -> None:  # type: ignore[no-untyped-def]
    # chat:0.7,rag:0.2 used to become 77.8/22.2 % with no word of it and an echo still saying 0.7/0.2
    question = {"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.2", "requests_per_day": 100_000}
    body = client.post("/api/v1/mix", json=question).json()
    echo = body["question"]
    assert echo["mix_text"] == "chat:0.7,rag:0.2" and echo["shares_add_up_to"] == pytest.approx(0.9)
    assert echo["mix_normalised_text"] == "chat:0.7778,rag:0.2222"
    buckets = {b["name"]: b for b in body["buckets"]}
    assert buckets["chat"]["weight"] == 0.7 and buckets["chat"]["share"] == pytest.approx(7 / 9, abs=1e-6)
    note = body["notes"][0]
    assert note.startswith("The shares add up to 0.9, not 1: they are read as weights")
    assert "chat 77.8%, rag 22.2%" in note and "the other 0.1" in note
    twin = client.get("/mix.json", params=question).json()
    assert twin["notes"][0] == note and twin["question"]["mix_normalised_text"] == echo["mix_normalised_text"]
    page = client.get("/mix", params=question)
    assert page.status_code == 200 and "The shares add up to 0.9, not 1" in page.text
    assert "77.8%" in page.text and "(weight 0.7)" in page.text


def test_shares_adding_up_to_1_within_rounding_need_no_note(client) -> None:  # type: ignore[no-untyped-def]
    thirds = {"model": "llama-3.1-8b", "mix": "chat:0.333,rag:0.333,code:0.333"}
    body = client.post("/api/v1/mix", json=thirds).json()
    assert body["question"]["shares_add_up_to"] == pytest.approx(0.999)
    assert not any("shares add up" in n for n in body["notes"])
    two_places = client.post("/api/v1/mix", json={**thirds, "mix": "chat:0.33,rag:0.33,code:0.33"}).json()
    assert two_places["notes"][0].startswith("The shares add up to 0.99, not 1")
    weights = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "mix": "code:2,1000x200:1"}).json()
    assert weights["notes"][0].startswith("The shares add up to 3, not 1") and "other" not in weights["notes"][0]
    assert weights["question"]["mix_normalised_text"] == "code:0.6667,1000x200:0.3333"
    default = client.post("/api/v1/mix", json={"model": "llama-3.1-8b"}).json()  # the form's default adds up to 1
    assert default["question"]["mix_text"] == "chat:0.5,rag:0.5" and not any(
        "shares add up" in n for n in default["notes"]
    )


def test_a_mix_of_one_gpu_type_says_so_with_no_saving_line(client) -> None:  # type: ignore[no-untyped-def]
    """It read "Cheapest mix: $1,460/month (1 × 1×H100-SXM at GMI Cloud). Best single GPU type: H100-SXM only,
    $1,460/month. Saving: $0/month (0.0%)" (found by leftovers8)."""
    page = client.get("/mix?model=llama-3.1-8b&requests_per_day=1000&gpus=H100-SXM").text
    summary = re.search(r'<p class="summary" id="mix-summary">(.*?)</p>', page, re.S)
    assert summary
    words = re.sub(r"<[^>]+>|\s+", " ", summary.group(1))
    assert "all on one GPU type: 1 replica of 1×H100-SXM at " in words
    assert "No mix of GPU types costs less than this one type here." in words
    assert "Saving" not in words and "Best single GPU type" not in words


def test_a_mix_of_one_gpu_type_shows_one_table(client) -> None:  # type: ignore[no-untyped-def]
    """The page showed the same rows twice, as "The cheapest mix" and as "Best single GPU type", under a sentence
    saying no mix costs less (found by leftovers9); the JSON keeps both fleets."""
    query = "model=llama-3.1-8b&requests_per_day=1000&gpus=H100-SXM"
    page = client.get(f"/mix?{query}").text
    captions = re.findall(r'<caption role="caption">([^:<]*):', page)
    assert captions == ["The cheapest mix"], captions
    assert "No mix of GPU types costs less than this one type here." in page
    json_url = re.search(r'<a href="([^"]+)">JSON</a>', page)
    assert json_url
    payload = client.get(json_url.group(1).replace("&amp;", "&")).json()
    assert payload["mix"]["rows"] and payload["best_single"]["rows"]
    mixed = client.get(  # a mix of two types (B200 + H100) still sets the two side by side
        "/mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=2000000&weight_dtype=fp8"
    ).text
    assert re.findall(r'<caption role="caption">([^:<]*):', mixed)[:2] == ["The cheapest mix", "Best single GPU type"]
