"""Expert parallelism (trainep) as a user meets it outside the scoring package: the ranking's term, the estimate's
JSON and schema, the CSV, a saved link and /methodology (qa26). DeepSeek-V3 pretraining at 32-sequence batches on 128
B200 is a case where EP wins (TP8 PP2 EP64). At 64 sequences PP16 EP4 won until a pipeline interleaved only a
multiple of PP micro-batches (step_time.pipeline_chunks): its 8 micro-batches per replica on PP16 now pay the plain
1F1B bubble, and TP4 PP8 wins there."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.scoring.term_arithmetic import stated_value

QUERY = (
    "phase=training&model=deepseek-v3&method=pretrain&seq_len=4096&global_batch_seqs=32&total_tokens=1000000000"
    "&max_gpus=512&gpus=B200&providers=coreweave"
)
STEP_PARTS = ("compute", "pipeline bubble", "exposed DP/FSDP traffic")


@pytest.fixture(scope="module")
def best(client):  # type: ignore[no-untyped-def]
    option = client.get(f"/rank.json?{QUERY}").json()["options"][0]
    assert "TP4 PP8 EP8" in option["layout"]
    return option


def test_the_all_to_all_term_says_where_its_rounds_come_from_and_adds_up(best) -> None:
    """The #1 (TP4 PP8 EP8, no recompute) pays 4 rounds: dispatch and combine, forward and backward, over NVLink at
    an all-to-all's share (the recomputed layers' extra rounds: tests/scoring/test_training_ep_search_depth.py)."""
    terms = {t["name"]: t for t in best["terms"]}
    a2a = terms["exposed expert all-to-all"]
    assert "× 58 MoE layers × 4 all-to-alls ×" in a2a["detail"] and "/ (702 GB/s × 10^9)" in a2a["detail"]
    assert stated_value(a2a["detail"]) == pytest.approx(a2a["value"], rel=5e-3)
    assert "recomputed" not in a2a["detail"]
    tp = next(name for name in terms if name.startswith("exposed TP communication"))  # TP4 beside EP8
    parts = sum(terms[name]["value"] for name in (*STEP_PARTS, tp, "exposed expert all-to-all"))
    assert parts == pytest.approx(best["step_time_s"], rel=1e-5)
    assert "exposed expert all-to-all" in terms["step time"]["detail"]


def test_the_estimate_json_names_expert_parallel_where_it_is_used_and_the_schema_says_what_it_is(client, best):  # type: ignore[no-untyped-def]
    body = {"model": "deepseek-v3", "method": "pretrain", "global_batch_seqs": 32, "gpu": "B200", "gpu_count": 128}
    ep = client.post("/api/v1/estimate/training", json={**body, "offer_id": best["offer_id"]}).json()
    assert ep["layout"]["expert_parallel"] == 8 and ep["layout_text"] == best["layout"]
    dense = client.post("/api/v1/estimate/training", json={**body, "model": "llama-3.1-70b", "gpu_count": 8}).json()
    assert dense["fits"] and "expert_parallel" not in dense["layout"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["LayoutOut"]["properties"]
    assert "expert_model_parallel_size" in schema["expert_parallel"]["description"]


def test_the_csv_and_a_saved_link_give_the_ep_layout(client, best):  # type: ignore[no-untyped-def]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{QUERY}").text)))
    assert rows[0]["layout"] == best["layout"] and float(rows[0]["step_time_s"]) == best["step_time_s"]
    link = client.post("/share", json={"path": "/", "query": QUERY}).json()["url"]
    replayed = client.get(f"{link}.json").json()["options"][0]
    assert (replayed["layout"], replayed["total_usd"]) == (best["layout"], best["total_usd"])
    assert "TP4 PP8 EP8" in client.get(link).text


def test_methodology_lists_expert_parallelism_among_the_splits_and_its_all_to_all_in_the_step(client) -> None:  # type: ignore[no-untyped-def]
    """/methodology's training text listed ZeRO/FSDP, TP, PP and recompute as the splits and left the expert
    all-to-all out of the step time: an EP layout's term was nowhere in the method."""
    page = client.get("/methodology").text
    training = re.sub(r"<[^>]+>", "", page[page.index("<h2>Training</h2>") : page.index('id="low-precision"')])
    splits = training[training.index("Memory per GPU") : training.index("Step time")]
    assert "expert parallelism" in splits and "num_experts ÷ EP whole experts" in splits
    assert "combined with attention TP 2-8" in re.sub(r"\s+", " ", splits) and "EP dividing TP × DP" in splits
    assert "context parallelism" in splits
    step = training[training.index("Step time") :]
    assert "exposed expert all-to-all" in step and "ep_a2a_exposed" in step
    constants = {c["name"]: c for c in client.get("/methodology.json").json()["training_constants"]}
    assert constants["ep_a2a_exposed"]["value"] == "1.0" and "Megatron-Core" in constants["ep_a2a_exposed"]["source"]


