"""Time continuous-batching steps that carry a prompt chunk beside the decode batch (Llama-3.1-8B shapes, bf16).

Run on a lent device machine (PyTorch there; nothing here imports it):

    python3 benchmarks/device/mixed_steps.py --out $OUT/mixed_steps.json

and on a CPU, with a toy model, to check the script itself: `--tiny`.

Under load a serving engine runs mixed steps: the running batch decodes one token each while a new prompt (or a
chunk of one) is prefilled in the same forward pass, its tokens stacked under the decode rows of every GEMM. The
estimator prices such a step as one roofline over the combined work (steps.mixed_step_parts), so a prompt that
rides along shares the weight read with the batch; how much of the step the prompt takes is the utilisation of
its M/D/1 prefill queue (queueing.prefill_share_of_step), and so the queueing part of TTFT under load.

Each configuration is decode batch B (at context C, its KV cache full) plus one prompt of P tokens, B = 0 being
the prompt alone and P = 0 the decode step alone, captured whole in one CUDA graph: the GEMMs over B + P rows, the
decode rows' attention over their cache, the prompt's causal attention over itself, the LM head on the decode
rows and the prompt's last token. `app.calibration.device.device_check` sets each beside forward_parts for the same work
and the marginal cost of the prompt (mixed - decode alone) beside the estimator's.
"""

from __future__ import annotations

import sys
import time

import torch
import torch.nn.functional as F
from gpu_kernels import (
    LLAMA_8B,
    OTHER_BACKENDS,
    TINY,
    Model,
    Timer,
    attention,
    choose_backend,
    environment,
    graphed,
    kv_caches,
    script_args,
    views,
    write,
)

BATCHES = [0, 1, 16, 64, 256]
CHUNKS = [0, 128, 512, 2048, 8192]
CONTEXT = 1024


def mixed_forward(model: Model, decode_tokens: torch.Tensor, k_caches: list, v_caches: list, prompt: torch.Tensor):
    """One pass over B decode tokens (one per sequence, at the last slot of its cache) and one P-token prompt."""
    d = model.d
    batch, length = decode_tokens.shape[0], prompt.shape[0]
    hd, kvh, group = d["head_dim"], d["kv_heads"], d["heads"] // d["kv_heads"]
    x = model.embed[torch.cat([decode_tokens, prompt])]
    for layer, k_cache, v_cache in zip(model.layers, k_caches, v_caches, strict=True):
        qkv = model.linear(F.rms_norm(x, (d["hidden"],), model.norm), layer["qkv"])
        q, k, v = qkv.split([d["heads"] * hd, kvh * hd, kvh * hd], dim=-1)
        out = []
        if batch:
            k_cache[:, :, -1] = k[:batch].view(batch, kvh, hd)
            v_cache[:, :, -1] = v[:batch].view(batch, kvh, hd)
            attn = attention(q[:batch].view(batch, kvh, group, hd), k_cache, v_cache, causal=False)
            out.append(attn.reshape(batch, -1))
        if length:
            qp, kp, vp = (t[batch:].view(length, -1, hd).transpose(0, 1)[None] for t in (q, k, v))
            out.append(attention(qp, kp, vp, causal=True)[0].transpose(0, 1).reshape(length, -1))
        x = x + model.linear(torch.cat(out) if len(out) > 1 else out[0], layer["o"])
        x = x + model.mlp(F.rms_norm(x, (d["hidden"],), model.norm), layer)
    sampled = torch.cat([x[:batch], x[-1:]]) if length else x
    return F.linear(F.rms_norm(sampled, (d["hidden"],), model.norm), model.lm_head).argmax(dim=-1)


def bench_mixed(
    timer: Timer, device: torch.device, model: Model, pools: tuple, batches: list, chunks: list, context: int
) -> list[dict]:
    rows = []
    dims = model.d
    for batch in batches:
        k, v = views(pools[0], dims, batch, context), views(pools[1], dims, batch, context)
        for length in chunks:
            if not batch and not length:
                continue
            decode_tokens = torch.randint(0, dims["vocab"], (batch,), device=device)
            prompt = torch.randint(0, dims["vocab"], (length,), device=device)

            def step(decode_tokens=decode_tokens, k=k, v=v, prompt=prompt) -> torch.Tensor:
                return mixed_forward(model, decode_tokens, k, v, prompt)

            shape = {"batch": batch, "context": context, "prompt_tokens": length}
            try:
                expected = step().clone()
                replay = graphed(step, device)
                replay()
                timer.sync()
                same = bool(torch.equal(step(), expected))
                ms = timer.median_ms(replay, reps=7, inner=3)
            except RuntimeError as exc:
                rows.append({"kind": "mixed", **shape, "error": str(exc)[:200]})
                continue
            finally:
                if device.type == "cuda":
                    torch.cuda.empty_cache()
            rows.append(
                {
                    "kind": "mixed",
                    "weights": "bf16",
                    **shape,
                    "ms": ms,
                    "tokens_s": (batch + length) / ms * 1e3,
                    "eager_matches": same,
                }
            )
    return rows


def main() -> int:
    args, device = script_args(__doc__.splitlines()[0])
    dims = TINY if args.tiny else LLAMA_8B
    timer = Timer(device)
    result: dict = {"model": "llama-3.1-8b" if not args.tiny else "tiny", "dims": dims, "env": environment(device)}
    t0 = time.time()
    # cuDNN 9's Hopper-native attention where it runs (the kernel class engines ship), else the default
    backend = (choose_backend(device, dims, OTHER_BACKENDS) if not args.tiny else None) or choose_backend(device, dims)
    result["env"]["sdpa_backend"] = backend or "none"
    batches, chunks = (BATCHES, CHUNKS) if not args.tiny else ([0, 1, 4], [0, 16])
    context = CONTEXT if not args.tiny else 64
    pools = kv_caches(dims, device, max(batches) * context)
    rows = bench_mixed(timer, device, Model(dims, device, fp8=False), pools, batches, chunks, context)
    print(f"[{time.time() - t0:6.1f} s] mixed steps ({backend})", flush=True)
    return write(result, rows, device, args.out)


if __name__ == "__main__":
    sys.exit(main())
