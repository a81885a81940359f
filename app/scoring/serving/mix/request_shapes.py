"""Named request shapes (mean prompt and output lengths of a kind of traffic), each from a published trace.

One bucket per shape, at the source's mean or median: a histogram of your own (INPUTxOUTPUT buckets)
says more when you have one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ShapeName = Literal["chat", "rag", "code", "reasoning"]


@dataclass(frozen=True, slots=True)
class NamedShape:
    key: str
    label: str
    input_len: int
    output_len: int
    source: str
    source_url: str


SHAPES: dict[str, NamedShape] = {
    # LMSYS-Chat-1M (Zheng et al. 2023, Table 1): 69.5 prompt and 214.5 response tokens per turn on average.
    "chat": NamedShape(
        "chat",
        "Chat",
        70,
        215,
        "LMSYS-Chat-1M, mean tokens per prompt (69.5) and per response (214.5), Zheng et al. 2023, Table 1",
        "https://arxiv.org/abs/2309.11998",
    ),
    # Mooncake's Kimi trace (Qin et al. 2024): mean input 7,590 and output 182 tokens (long documents, RAG).
    "rag": NamedShape(
        "rag",
        "RAG / long input",
        7_590,
        182,
        "Mooncake (Kimi) request trace, mean input 7,590 and output 182 tokens, Qin et al. 2024",
        "https://arxiv.org/abs/2407.00079",
    ),
    # Azure LLM inference trace 2023, coding (Splitwise, Patel et al. 2024): median prompt 1,500, output 13 tokens.
    "code": NamedShape(
        "code",
        "Code completion",
        1_500,
        13,
        "Azure LLM inference trace (coding), median prompt 1,500 and output 13 tokens, Splitwise, Patel et al. 2024",
        "https://arxiv.org/abs/2311.18677",
    ),
    # SemiAnalysis InferenceMAX (2025) benchmarks reasoning as 1k input / 8k output tokens.
    "reasoning": NamedShape(
        "reasoning",
        "Reasoning / long output",
        1_024,
        8_192,
        "SemiAnalysis InferenceMAX, the 1k-in / 8k-out reasoning scenario (2025)",
        "https://github.com/InferenceMAX/InferenceMAX",
    ),
}
