"""Two techniques are called sequence parallelism: Megatron's, inside the TP group (its all-reduces become an
all-gather and a reduce-scatter; no field of its own), and DeepSpeed-Ulysses' (a layout's `SP4`, the
`sequence_parallel` field on hf). The TP term said "under sequence parallelism" while a layout's "SP" meant Ulysses;
every face now says "Megatron sequence parallelism (within TP)" or "Ulysses sequence parallelism (SP)"."""

from __future__ import annotations

import re

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.workload import TrainingWorkload

MEGATRON = "Megatron sequence parallelism (within TP)"
ULYSSES = "Ulysses sequence parallelism (SP)"
BARE = re.compile(r"(?<!Megatron )(?<!Ulysses )sequence parallelism")  # a mention that says neither
H100 = load_gpu_specs()["H100-SXM"]
MODELS = load_model_specs()
TP2 = Layout(zero_stage=1, tensor_parallel=2, pipeline_parallel=1, recompute="full")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_the_step_terms_say_which_sequence_parallelism():
    tp = TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=4096, global_batch_seqs=64)
    tp_terms = estimate_training(H100, 64, MODELS["llama-3.1-70b"], tp, layout=TP2).terms
    ulysses = TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=131_072, framework="hf")
    sp = Layout(zero_stage=3, tensor_parallel=1, pipeline_parallel=1, recompute="full", sequence_parallel=4)
    sp_terms = estimate_training(H100, 8, MODELS["llama-3.1-8b"], ulysses, layout=sp).terms
    names = {t.name: t.detail for t in (*tp_terms, *sp_terms)}
    assert any(MEGATRON in name for name in names) and f"exposed {ULYSSES} all-to-all" in names
    for name, detail in names.items():
        assert not BARE.search(name) and not BARE.search(detail), name
    assert "SP4, Ulysses sequence parallelism (SP) by DeepSpeed-Ulysses" in names[f"exposed {ULYSSES} all-to-all"]
    step = names["step time"]
    assert "exposed Ulysses SP" in step and not re.search(r"exposed SP\b", step)


def test_methodology_says_which(client) -> None:  # type: ignore[no-untyped-def]
    page = _text(client.get("/methodology").text)
    assert MEGATRON in page and ULYSSES in page
    assert not BARE.search(page), BARE.findall(page)


def test_openapi_and_form_say_which(client) -> None:  # type: ignore[no-untyped-def]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["LayoutOut"]["properties"]
    described = schema["sequence_parallel"]["description"]
    assert "Ulysses sequence parallelism (SP, DeepSpeed-Ulysses)" in described and MEGATRON in described
    form = _text(client.get("/?phase=training").text)
    assert "Ulysses sequence parallelism (SP) when needed" in form and "Ulysses SP when" not in form


@pytest.mark.parametrize("path", ["/openapi.json", "/methodology", "/?phase=training"])
def test_no_face_says_sequence_parallelism_bare(client, path) -> None:  # type: ignore[no-untyped-def]
    assert not BARE.search(_text(client.get(path).text))
