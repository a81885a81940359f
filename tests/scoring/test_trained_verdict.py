"""The verdict on serving a model you train says first why its serverless prices differ from the base model's."""

from types import SimpleNamespace

from app.scoring.serving.plans.trained_verdict import trained_verdict
from app.scoring.serving.plans.verdict import DEDICATED_ONLY_LEAD, Verdict

MODEL = SimpleNamespace(name="Llama 3.1 70B")
ALONE = Verdict("autoscaled", f"{DEDICATED_ONLY_LEAD}: 2×H100-SXM autoscaled, $9,000/month")
AGAINST = Verdict("serverless", "Serverless is cheaper at this traffic: X serverless, $100/month, against …")


def test_each_method_says_why_and_keeps_the_verdict():
    assert trained_verdict(ALONE, "qlora", MODEL, False).text == (  # type: ignore[arg-type]
        "Only dedicated GPUs can serve the QLoRA adapter you train: it needs a host that loads it onto Llama 3.1 70B, "
        "and no per-token API in the catalog is listed as doing so. Cheapest: 2×H100-SXM autoscaled, $9,000/month"
    )
    pretrained = trained_verdict(ALONE, "pretrain", MODEL, False)  # type: ignore[arg-type]
    assert pretrained.text.startswith("Only dedicated GPUs can serve the model you pretrain: per-token APIs sell only")
    served = trained_verdict(AGAINST, "lora", MODEL, True)  # type: ignore[arg-type]
    assert served == Verdict(
        "serverless",
        "For the LoRA adapter you train, only the per-token APIs that load adapters of Llama 3.1 70B apply. "
        + AGAINST.text,
    )
