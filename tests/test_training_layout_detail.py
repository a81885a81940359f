"""A training option's layout as fields (qa27): the ranking gave the split only as words ("PP16 EP4 ZeRO-1 ×8, ...")
while the estimate API gave it as `layout`, so a tool that ranked had to parse the words to learn TP, PP or EP. Now
every JSON face carries `layout_detail`, the CSV one column per field, and /plan's train-then-serve names the layout."""

from __future__ import annotations

import csv
import io
import json

import pytest
from markupsafe import escape

from app.cli.main import main as cli
from app.web.rank.csv_export import LAYOUT_COLUMNS

QUERY = (
    "phase=training&model=deepseek-v3&method=pretrain&seq_len=4096&global_batch_seqs=32&total_tokens=1000000000"
    "&max_gpus=512&gpus=B200&providers=coreweave"
)
DENSE = "phase=training&model=llama-3.1-70b&method=lora&seq_len=2048&global_batch_seqs=16"
API_BODY = {
    "model": "deepseek-v3",
    "method": "pretrain",
    "seq_len": 4096,
    "global_batch_seqs": 32,
    "total_tokens": 1e9,
    "max_gpus": 512,
    "gpus": ["B200"],
    "providers": ["coreweave"],
}


@pytest.fixture(scope="module")
def options(client):  # type: ignore[no-untyped-def]
    return client.get(f"/rank.json?{QUERY}").json()["options"]


def test_a_ranked_option_gives_its_layout_as_the_estimate_api_does_for_the_same_offer(client, options):  # type: ignore[no-untyped-def]
    best = options[0]
    assert "TP4 PP8 EP8" in best["layout"]
    detail = best["layout_detail"]
    assert (detail["tensor_parallel"], detail["pipeline_parallel"], detail["expert_parallel"]) == (4, 8, 8)
    body = {"model": "deepseek-v3", "method": "pretrain", "seq_len": 4096, "global_batch_seqs": 32}  # the query's
    estimate = client.post(
        "/api/v1/estimate/training",
        json={**body, "gpu": best["gpu_id"], "gpu_count": best["gpu_count"], "offer_id": best["offer_id"]},
    ).json()
    assert estimate["layout_text"] == best["layout"]
    assert estimate["layout"] == detail


def test_every_option_with_words_has_fields_and_none_without(options) -> None:  # type: ignore[no-untyped-def]
    for option in options:
        assert (option["layout_detail"] is None) == (option["layout"] == ""), option
        if option["layout_detail"] and "EP" not in option["layout"]:
            assert "expert_parallel" not in option["layout_detail"]


def test_the_rank_api_and_a_saved_link_give_the_same_layout_detail(client, options):  # type: ignore[no-untyped-def]
    api = client.post("/api/v1/rank/training", json=API_BODY).json()["options"][0]
    assert (api["layout"], api["layout_detail"]) == (options[0]["layout"], options[0]["layout_detail"])
    link = client.post("/share", json={"path": "/", "query": QUERY}).json()["url"]
    replayed = client.get(f"{link}.json").json()["options"][0]
    assert replayed["layout_detail"] == options[0]["layout_detail"]


def test_the_schema_documents_layout_detail_as_the_layout_fields(client) -> None:  # type: ignore[no-untyped-def]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    field = schemas["TrainingOptionOut"]["properties"]["layout_detail"]
    assert {"$ref": "#/components/schemas/LayoutOut"} in field["anyOf"]
    assert "estimate API" in field["description"]


def test_the_csv_gives_the_layout_one_column_per_field_last(client, options):  # type: ignore[no-untyped-def]
    text = client.get(f"/rank.csv?{QUERY}").text
    header = text.splitlines()[0].split(",")
    assert tuple(header[-len(LAYOUT_COLUMNS) :]) == LAYOUT_COLUMNS
    assert "layout_detail" not in header
    rows = list(csv.DictReader(io.StringIO(text)))
    assert (rows[0]["pipeline_parallel"], rows[0]["expert_parallel"]) == ("8", "8")
    dense = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{DENSE}").text)))
    assert dense[0]["tensor_parallel"] != "" and dense[0]["expert_parallel"] == ""
    for row in rows + dense:
        assert (row["zero_stage"] == "") == (row["layout"] == "")


def test_the_cli_json_gives_each_option_its_layout_detail(database, client, capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli(["rank", "training", "--model", "llama-3.1-70b", "--method", "lora", "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)["options"]
    assert from_cli and all((o["layout_detail"] is None) == (o["layout"] == "") for o in from_cli)
    best = from_cli[0]["layout_detail"]
    assert {"zero_stage", "tensor_parallel", "pipeline_parallel", "recompute"} <= set(best)
    from_api = client.post("/api/v1/rank/training", json={"model": "llama-3.1-70b", "method": "lora"}).json()
    assert [o["layout_detail"] for o in from_api["options"]] == [o["layout_detail"] for o in from_cli]


PLAN = "/plan?model=llama-3.1-70b&weight_dtype=fp8&requests_per_day=500000&months=12"


def test_plan_train_then_serve_names_each_training_runs_layout_in_the_page_and_the_json(client) -> None:  # type: ignore[no-untyped-def]
    """/plan labelled the run '8×H100-SXM at … (on demand)' with no layout, for every model."""
    combinations = client.get(PLAN.replace("/plan?", "/plan.json?")).json()["lifecycle"]["combinations"]
    assert combinations
    trained = client.get("/rank.json?phase=training&model=llama-3.1-70b").json()["options"]
    layouts = {(o["layout"], json.dumps(o["layout_detail"], sort_keys=True)) for o in trained if o["feasible"]}
    for c in combinations:
        assert c["training_layout"] and c["training_layout_detail"]["tensor_parallel"] >= 1
        assert (c["training_layout"], json.dumps(c["training_layout_detail"], sort_keys=True)) in layouts
    page = client.get(PLAN).text
    label, layout = escape(combinations[0]["training"]), escape(combinations[0]["training_layout"])
    assert f"Best: train on <strong>{label}</strong>, laid out {layout} (" in page
    assert f">{label} " in page and f"</a> · {layout}</td>" in page  # the price's date between them (qa28)


def test_the_cli_plan_table_names_the_training_layout(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["plan", "lifecycle", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--requests-per-day", "500000"]
    assert cli([*argv, "--json"]) == 0
    top = json.loads(capsys.readouterr().out)["combinations"][0]
    assert cli(argv) == 0
    assert f"{top['training']} {top['training_as_of']} · {top['training_layout']}" in capsys.readouterr().out
