"""Catalog pages: rendered server-side, each with a JSON twin and a Link header."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest


@pytest.mark.parametrize("path", ["/gpus", "/gpus/H100-SXM", "/providers", "/models", "/models/llama-3.1-70b"])
def test_page_has_json_twin_and_alternate_link(client, path: str) -> None:  # type: ignore[no-untyped-def]
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f"<{path}.json>" in page.headers["link"] and 'rel="alternate"' in page.headers["link"]
    twin = client.get(f"{path}.json")
    assert twin.status_code == 200 and twin.headers["content-type"] == "application/json"
    assert json.loads(twin.text)


def test_gpu_list_filters_and_keeps_query_in_form(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get("/gpus", params={"vendor": "AMD", "sort": "memory"}).text
    assert "MI300X" in html and "H100 SXM" not in html
    assert '<option value="AMD" selected>' in html


def test_gpu_list_says_each_scale_up_fabric_in_full(client) -> None:  # type: ignore[no-untyped-def]
    """Cut at 28 characters, MI300X's read "Infinity Fabric (7 links..." and GH200's hid its NVLink 4 (screens)."""
    html = unescape(client.get("/gpus").text)
    assert "8 × Infinity Fabric (7 links x 128 GB/s)" in html and "; NVLink 4 GPU-GPU" in html
    assert "links..." not in html


def test_gpu_list_fragment_for_htmx(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/gpus", params={"sort": "bf16"}, headers={"HX-Request": "true"})
    assert response.text.lstrip().startswith('<div id="gpu-table"')
    assert "<html" not in response.text and "HX-Request" in response.headers["vary"]


def test_gpu_page_marks_stale_prices_and_embeds_chart_data(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get("/gpus/H100-SXM").text
    assert 'data-chart="price-chart"' in html and "stale" in html
    assert "<script>" not in html  # no inline scripts: the chart data is a JSON block


def test_gpu_page_counts_its_offers_in_words(client) -> None:  # type: ignore[no-untyped-def]
    """A GPU with one offer said "1 offers; prices older than …"."""
    ids = [g["id"] for g in client.get("/gpus.json").json()]
    counts = {gpu: len(client.get(f"/gpus/{gpu}.json").json()["offers"]) for gpu in ids}
    one = next(gpu for gpu, n in counts.items() if n == 1)
    many = next(gpu for gpu, n in counts.items() if n > 1)
    assert '<caption role="caption">1 offer; prices older' in client.get(f"/gpus/{one}").text
    assert f'<caption role="caption">{counts[many]} offers; prices older' in client.get(f"/gpus/{many}").text


def test_unknown_gpu_page_is_a_readable_404(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/gpus/NOPE-1")
    assert response.status_code == 404 and "NOPE-1" in response.text and "<html" in response.text


def test_bad_filter_on_page_is_a_422_page_naming_the_field(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/gpus", params={"min_memory_gb": "lots"})
    assert response.status_code == 422 and "min_memory_gb" in response.text


def test_an_unknown_vendor_on_the_gpu_list_is_a_422_naming_it_as_the_api_says(client) -> None:  # type: ignore[no-untyped-def]
    """/gpus?vendor=nvida and /gpus.json?vendor=nvida answered 200 with no GPUs (it reads as "no such GPUs"), while
    GET /api/v1/gpus?vendor=nvida is a 422 naming vendor and the known ids."""
    api = client.get("/api/v1/gpus", params={"vendor": "nvida"})
    assert api.status_code == 422 and api.json()["detail"][0]["field"] == "vendor"
    twin = client.get("/gpus.json", params={"vendor": "nvida"})
    assert twin.status_code == 422 and twin.json() == api.json()
    page = client.get("/gpus", params={"vendor": "nvida"})
    assert page.status_code == 422 and "vendor" in page.text and "NVIDIA" in page.text
    assert client.get("/gpus.json", params={"vendor": "AMD"}).status_code == 200


def test_model_page_shows_kv_cache_per_token(client) -> None:  # type: ignore[no-untyped-def]
    assert "327,680 bytes per token" in client.get("/models/llama-3.1-70b").text
    assert "Sliding window" not in client.get("/models/llama-3.1-70b").text


def test_model_page_says_which_layers_have_experts(client) -> None:  # type: ignore[no-untyped-def]
    assert "on 24 of 48 layers (the other 24 dense, FFN 16,384)" in client.get("/models/llama-4-maverick").text
    assert "on 58 of 61 layers (the other 3 dense, FFN 18,432)" in client.get("/models/deepseek-r1").text
    assert "on 48 of 48 layers</td>" in client.get("/models/llama-4-scout").text


def test_every_model_page_shows_the_kv_cache_the_ranking_sizes(client) -> None:  # type: ignore[no-untyped-def]
    """The page reads the model as the rankings do (snapshot.model_spec), MLA and sliding windows included."""
    from app.catalog.spec_files import load_model_specs
    from app.scoring.inference.step.memory import kv_bytes_per_token

    specs = load_model_specs()
    for model in client.get("/models.json").json():
        kv = int(kv_bytes_per_token(specs[model["id"]], "bf16"))
        assert f"{kv:,} bytes per token" in client.get(f"/models/{model['id']}").text, model["id"]


def test_model_page_and_json_show_the_sliding_window(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/models/gpt-oss-120b").text
    assert "18 of 36 layers attend to and cache the last 128 tokens only" in page
    assert "73,728 bytes per token up to 128 tokens" in page  # 2 x 36 x 8 x 64 x 2
    body = client.get("/models/gpt-oss-120b.json").json()
    assert (body["sliding_window"], body["sliding_layers"]) == (128, 18)


def test_model_page_and_json_show_the_release_precision_and_its_source(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/models/deepseek-v3.1").text
    assert "Release precision" in page and "FP8" in page and "quant_method fp8" in page
    body = client.get("/models/kimi-k2.json").json()
    assert body["release_precision"] == "fp8" and "config.json quantization_config" in body["release_precision_source"]
    listed = {m["id"]: m for m in client.get("/api/v1/models").json()}
    assert listed["gpt-oss-20b"]["release_precision"] == "mxfp4"
    assert listed["llama-3.1-8b"]["release_precision"] == "unknown"
    assert (
        "unknown: the reference does not state the release precision (BF16 assumed)"
        in client.get("/models/llama-3.1-8b").text
    )
    assert "65.7 GB at int4" in client.get("/models/gpt-oss-120b").text  # 116.83 B x 0.5625 B
    assert "Weights (as released)" not in client.get("/models/llama-3.1-8b").text


def test_an_unknown_release_precision_says_bf16_assumed_once(client) -> None:  # type: ignore[no-untyped-def]
    """It read 'unknown: BF16 assumed (unknown: the reference does not state the release precision (BF16 assumed))'."""
    page = client.get("/models/llama-3.1-70b").text
    row = re.search(r"Release precision</th><td>(.*?)</td>", page).group(1)  # type: ignore[union-attr]
    assert row.count("BF16 assumed") == 1 and row.count("unknown") == 1
    assert "does not state the release precision" in row


def test_chart_json_block_parses_and_cannot_break_out(client) -> None:  # type: ignore[no-untyped-def]
    import re

    from app.web.rendering.charts import to_json_block

    html = client.get("/gpus/H100-SXM").text
    block = re.search(r'data-chart="price-chart">\s*(.*?)\s*</script>', html, re.S)
    assert block is not None and json.loads(block.group(1))["data"][0]["type"] == "bar"
    hostile = str(to_json_block({"title": "</script><script>alert(1)</script>"}))
    assert "</script>" not in hostile and json.loads(hostile)["title"].startswith("</script>")


def test_blank_filter_fields_redirect_to_canonical_list(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/gpus?vendor=&min_memory_gb=&sort=memory", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/gpus?sort=memory"


def test_a_vendor_in_another_case_redirects_to_the_catalogs_spelling(client) -> None:  # type: ignore[no-untyped-def]
    """/gpus?vendor=amd listed the six AMD GPUs under a form reading "amd (not an option)" (found by qa33)."""
    response = client.get("/gpus?vendor=amd&sort=memory", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/gpus?vendor=AMD&sort=memory"
    page = client.get(response.headers["location"]).text
    assert '<option value="AMD" selected>' in page and "not an option" not in page


def test_price_chart_prefers_fresh_prices_and_marks_stale_bars() -> None:
    from types import SimpleNamespace

    from app.service.charts.gpu_prices import cheapest_price_bars
    from app.web.rendering.charts import STALE_COLOUR, offer_price_bars

    def offer(provider: str, price: float, stale: bool) -> SimpleNamespace:
        return SimpleNamespace(provider_name=provider, price_type="on_demand", usd_per_gpu_hour=price, stale=stale)

    bars = cheapest_price_bars([offer("A", 1.0, True), offer("A", 2.0, False), offer("B", 0.5, True)])
    figure = offer_price_bars(bars)
    (trace,) = figure["data"]
    assert trace["y"] == ["B (on demand, stale)", "A (on demand)"]  # A's fresh $2 beats its stale $1
    assert trace["x"] == [0.5, 2.0]
    assert trace["marker"]["color"][0] == STALE_COLOUR and trace["marker"]["color"][1] != STALE_COLOUR


def test_model_sizes_are_grouped_by_thousands_as_the_context_beside_them(client) -> None:  # type: ignore[no-untyped-def]
    """Found by qa22: /models read "Hidden 14336" beside "Context 163,840", and a model page "80 × 8192", "FFN
    28672"; every size from 1,000 is grouped, as the vocabulary and context were."""
    listing = client.get("/models").text
    assert '<td class="n" data-label="Hidden" role="cell">8,192</td>' in listing
    assert not re.search(r'data-label="Hidden" role="cell">\d{4,}<', listing)
    page = client.get("/models/llama-3.1-70b").text
    assert "80 × 8,192</td>" in page and "<td>28,672</td>" in page


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("/gpus/h100-sxm", "/gpus/H100-SXM"),
        ("/gpus/h100-sxm.json", "/gpus/H100-SXM.json"),
        ("/models/Llama-3.1-8B", "/models/llama-3.1-8b"),
        ("/models/LLAMA-3.1-8B.json", "/models/llama-3.1-8b.json"),
    ],
)
def test_an_id_in_another_spelling_moves_to_the_catalogs(client, typed: str, canonical: str) -> None:  # type: ignore[no-untyped-def]
    """/gpus/h100-sxm rendered 200 under the typed spelling, so a shared link had as many URLs as spellings (found by
    qa33): a page, or its JSON twin, moves for good (301) to the catalog's id, which renders as before."""
    moved = client.get(typed, follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == canonical
    assert client.get(canonical, follow_redirects=False).status_code == 200


def test_the_api_answers_an_id_in_another_spelling_with_the_catalogs_in_the_body(client) -> None:  # type: ignore[no-untyped-def]
    """The API takes ids in any case, as its filters and POST bodies do, and names the catalog's id in the answer: a
    client reads `id`, where a redirect would cost it a round trip (and some clients drop a POST's body on one)."""
    for typed, canonical in (("gpus/h100-sxm", "H100-SXM"), ("models/Llama-3.1-8B", "llama-3.1-8b")):
        answer = client.get(f"/api/v1/{typed}", follow_redirects=False)
        assert answer.status_code == 200 and answer.json()["id"] == canonical


def test_model_json_carries_the_footprint_its_page_shows(client) -> None:  # type: ignore[no-untyped-def]
    """The page's weights and KV cache per token were on the page only, not in /models/{id}.json (qa37)."""
    body = client.get("/models/gpt-oss-120b.json").json()
    page = client.get("/models/gpt-oss-120b").text
    assert body["kv_cache_bytes_per_token_bf16"] == 73_728  # 2 x 36 layers x 8 KV heads x 64 x 2 bytes
    assert "73,728 bytes per token" in page
    assert body["weights_gb_bf16"] == pytest.approx(body["params_b"] * 2)
    assert (body["release_weight_dtype"], round(body["release_weights_gb"], 1)) == ("int4", 65.7)
    assert "65.7 GB at int4" in page
    plain = client.get("/api/v1/models/llama-3.1-8b").json()
    assert plain["release_weight_dtype"] is None and plain["release_weights_gb"] is None
    assert plain["kv_cache_bytes_per_token_bf16"] == 131_072  # 2 x 32 layers x 8 KV heads x 128 x 2 bytes


def test_every_model_pages_serve_link_asks_at_lengths_that_fit(client) -> None:  # type: ignore[no-untyped-def]
    """'Rank GPUs to serve it' on 13 models of a 2,048-token context (BLOOM, OPT, LLaMA v1, …) led to a 422: the form's
    default 2,000 + 400 tokens exceed it (found by qa37). Each link now asks at lengths that fit."""
    from urllib.parse import parse_qs, urlsplit

    for model in client.get("/api/v1/models").json():
        page = client.get(f"/models/{model['id']}").text
        link = unescape(re.search(r'<a class="button" href="(/\?phase=inference[^"]+)">Rank GPUs', page).group(1))
        asked = {k: int(v[0]) for k, v in parse_qs(urlsplit(link).query).items() if k.endswith("_len")}
        total = asked.get("input_len", 2000) + asked.get("output_len", 400)
        assert total <= (model["max_context"] or total), (model["id"], link)
    bloom = client.get("/models/bloom-176b").text
    link = re.search(r'href="(/\?phase=inference[^"]+)">Rank GPUs to serve it', bloom).group(1)  # type: ignore[union-attr]
    assert link == "/?phase=inference&amp;model=bloom-176b&amp;input_len=1648"  # 1,648 + 400 = 2,048
    assert client.get(unescape(link), follow_redirects=False).status_code == 200
