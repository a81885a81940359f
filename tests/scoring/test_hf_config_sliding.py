"""A pasted config.json's sliding window: read as transformers reads it, and estimated as the catalog's own model
(found by QA: a pasted Gemma 2 config ignored its window, batch 25 where the catalog's gemma-2-9b holds 30)."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload, ModelArchitecture
from app.service.query.custom_model import arch_of_config
from app.service.rank.model_spec import spec_from_architecture
from tests.scoring.test_hf_config import GPT_OSS_120B, LLAMA_31_8B

GPUS, MODELS = load_gpu_specs(), load_model_specs()

# google/gemma-2-9b config.json (the shape the catalog's gemma-2-9b row cites)
GEMMA_2_9B = {
    "model_type": "gemma2",
    "hidden_size": 3584,
    "intermediate_size": 14336,
    "num_hidden_layers": 42,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "vocab_size": 256000,
    "max_position_embeddings": 8192,
    "sliding_window": 4096,
    "tie_word_embeddings": True,
}


def _sliding(config: dict) -> tuple[int, int]:
    spec = model_spec_from_hf_config(config)
    return spec.sliding_window, spec.sliding_layers


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({}, (4096, 21)),  # Gemma 2: every other layer
        ({"layer_types": ["sliding_attention", "full_attention"] * 21}, (4096, 21)),
        ({"model_type": "gemma3_text", "sliding_window": 1024, "sliding_window_pattern": 6}, (1024, 35)),
        ({"model_type": "mistral"}, (4096, 42)),  # Mistral 7B v0.1: every layer
        ({"model_type": "qwen2", "use_sliding_window": False}, (0, 0)),  # a window the model does not use
        ({"model_type": "qwen2", "use_sliding_window": True, "max_window_layers": 28}, (4096, 14)),
        ({"sliding_window": None}, (0, 0)),
    ],
)
def test_the_window_and_its_layers_are_read_as_transformers_reads_them(extra: dict, expected: tuple) -> None:
    assert _sliding({**GEMMA_2_9B, **extra}) == expected


def test_gpt_oss_layer_types_and_a_dense_llama() -> None:
    oss = {**GPT_OSS_120B, "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 18}
    assert _sliding(oss) == (128, 18)
    assert _sliding(LLAMA_31_8B) == (0, 0)


def test_layer_types_that_do_not_match_the_layers_name_the_key() -> None:
    with pytest.raises(ValueError, match="layer_types"):
        model_spec_from_hf_config({**GEMMA_2_9B, "layer_types": ["sliding_attention"] * 40})


def test_a_pasted_gemma_2_estimates_as_the_catalogs_own() -> None:
    workload = InferenceWorkload(model="gemma-2-9b", input_len=6_000, output_len=400)
    catalog = estimate_inference(GPUS["H100-SXM"], 1, MODELS["gemma-2-9b"], workload)
    pasted = estimate_inference(GPUS["H100-SXM"], 1, model_spec_from_hf_config(GEMMA_2_9B), workload)
    assert pasted.max_batch == catalog.max_batch and pasted.batch == catalog.batch


def test_the_window_survives_the_link_a_pasted_config_is_shared_by() -> None:
    """The page and the API write a pasted config as arch_* fields; read back, they give the same window."""
    arch = ModelArchitecture.model_validate(arch_of_config(GEMMA_2_9B))
    spec = spec_from_architecture(arch)
    assert (spec.sliding_window, spec.sliding_layers) == (4096, 21)
    every = ModelArchitecture.model_validate(arch_of_config({**GEMMA_2_9B, "model_type": "mistral"}))
    assert every.sliding_layers is None and spec_from_architecture(every).sliding_layers == 42  # blank: every layer


def test_sliding_layers_are_checked_against_the_model() -> None:
    base = arch_of_config(LLAMA_31_8B)
    with pytest.raises(ValueError, match="sliding window"):
        ModelArchitecture.model_validate({**base, "sliding_layers": 4})
    with pytest.raises(ValueError, match="more than the model's 32 layers"):
        ModelArchitecture.model_validate({**base, "sliding_window": 4096, "sliding_layers": 40})


def test_a_gemma_config_without_tie_word_embeddings_ties_them_as_transformers_does() -> None:
    """Gemma's config.json files leave the key out (Gemma2Config defaults it to True): an untied count read 20.3 GB
    of BF16 weights for Gemma 2 9B where the catalog's 9.24 B parameters hold 18.5 (found by QA)."""
    untold = {k: v for k, v in GEMMA_2_9B.items() if k != "tie_word_embeddings"}
    assert model_spec_from_hf_config(untold).params_b == model_spec_from_hf_config(GEMMA_2_9B).params_b
    assert abs(model_spec_from_hf_config(untold).params_b - MODELS["gemma-2-9b"].params_b) < 0.05
