"""A GPU count reads "8×B200" wherever a person reads it: the rank reasons said "on 8xH200 SXM" and the replicas
note "(1xH100-SXM, ...)" beside the pages' and CLI's "8×H200" (found by qa40). Ids and URLs keep their own spelling."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

COUNT_WITH_X = re.compile(r"\b\d+x[A-Z]")  # "8xH200": a count, an x, a GPU name
LIGHT = "model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&output_len=200&gpus=B200&max_gpus=1"


def _reasons(client: TestClient, query: str) -> list[str]:
    return [o["reason"] for o in client.get(f"/rank.json?{query}").json()["options"]]


def test_the_reasons_write_the_count_with_the_times_sign(client: TestClient) -> None:
    fits = _reasons(client, "phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM")
    light = _reasons(client, LIGHT)
    assert [r for r in fits if r.startswith("fits: batch")] and [r for r in light if r.startswith("fits below one")]
    assert not [r for r in fits + light if COUNT_WITH_X.search(r)], [r for r in fits + light if "x" in r][:3]
    assert any(re.search(r"on \d+×H100", r) for r in fits)


def test_the_replicas_note_writes_both_configurations_with_the_times_sign(client: TestClient) -> None:
    body = client.post(
        "/api/v1/rank/inference?limit=1&terms=false",
        json={"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    ).json()
    note = body["replicas"]["note"]
    assert not COUNT_WITH_X.search(note) and len(re.findall(r"\(\d+×[A-Z]", note)) == 2, note


def test_the_methodology_s_constant_sources_write_the_count_with_the_times_sign() -> None:
    """/methodology shows each constant's source comment: two read "two 8xH100 nodes" and "a 548 ms step on 4xH100"."""
    from app.scoring.efficiency import inference, training
    from app.web.methodology.constant_catalog import dataclass_fields, fixed_constants

    rows = fixed_constants() + dataclass_fields(inference, "InferenceEfficiency")
    rows += dataclass_fields(training, "TrainingEfficiency")
    assert len(rows) > 50 and not [(r["name"], r["source"]) for r in rows if COUNT_WITH_X.search(r["source"])]
