"""A training layout's degrees multiply out to its GPU count. Found by qa32: Llama 3.1 405B at 32K tokens read
"TP8 CP2 FSDP ×256" on 2,048 B200s and "TP8 CP4 FSDP ×512" on 4,096 H200s (8 × 2 × 256 = 4,096): the shard count is
the GPUs over TP × PP, the CP ranks among them. It now says so: "FSDP ×256 (DP128 × CP2)"."""

from __future__ import annotations

import math
import re

from fastapi.testclient import TestClient

LONG_405B = (
    "/rank.json?phase=training&model=llama-3.1-405b&method=pretrain&seq_len=32768&global_batch_seqs=512"
    "&total_tokens=1000000000000&max_gpus=8192&gpus=B200,H200&providers=coreweave"
)


def _degree(layout: str, name: str) -> int:
    found = re.search(rf"\b{name}(\d+)", layout)
    return int(found.group(1)) if found else 1


def test_a_context_parallel_layout_names_degrees_that_multiply_to_its_gpus(client: TestClient) -> None:
    options = [o for o in client.get(LONG_405B).json()["options"] if o["feasible"]]
    with_cp = [o for o in options if "CP" in o["layout"]]
    assert with_cp, "the question must rank context-parallel layouts"
    for option in with_cp:
        layout = option["layout"]
        degrees = [_degree(layout, name) for name in ("TP", "PP", "DP", "CP")]
        assert math.prod(degrees) == option["gpu_count"], layout
        shard = int(re.search(r"(?:FSDP|ZeRO-\d|DDP) ×(\d+)", layout).group(1))  # type: ignore[union-attr]
        assert f"(DP{shard // degrees[3]} × CP{degrees[3]})" in layout
