"""Why data-parallel attention lost where auto tried it: the KV room it would add, and what it costs instead.

Under tensor-parallel attention an MLA model (or one with fewer KV heads than ranks) keeps its whole KV cache on every
GPU, so data-parallel attention (SGLang --enable-dp-attention) holds several times the requests. It still serves
fewer tokens/s where the batch the latency limits allow is small enough for the heads split's KV room: every GPU then
streams the whole attention weights each step, and each prompt's attention runs on the one GPU that holds its request
(dp_attention.py). The note says which held here, from the two solved points."""

from __future__ import annotations

from app.scoring.efficiency.inference import DP_ATTENTION_SWITCH
from app.scoring.explain import fixed, significant
from app.scoring.hardware.dtypes import WEIGHT_BYTES
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.memory import GB, attention_params, max_sequences, request_kv_tokens


def dp_attention_switch(engine: str) -> str:
    """The engine's own switch for data-parallel attention (SGLang's, vLLM's or TensorRT-LLM's), for the layout line."""
    return DP_ATTENTION_SWITCH.get(engine, f"{engine}'s data-parallel attention")


def dp_attention_lost_note(s: Solution) -> str:
    """'; data-parallel attention (tried) would hold N× the requests ... but ...' for a heads split that auto kept
    over data-parallel attention, else ''."""
    if s.dp_attention_tried is None:
        return ""
    tried = s.dp_attention_tried.read()
    if tried.solution is None and tried.refusal is None:  # overloaded: the heads split keeps up with more
        return ""
    w, tp, pp = s.workload, s.tensor_parallel, s.pipeline_parallel
    held = request_kv_tokens(w.input_len, w.output_len, w.beam_width)
    dp_batch = max_sequences(s.gpu, s.model, w.weight_dtype, w.kv_dtype_effective, held, tp, pp, tp, w.engine)
    if dp_batch < 1:  # its copies of the attention weights leave no room (or do not fit)
        reason = f" ({tried.refusal.reason})" if tried.refusal is not None else ""
        return f"; data-parallel attention (tried) holds no request here{reason}"
    attention_gb = attention_params(s.model) * WEIGHT_BYTES[w.weight_dtype] / pp / GB
    room = (
        f"; data-parallel attention (tried) would hold {significant(dp_batch / max(s.max_batch, 1), 2)}× the "
        f"requests ({fixed(dp_batch, 0)} vs {fixed(s.max_batch, 0)})"
    )
    cost = (
        f"every GPU then streams the whole {fixed(attention_gb, 1)} GB of attention weights each step and runs each "
        "prompt's attention alone (one GPU a request: slower prefills, a longer TTFT)"
    )
    kv_room = (
        f"; TP{tp}'s KV room is not what limits this batch ({fixed(s.batch, 0)} of {fixed(s.max_batch, 0)} requests)"
        if s.batch < s.max_batch
        else ""
    )
    if tried.solution is not None:
        dp = tried.solution
        return (
            f"{room} but serves fewer tokens/s here: {fixed(dp.point.tokens_per_s, 0)} at batch {fixed(dp.batch, 0)} "
            f"vs {fixed(s.point.tokens_per_s, 0)} at batch {fixed(s.batch, 0)}: {cost}{kv_room}"
        )
    return f"{room} but serves none here ({tried.refusal.reason if tried.refusal else ''}): {cost}"
