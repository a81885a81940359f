"""lora_adapter_params is memoised by (model, rank, targets): the count read back is the one worked out afresh, and
the targets (eff.LORA_TARGETS_ALL_LINEAR) are read on every call, so a change of them is never answered from the
memo of the other."""

import pytest

from app.catalog.spec_files import load_model_specs
from app.scoring.efficiency import training as eff
from app.scoring.training.layouts import lora_adapters

MODELS = load_model_specs()


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "mixtral-8x7b", "deepseek-v3", "qwen3-30b-a3b"])
def test_the_memo_reads_the_count_worked_out_afresh(model_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = MODELS[model_id]
    for rank in (8, 16, 64):
        afresh = lora_adapters._adapter_params.__wrapped__(model, rank, True)
        assert lora_adapters.lora_adapter_params(model, rank) == afresh
        assert lora_adapters.lora_adapter_params(model, rank) == afresh  # from the memo
    all_linear = lora_adapters.lora_adapter_params(model, 16)
    monkeypatch.setattr(eff, "LORA_TARGETS_ALL_LINEAR", False)
    attention_only = lora_adapters.lora_adapter_params(model, 16)
    assert attention_only == 16 * lora_adapters.attention_adapter_width(model) * model.layers < all_linear
