"""The verdict on serving a model you train, in words that say first why its serverless prices differ from the base
model's: per-token APIs sell the models they host, so new weights (pretrained, fully fine-tuned) need GPUs of your own,
and a LoRA adapter needs a seller that loads adapters of its base (token_prices.csv lora_serving = yes).
"""

from __future__ import annotations

from dataclasses import replace

from app.scoring.serving.plans.verdict import DEDICATED_ONLY_LEAD, Verdict
from app.scoring.specs import ModelSpec
from app.scoring.workload import Method as TrainingMethod

NEW_WEIGHTS = {"pretrain": "pretrain", "full_ft": "fully fine-tune"}


def _why(method: TrainingMethod, model: ModelSpec, apis_apply: bool) -> str:
    if method in NEW_WEIGHTS:
        return (
            f"Only dedicated GPUs can serve the model you {NEW_WEIGHTS[method]}: per-token APIs sell only the models "
            "they host, not your weights"
        )
    adapter = f"{'QLoRA' if method == 'qlora' else 'LoRA'} adapter"
    if apis_apply:
        return f"For the {adapter} you train, only the per-token APIs that load adapters of {model.name} apply"
    return (
        f"Only dedicated GPUs can serve the {adapter} you train: it needs a host that loads it onto {model.name}, and "
        "no per-token API in the catalog is listed as doing so"
    )


def trained_verdict(verdict: Verdict, method: TrainingMethod, model: ModelSpec, apis_apply: bool) -> Verdict:
    """`verdict` on serving the trained model, led by why only some (or no) serverless prices apply to it
    (`apis_apply`: some do); where none do, the generic 'no serverless price compares' gives way to that reason."""
    text = verdict.text
    if not apis_apply and text.startswith(f"{DEDICATED_ONLY_LEAD}: "):
        text = "Cheapest: " + text.removeprefix(f"{DEDICATED_ONLY_LEAD}: ")
    return replace(verdict, text=f"{_why(method, model, apis_apply)}. {text}")
