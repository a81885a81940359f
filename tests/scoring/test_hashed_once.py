"""Specs hash once (app.scoring.hashed_once): the kept hash is the fields' hash, equal specs share memo entries, and a
spec the catalog changes (another bandwidth, another memory) is a new key that every memo answers afresh."""

import pickle
from dataclasses import fields, replace
from datetime import date

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.inference.step.context import build_context
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100 = GPUS["H100-SXM"]


def test_the_kept_hash_is_the_hash_of_the_fields_and_stays_out_of_them() -> None:
    gpu = replace(H100, id="h100-hashed-once")
    assert hash(gpu) == hash(tuple(getattr(gpu, f.name) for f in fields(gpu)))
    assert hash(gpu) == hash(gpu)  # the kept one
    assert "_hash" not in {f.name for f in fields(gpu)} and "_hash" not in repr(gpu)
    twin = replace(H100, id="h100-hashed-once")  # equal, built apart: equal hashes, so one memo entry
    assert twin == gpu and hash(twin) == hash(gpu)
    copied = pickle.loads(pickle.dumps(gpu))
    assert copied == gpu and hash(copied) == hash(gpu)


def test_a_spec_the_catalog_changes_is_a_new_key_for_every_memo() -> None:
    before = replace(H100, id="h100-edited")
    hash(before)  # kept before the edit
    after = replace(before, memory_bandwidth_tbs=before.memory_bandwidth_tbs / 2)
    assert after != before and hash(after) != hash(before)
    model = MODELS["llama-3.1-70b"]
    assert build_context(after, model, "fp8", "fp8", "vllm", 2).bandwidth_tbs == after.memory_bandwidth_tbs
    assert build_context(before, model, "fp8", "fp8", "vllm", 2).bandwidth_tbs == before.memory_bandwidth_tbs


def _best_tokens_per_s(gpu_memory_bandwidth_tbs: float) -> float:
    gpus = {**GPUS, "H100-SXM": replace(H100, memory_bandwidth_tbs=gpu_memory_bandwidth_tbs)}
    offer = Offer("p", "P", "H100-SXM", 8, "on_demand", 3.0, date(2026, 1, 1))
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=2_019)
    ranked = rank_inference(workload, CatalogSnapshot(gpus=gpus, offers=(offer,)), MODELS["llama-3.1-70b"])
    return ranked.options[0].output_tokens_per_s


def test_a_ranking_after_a_spec_edit_sees_the_edit() -> None:
    datasheet = _best_tokens_per_s(H100.memory_bandwidth_tbs)
    assert _best_tokens_per_s(H100.memory_bandwidth_tbs / 2) < datasheet  # not the memoised answer
    assert _best_tokens_per_s(H100.memory_bandwidth_tbs) == datasheet