TP_EP_QUERY = (
    "phase=training&model=llama-4-maverick&method=full_ft&seq_len=4096&global_batch_seqs=64"
    "&total_tokens=100000000000&max_days=2&max_gpus=512&gpus=B200&providers=coreweave"
)


def test_a_tp_with_ep_row_names_both_in_its_json_and_csv(client) -> None:  # type: ignore[no-untyped-def]
    """Llama 4 Maverick, 100B tokens of full fine-tuning in 2 days on CoreWeave's B200: no layout without EP, nor EP
    at TP 1, finished in time; attention TP4 beside EP64 (the experts whole, EP folded over TP x DP) did (trainep3),
    TP2 PP4 beside EP8 (the all-to-all inside a node) since the data-parallel rings run on every NIC (fsdpbytes).
    The row's words, its layout fields and the CSV's columns give the TP and the EP both."""
    best = client.get(f"/rank.json?{TP_EP_QUERY}").json()["options"][0]
    assert best["feasible"] and best["gpu_count"] == 128
    assert best["layout"].startswith("TP2 PP4 EP8 ")
    detail = best["layout_detail"]
    assert (detail["tensor_parallel"], detail["pipeline_parallel"], detail["expert_parallel"]) == (2, 4, 8)
    row = next(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{TP_EP_QUERY}").text)))
    assert row["layout"] == best["layout"] and (row["tensor_parallel"], row["expert_parallel"]) == ("2", "8")
    terms = {t["name"]: t for t in best["terms"]}
    assert "(TP2 × DP / EP)" in terms["exposed DP/FSDP traffic"]["detail"]
    assert stated_value(terms["exposed expert all-to-all"]["detail"]) == pytest.approx(
        terms["exposed expert all-to-all"]["value"], rel=5e-3
    )


def test_methodology_says_a_moe_layer_under_tp_and_ep_pays_only_its_attentions_tp_pair(client) -> None:  # type: ignore[no-untyped-def]
    """qa29: the step formula said 'exposed TP = tp_comm_exposed × the all-reduce time' with no word that under TP+EP
    a MoE layer without a TP-split shared expert skips its MLP's pair (trainep4), as every TP+EP row's term says."""
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get("/methodology").text))
    step = page[page.index("exposed TP = ") : page.index("exposed DP/FSDP = ")]
    assert "a MoE layer pays only its attention's all-gather and reduce-scatter" in step
    assert "MoE Parallel Folding" in step and "shared expert" in step


def test_the_layout_schema_says_tp_pairs_with_ep(client) -> None:  # type: ignore[no-untyped-def]
    """qa29: LayoutOut's tensor_parallel read 'tensor-parallel degree' and expert_parallel said nothing of TP, where
    layouts now pair attention TP 2-8 with EP ('TP4 PP2 EP64 ZeRO-1 ×16') and the experts run whole."""
    fields = client.get("/openapi.json").json()["components"]["schemas"]["LayoutOut"]["properties"]
    assert "expert-TP 1" in fields["tensor_parallel"]["description"]
    assert "Parallel Folding" in fields["expert_parallel"]["description"]


def test_methodology_titles_the_tp_traffic_by_what_runs(client) -> None:  # type: ignore[no-untyped-def]
    """words31: the step terms title it "exposed TP communication (all-reduce, or all-gather/reduce-scatter under
    sequence parallelism)"; the step formula says the same of the time it prices."""
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get("/methodology").text))
    step = page[page.index("exposed TP = ") : page.index("exposed DP/FSDP = ")]
    assert "a reduce-scatter of the same bytes under Megatron sequence parallelism (within TP)" in step
