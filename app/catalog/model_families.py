"""A model's family, read from its catalog id, for the /models filter: the seed has no family column, and every id
starts with its family's name (llama-3.1-70b, qwen3-32b, deepseek-r1-distill-llama-70b is DeepSeek's release)."""

from __future__ import annotations

# (id prefix, family), longest prefixes first where one starts another (gpt-oss before gpt-j's and gpt-3's "gpt").
FAMILY_PREFIXES = (
    ("codellama", "Llama"),
    ("llama", "Llama"),
    ("mistral", "Mistral"),
    ("mixtral", "Mistral"),
    ("gpt-oss", "gpt-oss"),
    ("gpt-j", "GPT-J"),
    ("gpt-3", "GPT-3"),
    ("falcon", "Falcon"),
    ("deepseek", "DeepSeek"),
    ("qwen", "Qwen"),
    ("megatron-gpt", "Megatron GPT"),
    ("mpt", "MPT"),
    ("opt", "OPT"),
    ("bloom", "BLOOM"),
    ("yi", "Yi"),
    ("gemma", "Gemma"),
    ("phi", "Phi"),
    ("kimi", "Kimi"),
    ("glm", "GLM"),
    ("minimax", "MiniMax"),
)


def family_of(model_id: str) -> str:
    """The family a listed prefix names (the prefix followed by no letter: qwen3, gemma-2, not "optimus" for opt);
    else the id's first word, so a model added without a prefix here still has one."""
    lowered = model_id.lower()
    for prefix, family in FAMILY_PREFIXES:
        rest = lowered.removeprefix(prefix)
        if rest != lowered and not rest[:1].isalpha():
            return family
    return lowered.split("-", 1)[0]
