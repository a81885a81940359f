"""A price's caveats and its source, visible wherever an offer is the answer: the ranked row, the #1 summary, the
answer strip, /compare's cards, /plan's dedicated table, /precision's rows; the JSON and CSV name them too."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

from app.scoring.pricing.price_terms import price_caveats, terms_text

# GMI Cloud's prices come from its own article, one of them "where available" (tests/test_seed_prices.py): a
# ranking limited to it has a #1 whose price carries caveats.
GMI = "/?phase=inference&model=llama-3.1-8b&providers=gmi-cloud"
ARTICLE = "provider's article, not its price list"


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_a_price_note_names_its_caveats_in_order() -> None:
    note = "where available (capacity not guaranteed); price from the provider's own article, not its price list"
    assert price_caveats(note) == ("capacity not guaranteed", ARTICLE)
    assert price_caveats(
        "serverless container billed per second, no commitment; price read from a third-party "
        "write-up, not the provider's price list"
    ) == ("third-party write-up, not a price list",)
    assert price_caveats("'from'/'starting at' price; term length not stated by the source") == ("'from' price",)
    assert price_caveats("instance price includes host CPU/RAM") == ()
    assert price_caveats("") == ()


def test_a_per_gpu_price_of_a_cluster_product_says_a_single_gpu_may_not_be_rentable(client) -> None:  # type: ignore[no-untyped-def]
    """Together AI's "GPU cluster" rows are per-GPU prices of clusters of unstated size (prices.csv: "on-demand
    clusters $3.49-7.49/GPU-h"), ranked as one GPU: the #1 of a ranking limited to Together says so, in the JSON and on
    the page, rather than offering a single H100 as if it could be rented alone."""
    label = "sold as a cluster of unstated size"
    assert price_caveats("sold as a GPU cluster of unstated size, priced per GPU-hour") == (label,)
    query = "/?phase=inference&model=llama-3.1-8b&providers=together-ai"
    best = client.get(query.replace("/?", "/rank.json?")).json()["options"][0]
    assert (best["provider"], best["gpu_count"], best["machine"]) == ("together-ai", 1, "1-GPU node")
    assert label in best["price_caveats"]
    assert label in _text(client.get(query).text)


def test_a_median_of_marketplace_offers_is_labelled_not_one_offers_price(client) -> None:  # type: ignore[no-untyped-def]
    """Vast.ai's rows are a median or an average of several hosts' offers (prices.csv verification: "median of 4
    verified rentable 1x offers", "average of 8 observed offers"), which move daily: no host rents at that figure, so a
    ranking that asks for marketplace prices labels every such row."""
    label = "a median or average of marketplace offers"
    query = "/rank.json?phase=inference&model=llama-3.1-8b&providers=vast-ai&price_types=marketplace"
    options = client.get(query).json()["options"]
    assert options and all(label in o["price_caveats"] for o in options)
    assert price_caveats("price read from a vendor price list") == ()


def test_a_labels_terms_say_the_caveats_interruptions_and_staleness() -> None:
    assert terms_text("on_demand") == "on demand"
    assert (
        terms_text("on_demand", ("capacity not guaranteed", ARTICLE))
        == f"on demand; capacity not guaranteed; {ARTICLE}"
    )
    assert terms_text("spot", (), interruptible=True, stale=True) == "spot, interruptible; stale"


def test_rank_json_and_csv_carry_each_rows_caveats_and_price_source(client) -> None:  # type: ignore[no-untyped-def]
    offers = client.get("/api/v1/offers?provider=gmi-cloud").json()
    sources = {(o["gpu_id"], o["price_type"]): o["source_url"] for o in offers}
    body = client.get(GMI.replace("/?", "/rank.json?")).json()
    options = body["options"]
    assert options and all(o["provider"] == "gmi-cloud" for o in options)
    for option in options:
        assert option["price_source_url"] == sources[(option["gpu_id"], option["price_type"])] != ""
        assert option["price_caveats"] == list(price_caveats(option["price_note"]))
    assert ARTICLE in options[0]["price_caveats"]
    rows = list(csv.DictReader(io.StringIO(client.get(GMI.replace("/?", "/rank.csv?")).text)))
    assert [r["price_source_url"] for r in rows] == [o["price_source_url"] for o in options]
    assert [r["price_caveats"] for r in rows] == ["; ".join(o["price_caveats"]) for o in options]


def test_the_best_rows_caveats_show_in_the_strip_the_summary_and_the_row(client) -> None:  # type: ignore[no-untyped-def]
    best = client.get(GMI.replace("/?", "/rank.json?")).json()["options"][0]
    html = client.get(GMI).text
    strip, results = html.split('<form class="workload"', 1)
    summary = results.split('<p class="summary">', 1)[1].split("</p>", 1)[0]
    first_row = results.split('<tr class="row best"', 1)[1].split("</tr>", 1)[0]
    for label in best["price_caveats"]:
        for part in (strip, summary, first_row):
            assert label in _text(part)  # visible text, not only a hover title
    # the row's price date is a link to where the price was read; the answer strip, itself a link, holds none
    link = f'<a class="muted price-source" href="{best["price_source_url"]}"'
    assert link in first_row and link in summary and "price-source" not in strip
    assert f">{best['as_of']}</a>" in first_row


def test_compare_cards_plan_and_precision_show_the_caveats(client) -> None:  # type: ignore[no-untyped-def]
    compare = client.get("/compare?phase=inference&model=llama-3.1-8b&providers=gmi-cloud&gpus=B200,H200").text
    cards = compare.split('<div class="cards">', 1)[1].split("</div>", 1)[0]
    assert _text(cards).count(ARTICLE) == 2 and "capacity not guaranteed" in _text(cards)
    plan = client.get("/plan?model=llama-3.1-8b&providers=gmi-cloud&requests_per_day=100000")
    top = client.get("/plan.json?model=llama-3.1-8b&providers=gmi-cloud&requests_per_day=100000").json()["options"][0]
    table = plan.text.split('<tbody role="rowgroup">', 1)[1].split("</tr>", 1)[0]
    assert top["price_caveats"] and all(label in _text(table) for label in top["price_caveats"])
    assert f'href="{top["price_source_url"]}"' in table
    strip = plan.text.split('<form class="workload"', 1)[0]
    assert all(label in _text(strip) for label in top["price_caveats"])
    precision = client.get("/precision?model=llama-3.1-8b&providers=gmi-cloud").text
    rows = precision.split('<tbody role="rowgroup">', 1)[1]
    assert ARTICLE in _text(rows)


def test_a_batch_jobs_per_token_price_links_its_source(client) -> None:  # type: ignore[no-untyped-def]
    url = "/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=100000"
    api = client.get(url.replace("/?", "/rank.json?")).json()["serverless_job"][0]
    html = client.get(url).text
    line = html.split("The same job through a per-token API", 1)[1].split("</p>", 1)[0]
    assert api["source_url"] and f'<a href="{api["source_url"]}"' in line


def test_mix_and_disagg_rows_show_the_caveats_and_source(client) -> None:  # type: ignore[no-untyped-def]
    """/mix's replicas and fleets and /disagg's pools and aggregated option are offers too: an answer priced from
    GMI's article says so there as on the ranking, in the JSON and on the page."""
    mix = "/mix?model=llama-3.1-8b&mix=chat:0.7,rag:0.3&requests_per_day=2000000&providers=gmi-cloud"
    body = client.get(mix.replace("/mix?", "/mix.json?")).json()
    rows = body["replica_types"] + body["mix"]["rows"]
    assert rows and all(ARTICLE in r["price_caveats"] and r["price_source_url"].startswith("http") for r in rows)
    assert ARTICLE in _text(client.get(mix).text)
    disagg = "/disagg?model=llama-3.1-8b&input_len=16000&output_len=500&requests_per_day=3000000"
    gmi = client.get(disagg.replace("/disagg?", "/disagg.json?") + "&providers=gmi-cloud").json()["aggregated"]
    assert ARTICLE in gmi["price_caveats"] and gmi["price_source_url"].startswith("http")
    assert ARTICLE in _text(client.get(disagg + "&providers=gmi-cloud").text)
    body = client.get(disagg.replace("/disagg?", "/disagg.json?")).json()  # GMI's single GPUs pair with nothing
    pools = [p for d in body["disaggregated"] for p in (d["prefill"], d["decode"])]
    assert pools and all("price_caveats" in p and p["price_source_url"].startswith("http") for p in pools)


def test_train_then_serve_labels_and_json_carry_each_prices_caveats(client) -> None:  # type: ignore[no-untyped-def]
    """A train-then-serve row names its offers by label; the label says the price's caveats, as the dedicated table
    beside it does, and the JSON lists them; so does the page's "Best:" line, and the break-even's winner."""
    query = "model=llama-3.1-8b&providers=gmi-cloud&requests_per_day=100000&months=6"
    life = client.get(f"/plan.json?{query}").json()["lifecycle"]
    rows = life["combinations"]
    assert rows and all(r["serving_price_caveats"] for r in rows if r["serving_kind"] == "dedicated")
    assert all(ARTICLE in r["training_price_caveats"] for r in rows if "at GMI Cloud" in r["training"])
    for r in rows:
        assert all(label in r["training"] for label in r["training_price_caveats"])
        assert all(label in r["serving"] for label in r["serving_price_caveats"])
    assert f"(on demand; {ARTICLE})" in rows[0]["training"]
    best = _text(client.get(f"/plan?{query}").text).split("Best: train on", 1)[1].split("in all", 1)[0]
    assert best.count(ARTICLE) == 2  # the training offer's and the serving offer's


def test_precision_rows_badge_a_caveat_after_the_price_not_inside_its_parentheses(client) -> None:  # type: ignore[no-untyped-def]
    """Found by qa18: '(on demand [provider's article, not its price list], $4.00/GPU-h 2026-11-29)' in the narrow
    Best option column wrapped the badge onto lines of its own and began the next line with the comma."""
    page = client.get("/precision?model=llama-3.1-8b&providers=gmi-cloud").text
    cells = re.findall(r'data-label="Best option" role="cell">(.*?)</td>', page, re.S)
    assert cells and all(ARTICLE in _text(cell) for cell in cells)
    for cell in cells:
        price = re.search(r"\((on demand|spot|reserved[^,]*), \$[\d.,]+/GPU-h[^()]*\)", _text(cell))
        assert price and ARTICLE not in price.group(0) and _text(cell).index(ARTICLE) > price.end() - 1
