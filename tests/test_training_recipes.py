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
    assert set(re.findall(r'aria-invalid="true" aria-describedby="err-([a-z_]+)"', page.text)) == {"precision"}
    assert "no QLoRA stack runs FP8 matmuls" in page.text


def test_qlora_at_fp8_is_refused_by_the_cli_at_its_flag(database, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "qlora", "--precision", "fp8"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("--precision: QLoRA dequantises") and "Traceback" not in err


def test_qlora_rows_are_fsdp_or_data_parallel_only(client: TestClient) -> None:
    body = client.post("/api/v1/rank/training", json={**QLORA_8B, "gpus": ["B200", "H100-SXM"]}).json()
    feasible = [o for o in body["options"] if o["feasible"]]
    assert feasible and not any(re.search(r"\b(TP|PP)\d", o["layout"]) for o in feasible)
    assert any("data parallel or FSDP only" in a for a in feasible[0]["assumptions"])
