"""Training questions a stack answers by its recipe: QLoRA's BF16 matmuls, the optimizer states a user chooses. The
JSON API, the pages and the CLI refuse or take them alike."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.cli.main import main

QLORA_8B = {"model": "llama-3.1-8b", "method": "qlora", "seq_len": 2048, "global_batch_seqs": 16}


def test_qlora_at_fp8_is_a_422_on_precision_saying_why(client: TestClient) -> None:
    for path in ("/api/v1/rank/training", "/api/v1/estimate/training"):
        for precision in ("fp8", "fp4"):
            body = {**QLORA_8B, "precision": precision, "gpu": "H100-SXM", "gpu_count": 1}
            if path.endswith("rank/training"):
                body = {k: v for k, v in body.items() if k not in ("gpu", "gpu_count")}
            response = client.post(path, json=body)
            assert response.status_code == 422, (path, precision)
            (error,) = response.json()["detail"]
            assert error["field"] == "precision" and "dequantises its NF4 base weights to BF16" in error["message"]
    page = client.get("/?phase=training&model=llama-3.1-8b&method=qlora&precision=fp8")
    assert page.status_code == 422
    invalid = re.findall(r'aria-invalid="true" aria-describedby="(?:hint-[a-z_]+ )?err-([a-z_]+)"', page.text)
    assert set(invalid) == {"precision"}
    assert "no QLoRA stack runs FP8 matmuls" in page.text


def test_qlora_at_fp8_is_refused_by_the_cli_at_its_flag(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "qlora", "--precision", "fp8"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("--precision: QLoRA dequantises") and "Traceback" not in err


def test_qlora_on_a_stack_without_it_is_a_422_on_framework_saying_why(client: TestClient) -> None:
    """QLoRA with framework=megatron was ranked, without a word, as a data-parallel run Megatron-LM has no recipe for
    (found by qa32): each stack that loads no NF4 weights is refused at its field, on every face."""
    for framework in ("megatron", "nemo", "torchtitan", "llm-foundry"):
        for path in ("/api/v1/rank/training", "/api/v1/estimate/training"):
            body = {**QLORA_8B, "framework": framework}
            if path.endswith("estimate/training"):
                body |= {"gpu": "H100-SXM", "gpu_count": 1}
            response = client.post(path, json=body)
            assert response.status_code == 422, (path, framework)
            (error,) = response.json()["detail"]
            assert error["field"] == "framework" and f"{framework} does not run QLoRA" in error["message"]
    page = client.get("/?phase=training&model=llama-3.1-8b&method=qlora&framework=megatron")
    assert page.status_code == 422
    invalid = re.findall(r'aria-invalid="true" aria-describedby="(?:hint-[a-z_]+ )?err-([a-z_]+)"', page.text)
    assert set(invalid) == {"framework"} and "megatron does not run QLoRA" in page.text
    for framework in ("hf", "pytorch", "auto"):  # the stacks that run it still rank it
        assert client.post("/api/v1/rank/training", json={**QLORA_8B, "framework": framework}).status_code == 200
    lora = {**QLORA_8B, "method": "lora", "framework": "megatron"}
    assert client.post("/api/v1/rank/training", json=lora).status_code == 200


def test_qlora_on_megatron_is_refused_by_the_cli_at_its_flag(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "qlora", "--framework", "megatron"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("--framework: megatron does not run QLoRA") and "Traceback" not in err


def test_qlora_rows_are_fsdp_or_data_parallel_only(client: TestClient) -> None:
    body = client.post("/api/v1/rank/training", json={**QLORA_8B, "gpus": ["B200", "H100-SXM"]}).json()
    feasible = [o for o in body["options"] if o["feasible"]]
    assert feasible and not any(re.search(r"\b(TP|PP)\d", o["layout"]) for o in feasible)
    assert any("data parallel or FSDP only" in a for a in feasible[0]["assumptions"])


FULL_FT_4090 = {
    "model": "llama-3.1-8b",
    "method": "full_ft",
    "seq_len": 2048,
    "global_batch_seqs": 2,
    "gpu": "RTX-4090",
    "gpu_count": 1,
}


def test_the_optimizer_recipe_is_a_workload_field_checked_and_priced(client: TestClient) -> None:
    bad = client.post("/api/v1/estimate/training", json={**FULL_FT_4090, "optimizer": "lion"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "optimizer"
    bad = client.post("/api/v1/estimate/training", json={**FULL_FT_4090, "offload": "nvme"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "offload"
    refused = client.post("/api/v1/estimate/training", json=FULL_FT_4090).json()
    assert not refused["feasible"] and "needs 128 GB of model states" in refused["reason"]
    recipe = {**FULL_FT_4090, "optimizer": "adamw_8bit", "offload": "cpu"}
    fits = client.post("/api/v1/estimate/training", json=recipe).json()
    assert fits["feasible"]
    assert any(t["name"] == "optimizer offloaded to CPU" and t["value"] > 0 for t in fits["terms"])


def test_the_form_offers_the_recipe_and_keeps_it_in_the_link(client: TestClient) -> None:
    query = "phase=training&model=llama-3.1-8b&method=full_ft&optimizer=adamw_8bit&offload=cpu"
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    assert 'value="adamw_8bit" selected' in page.text and 'value="cpu" selected' in page.text
    ranked = client.get(f"/rank.json?{query}").json()
    assert "optimizer=adamw_8bit" in ranked["share_url"] and "offload=cpu" in ranked["share_url"]
    blank = client.get("/?phase=training&model=llama-3.1-8b")
    assert 'name="optimizer"' in blank.text and 'value="adamw" selected' in blank.text


def test_the_cli_takes_the_recipe_flags(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "full_ft", "--gpus", "RTX-4090", "--json"]
    assert main([*argv, "--optimizer", "adamw_8bit", "--offload", "cpu"]) == 0
    assert '"optimizer": "adamw_8bit"' in capsys.readouterr().out
    assert main([*argv, "--optimizer", "sgd"]) == 2
