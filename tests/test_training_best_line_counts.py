"""The best training run's sentence writes its GPU and node counts as every other count on the page, with thousands
separators. Found by qa32: Llama 3.1 405B pretraining read "the token budget taking 15.5 days with the machine's
start-up (2048 GPUs, 256 nodes)"."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

PRETRAIN_405B = (
    "/?phase=training&model=llama-3.1-405b&method=pretrain&global_batch_seqs=4096&total_tokens=1000000000000"
    "&max_gpus=8192&gpus=B200&providers=coreweave"
)


def test_the_best_runs_gpu_count_has_thousands_separators(client: TestClient) -> None:
    best = client.get(PRETRAIN_405B.replace("/?", "/rank.json?")).json()["options"][0]
    assert best["feasible"] and best["gpu_count"] >= 1000, "the question must rank a run of thousands of GPUs"
    text = client.get(PRETRAIN_405B).text
    said = re.search(r"with the machine's start-up \(([^)]*)\)", text)
    assert said is not None
    assert said.group(1) == f"{best['gpu_count']:,} GPUs, {best['nodes']:,} nodes"
