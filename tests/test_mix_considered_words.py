"""/mix's "Considered …" note counts in words that agree with their numbers: a search narrowed to one offer read
"Considered 1 replica types from 1 offers … each of 1 GPU types … 1 integer replica counts" (found by qa36)."""

from __future__ import annotations

from fastapi.testclient import TestClient

ONE_OFFER = "model=llama-3.1-8b&weight_dtype=bf16&max_gpus=1&providers=coreweave&gpus=b200&requests_per_day=8640"


def _considered(client: TestClient, mix: str) -> str:
    notes = client.get(f"/mix.json?{ONE_OFFER}&mix={mix}").json()["notes"]
    (note,) = [n for n in notes if n.startswith("Considered ")]
    return str(note)


def test_one_offer_one_type_and_one_bucket_read_in_the_singular(client: TestClient) -> None:
    note = _considered(client, "chat:1")
    assert note.startswith("Considered 1 replica type from 1 offer: for the one bucket, the cheapest configuration")
    assert "of each of 1 GPU type that can serve it" in note and "1 integer replica count and up to 1 share " in note
    assert "types" not in note and "offers" not in note and "counts" not in note


def test_two_buckets_keep_their_plural(client: TestClient) -> None:
    note = _considered(client, "chat:1,rag:1")
    assert note.startswith("Considered 1 replica type from 1 offer: for each of the 2 buckets, the cheapest")
    assert "up to 2 shares " in note
