"""Measure one GPU's decode and prefill on a Llama-3.1-8B-shaped model with random weights (no download).

Run on a lent device machine (PyTorch there; nothing here imports it):

    python3 benchmarks/device/gpu_kernels.py --out $OUT/gpu_kernels.json

and on a CPU, with a toy model, to check the script itself: `--tiny`.

What it measures, each as the median of timed repeats after warm-up, with CUDA events:
- `copy`: a 4 GiB device-to-device copy (bytes read + written over time): the bandwidth ceiling;
- `gemm`: the MLP's up/gate (4096 -> 2x14336) and down (14336 -> 4096) matmuls at M = 1..8192 tokens,
  bf16 and FP8 (per-tensor scaled `torch._scaled_mm`, activations quantised on the fly as vLLM's W8A8 does),
  rotating four weight copies so no read comes from L2;
- `attention_decode`: one layer's decode attention (GQA 32/8 heads, head 128) over a bf16 KV cache;
- `decode`: a whole decode step (32 layers, LM head, greedy sample) captured in a CUDA graph, at batch x
  context, bf16 and FP8 weights, bf16 KV cache; plus the same step run eagerly at two batches;
- `prefill`: an eager forward pass over one prompt of L tokens (causal FlashAttention), bf16 and FP8.

`--only long_prefill` times bf16 prefill of 32K-128K-token prompts through cuDNN's attention (where attention, not
the matmuls, sets TTFT). `--only moe` times the routed experts of DeepSeek-R1 and gpt-oss-120b alone;
`--only moe_served` times experts as served (`moe_served`: R1's TP8 and EP8 shards and three other layouts, bf16 and
FP8) and whole MoE layers run eagerly and from a CUDA graph (`moe_layer`: the host's exposed time).

No RoPE (an elementwise op that engines fuse into the QKV kernel), no paging, every sequence at the same
context: the floor a serving engine's kernels reach, without its scheduler. `app.calibration.device.device_check`
compares these times with the estimator's kernel terms.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

LLAMA_8B = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336, "vocab": 128256}
TINY = {"layers": 2, "hidden": 256, "heads": 4, "kv_heads": 2, "head_dim": 64, "ffn": 512, "vocab": 1000}
FP8_MAX = 448.0  # float8_e4m3fn


class Timer:
    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()

    def median_ms(self, fn, reps: int, inner: int = 1, warmup: int = 3) -> float:
        """Median over `reps` timings of `inner` back-to-back calls, per call (ms)."""
        for _ in range(warmup):
            fn()
        self.sync()
        times = []
        for _ in range(reps):
            if self.cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(inner):
                    fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / inner)
            else:
                t0 = time.perf_counter()
                for _ in range(inner):
                    fn()
                times.append((time.perf_counter() - t0) * 1e3 / inner)
        return statistics.median(times)


def quantise_fp8(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scale = (w.abs().amax().float() / FP8_MAX).clamp(min=1e-12)
    return (w.float() / scale).to(torch.float8_e4m3fn), scale


def fp8_linear(x: torch.Tensor, w8: torch.Tensor, w_scale: torch.Tensor) -> torch.Tensor:
    """W8A8 with a dynamic per-tensor activation scale; rows padded to 16 where the kernel asks for it."""
    x_scale = (x.abs().amax().float() / FP8_MAX).clamp(min=1e-12)
    x8 = (x.float() / x_scale).to(torch.float8_e4m3fn)
    rows = x8.shape[0]
    if rows % 16 and PAD_FP8_ROWS[0]:
        x8 = F.pad(x8.view(torch.uint8), (0, 0, 0, 16 - rows % 16)).view(torch.float8_e4m3fn)
    out = torch._scaled_mm(x8, w8.t(), scale_a=x_scale, scale_b=w_scale, out_dtype=torch.bfloat16)
    return out[:rows]


PAD_FP8_ROWS = [False]  # set once if the kernel refuses an M that is not a multiple of 16


class Model:
    """A Llama-style decoder: fused QKV, GQA attention, SwiGLU MLP, RMSNorm, untied LM head."""

    def __init__(self, dims: dict[str, int], device: torch.device, fp8: bool, source: Model | None = None) -> None:
        self.d, self.fp8 = dims, fp8
        h, hd = dims["hidden"], dims["head_dim"]
        qkv_out = (dims["heads"] + 2 * dims["kv_heads"]) * hd
        gen = torch.Generator(device=device).manual_seed(0)

        def rand(*shape: int) -> torch.Tensor:
            return (torch.randn(*shape, device=device, generator=gen, dtype=torch.float32) * 0.02).to(torch.bfloat16)

        if source is not None:
            self.layers = [dict(w) for w in source.layers]
            self.embed, self.lm_head = source.embed, source.lm_head
        else:
            self.embed = rand(dims["vocab"], h)
            self.lm_head = rand(dims["vocab"], h)
            self.layers = [
                {
                    "qkv": rand(qkv_out, h),
                    "o": rand(h, dims["heads"] * hd),
                    "up": rand(2 * dims["ffn"], h),
                    "down": rand(h, dims["ffn"]),
                }
                for _ in range(dims["layers"])
            ]
        self.norm = torch.ones(h, device=device, dtype=torch.bfloat16)
        if fp8:
            for layer in self.layers:
                for name in ("qkv", "o", "up", "down"):
                    layer[name] = quantise_fp8(layer[name])

    def linear(self, x: torch.Tensor, w) -> torch.Tensor:
        return fp8_linear(x, *w) if self.fp8 else F.linear(x, w)

    def mlp(self, x: torch.Tensor, layer: dict) -> torch.Tensor:
        gate, up = self.linear(x, layer["up"]).chunk(2, dim=-1)
        return self.linear(F.silu(gate) * up, layer["down"])

    def decode(self, tokens: torch.Tensor, k_caches: list, v_caches: list) -> torch.Tensor:
        """One token per sequence at the last slot of a full cache (B, kv_heads, C, head_dim)."""
        d = self.d
        batch, group = tokens.shape[0], d["heads"] // d["kv_heads"]
        x = self.embed[tokens]
        for layer, k_cache, v_cache in zip(self.layers, k_caches, v_caches, strict=True):
            qkv = self.linear(F.rms_norm(x, (d["hidden"],), self.norm), layer["qkv"])
            q, k, v = qkv.split([d["heads"] * d["head_dim"], *(2 * [d["kv_heads"] * d["head_dim"]])], dim=-1)
            k_cache[:, :, -1] = k.view(batch, d["kv_heads"], d["head_dim"])
            v_cache[:, :, -1] = v.view(batch, d["kv_heads"], d["head_dim"])
            # GQA decode as flash attention over `group` query rows per KV head, no mask: K/V are read once
            attn = attention(q.view(batch, d["kv_heads"], group, d["head_dim"]), k_cache, v_cache, causal=False)
            x = x + self.linear(attn.reshape(batch, -1), layer["o"])
            x = x + self.mlp(F.rms_norm(x, (d["hidden"],), self.norm), layer)
        logits = F.linear(F.rms_norm(x, (d["hidden"],), self.norm), self.lm_head)
        return logits.argmax(dim=-1)

    def prefill(self, tokens: torch.Tensor) -> torch.Tensor:
        """One prompt (L tokens), causal attention; returns the next token."""
        d = self.d
        length = tokens.shape[0]
        x = self.embed[tokens]
        for layer in self.layers:
            qkv = self.linear(F.rms_norm(x, (d["hidden"],), self.norm), layer["qkv"])
            q, k, v = qkv.split([d["heads"] * d["head_dim"], *(2 * [d["kv_heads"] * d["head_dim"]])], dim=-1)
            q = q.view(length, d["heads"], d["head_dim"]).transpose(0, 1)[None]
            k = k.view(length, d["kv_heads"], d["head_dim"]).transpose(0, 1)[None]
            v = v.view(length, d["kv_heads"], d["head_dim"]).transpose(0, 1)[None]
            attn = attention(q, k, v, causal=True)
            x = x + self.linear(attn[0].transpose(0, 1).reshape(length, -1), layer["o"])
            x = x + self.mlp(F.rms_norm(x, (d["hidden"],), self.norm), layer)
        return F.linear(F.rms_norm(x[-1:], (d["hidden"],), self.norm), self.lm_head).argmax(dim=-1)


BACKEND: list = []  # the SDPA backend chosen once (flash where it runs)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
    from torch.nn.attention import sdpa_kernel

    gqa = q.shape[1] != k.shape[1]
    if gqa:
        k, v = (t.repeat_interleave(q.shape[1] // k.shape[1], dim=1) for t in (k, v)) if NO_GQA[0] else (k, v)
    with sdpa_kernel(BACKEND):
        if gqa and not NO_GQA[0]:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


NO_GQA = [False]
DEFAULT_BACKENDS = ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")
OTHER_BACKENDS = ("CUDNN_ATTENTION",)  # timed beside the default where it runs (Hopper-native kernels in cuDNN 9)


def choose_backend(device: torch.device, dims: dict[str, int], names: tuple[str, ...] = DEFAULT_BACKENDS) -> str | None:
    """Make the first of `names` that runs a causal GQA attention the one `attention` uses; its name, or None."""
    from torch.nn.attention import SDPBackend

    hd = dims["head_dim"]
    q = torch.randn(1, dims["heads"], 64, hd, device=device, dtype=torch.bfloat16)
    k = torch.randn(1, dims["kv_heads"], 64, hd, device=device, dtype=torch.bfloat16)
    candidates = [getattr(SDPBackend, name) for name in names] if device.type == "cuda" else [SDPBackend.MATH]
    for backend in candidates:
        for no_gqa in (False, True):
            BACKEND[:], NO_GQA[0] = [backend], no_gqa
            try:
                attention(q, k, k, causal=True)
                attention(q[:, : dims["kv_heads"], :4], k, k, causal=False)  # the decode layout too
                return f"{backend.name}{' (KV repeated per query head)' if no_gqa else ' (enable_gqa)'}"
            except RuntimeError:
                continue
    return None


def fp8_error(device: torch.device, dims: dict[str, int]) -> float | str:
    """||W8A8 - bf16|| / ||bf16|| on fresh random data: the FP8 path computes the same product (~3-5 %)."""
    x = torch.randn(64, dims["hidden"], device=device, dtype=torch.bfloat16)
    w = torch.randn(dims["ffn"], dims["hidden"], device=device, dtype=torch.bfloat16) * 0.02
    try:
        ref = F.linear(x.double(), w.double())
        return float((fp8_linear(x, *quantise_fp8(w)).double() - ref).norm() / ref.norm())
    except RuntimeError as exc:
        return f"error: {str(exc)[:200]}"


def bench_copy(timer: Timer, device: torch.device, gib: float) -> dict:
    src = torch.empty(int(gib * 2**30), dtype=torch.uint8, device=device).random_(0, 255)
    dst = torch.empty_like(src)
    ms = timer.median_ms(lambda: dst.copy_(src), reps=10)
    return {"kind": "copy", "bytes": 2 * src.numel(), "ms": ms, "gb_s": 2 * src.numel() / ms / 1e6}


def graphed_calls(fns: list, device: torch.device):
    """One CUDA graph replaying every fn of `fns` in turn (so launch gaps and L2 reuse stay out)."""
    return graphed(lambda: [fn() for fn in fns], device)


def bench_gemm(timer: Timer, device: torch.device, dims: dict[str, int], ms_list: list[int]) -> list[dict]:
    """bf16; fp8 on activations already in FP8 (the kernel alone: engines fuse the quantisation into the norm or
    activation before it); fp8 with this script's unfused dynamic per-tensor quantisation."""
    rows = []
    shapes = {"up": (2 * dims["ffn"], dims["hidden"]), "down": (dims["hidden"], dims["ffn"])}
    for name, (n, k) in shapes.items():
        weights = [torch.randn(n, k, device=device, dtype=torch.bfloat16) * 0.02 for _ in range(4)]
        weights8 = [quantise_fp8(w) for w in weights]
        for dtype in ("bf16", "fp8", "fp8+quant"):
            for m in ms_list:
                x = torch.randn(m, k, device=device, dtype=torch.bfloat16)
                x8, x_scale = quantise_fp8(x)
                if dtype == "bf16":
                    fns = [lambda w=w, x=x: F.linear(x, w) for w in weights]
                elif dtype == "fp8":
                    fns = [
                        lambda w=w, x8=x8, xs=x_scale: torch._scaled_mm(
                            x8, w[0].t(), scale_a=xs, scale_b=w[1], out_dtype=torch.bfloat16
                        )
                        for w in weights8
                    ]
                else:
                    fns = [lambda w=w, x=x: fp8_linear(x, *w) for w in weights8]
                try:
                    ms = timer.median_ms(graphed_calls(fns, device), reps=7, inner=4) / len(fns)
                except RuntimeError as exc:
                    rows.append({"kind": "gemm", "layer": name, "dtype": dtype, "m": m, "error": str(exc)[:200]})
                    continue
                wbytes = n * k * (2 if dtype == "bf16" else 1)
                rows.append(
                    {
                        "kind": "gemm",
                        "layer": name,
                        "dtype": dtype,
                        "m": m,
                        "n": n,
                        "k": k,
                        "ms": ms,
                        "tflops": 2 * m * n * k / ms / 1e9,
                        "weight_gb_s": wbytes / ms / 1e6,
                    }
                )
        del weights, weights8
    return rows


MOE_SHAPES = {  # (experts, active, hidden, expert ffn), config.json values
    "mixtral-8x7b": (8, 2, 4096, 14336),
    "qwen3-30b-a3b": (128, 8, 2048, 768),
}
MORE_MOE_SHAPES = {  # `--only moe`: the routed experts of two served MoE models, bf16 (they ship FP8 / MXFP4)
    "deepseek-r1": (256, 8, 7168, 2048),
    "gpt-oss-120b": (128, 4, 2880, 2880),
}


def routed(tokens: int, experts: int, active: int, hidden: int, device: torch.device) -> dict:
    """Uniform random top-k routing of `tokens` tokens: rows sorted by expert and the groups' end offsets."""
    choice = torch.rand(tokens, experts, device=device).topk(active, dim=1).indices.flatten()
    counts = torch.bincount(choice, minlength=experts)
    return {
        "x": torch.randn(tokens * active, hidden, device=device, dtype=torch.bfloat16),
        "offsets": counts.cumsum(0).to(torch.int32),
        "touched": int((counts > 0).sum()),
    }


def bench_moe(
    timer: Timer, device: torch.device, tokens_list: list[int], tiny: bool, shapes: dict = MOE_SHAPES
) -> list[dict]:
    """One MoE layer's routed-expert GEMMs (gate/up then down) with torch._grouped_mm over tokens sorted by
    expert, uniform random top-k routing: the bytes of the experts touched over time, against a dense GEMM."""
    rows = []
    for name, (experts, active, hidden, ffn) in shapes.items():
        if tiny:
            hidden, ffn = 64, 32
        up = torch.randn(experts, hidden, 2 * ffn, device=device, dtype=torch.bfloat16) * 0.02
        down = torch.randn(experts, ffn, hidden, device=device, dtype=torch.bfloat16) * 0.02
        for tokens in tokens_list:
            r = routed(tokens, experts, active, hidden, device)
            x, offsets = r["x"], r["offsets"]

            def grouped(x=x, offsets=offsets, up=up, down=down) -> torch.Tensor:
                gate, value = torch._grouped_mm(x, up, offs=offsets).chunk(2, dim=-1)
                return torch._grouped_mm(F.silu(gate) * value, down, offs=offsets)

            spans = [(int(a), int(b)) for a, b in zip([0, *offsets[:-1].tolist()], offsets.tolist(), strict=True)]

            def per_expert(x=x, spans=spans, up=up, down=down) -> list:
                """One cuBLAS GEMM pair per touched expert (the graph removes the launch gaps)."""
                outs = []
                for e, (a, b) in enumerate(spans):
                    if b > a:
                        gate, value = (x[a:b] @ up[e]).chunk(2, dim=-1)
                        outs.append((F.silu(gate) * value) @ down[e])
                return outs

            touched = r["touched"]
            for impl, layer in (("grouped_mm", grouped), ("cublas_per_expert", per_expert)):
                try:
                    ms = timer.median_ms(graphed(layer, device), reps=7, inner=5)
                except (RuntimeError, AttributeError) as exc:
                    rows.append({"kind": "moe", "impl": impl, "model": name, "tokens": tokens, "error": str(exc)[:200]})
                    continue
                touched_bytes = touched * 3 * hidden * ffn * 2
                rows.append(
                    {
                        "kind": "moe",
                        "impl": impl,
                        "model": name,
                        "tokens": tokens,
                        "experts_touched": touched,
                        "ms": ms,
                        "touched_gb_s": touched_bytes / ms / 1e6,
                        "tflops": 2 * tokens * active * 3 * hidden * ffn / ms / 1e9,
                    }
                )
        del up, down
    return rows


L2_FLUSH_BYTES = 256 * 2**20  # > 4x the 50 MB L2 of an H100/H200
SERVED_MOE_SHAPES = {  # `--only moe_served`: (experts on the GPU, active per token on it, hidden, ffn shard)
    "deepseek-r1/tp8": (256, 8, 7168, 256),  # each expert split over 8 GPUs (SGLang/vLLM default TP)
    "deepseek-r1/ep8": (32, 1, 7168, 2048),  # 32 whole experts per GPU; a token's 8 of 256 land ~1 per GPU
    "qwen3-30b-a3b/tp1": (128, 8, 2048, 768),
    "gpt-oss-120b/tp1": (128, 4, 2880, 2880),
    "mixtral-8x7b/tp2": (8, 2, 4096, 7168),
}


def quantise_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row (per-token) dynamic FP8 scales, as engines quantise activations before an FP8 expert GEMM."""
    scale = (x.abs().amax(dim=-1).float() / FP8_MAX).clamp(min=1e-12)
    return (x.float() / scale[:, None]).to(torch.float8_e4m3fn), scale


def expert_weights(experts: int, hidden: int, ffn: int, device: torch.device) -> dict:
    """bf16 expert weights (E, K, N) and their FP8 copies, column-major per expert as FP8 GEMMs want them,
    with one scale per output channel."""
    up = torch.randn(experts, 2 * ffn, hidden, device=device, dtype=torch.bfloat16) * 0.02
    down = torch.randn(experts, hidden, ffn, device=device, dtype=torch.bfloat16) * 0.02
    weights = {"up": up.transpose(1, 2), "down": down.transpose(1, 2)}
    for name, w in (("up", up), ("down", down)):
        scale = (w.abs().amax(dim=-1).float() / FP8_MAX).clamp(min=1e-12)  # (E, N)
        weights[f"{name}8"] = (w.float() / scale[..., None]).to(torch.float8_e4m3fn).transpose(1, 2)
        weights[f"{name}_scale"] = scale
    return weights


def served_layers(w: dict, r: dict) -> dict:
    """The routed experts' GEMM pair three ways: bf16 grouped, FP8 grouped (rowwise scales), FP8 per expert."""
    x, offsets = r["x"], r["offsets"]
    spans = list(zip([0, *offsets[:-1].tolist()], offsets.tolist(), strict=True))

    def bf16_grouped() -> torch.Tensor:
        gate, value = torch._grouped_mm(x, w["up"], offs=offsets).chunk(2, dim=-1)
        return torch._grouped_mm(F.silu(gate) * value, w["down"], offs=offsets)

    def fp8_grouped() -> torch.Tensor:
        x8, xs = quantise_rows(x)
        h = torch._scaled_grouped_mm(x8, w["up8"], xs, w["up_scale"], offs=offsets, out_dtype=torch.bfloat16)
        gate, value = h.chunk(2, dim=-1)
        h8, hs = quantise_rows(F.silu(gate) * value)
        return torch._scaled_grouped_mm(h8, w["down8"], hs, w["down_scale"], offs=offsets, out_dtype=torch.bfloat16)

    def fp8_per_expert() -> list:
        outs = []
        for e, (a, b) in enumerate(spans):
            if b > a:
                x8, xs = quantise_rows(x[a:b])
                h = torch._scaled_mm(
                    x8, w["up8"][e], scale_a=xs[:, None], scale_b=w["up_scale"][e][None, :], out_dtype=torch.bfloat16
                )
                gate, value = h.chunk(2, dim=-1)
                h8, hs = quantise_rows(F.silu(gate) * value)
                outs.append(
                    torch._scaled_mm(
                        h8,
                        w["down8"][e],
                        scale_a=hs[:, None],
                        scale_b=w["down_scale"][e][None, :],
                        out_dtype=torch.bfloat16,
                    )
                )
        return outs

    return {"bf16_grouped_mm": bf16_grouped, "fp8_grouped_mm": fp8_grouped, "fp8_per_expert": fp8_per_expert}


def moe_layer(w: dict, router: torch.Tensor, x: torch.Tensor, active: int) -> torch.Tensor:
    """A whole routed-expert layer as an eager engine runs it in prefill: router, top-k, sort by expert,
    gather, bf16 grouped GEMMs, weighted scatter back (no host sync, so it can also be graph-captured)."""
    experts = router.shape[1]
    weights, choice = torch.softmax(x @ router, dim=-1, dtype=torch.float32).topk(active, dim=-1)
    order = choice.flatten().argsort(stable=True)
    token = order // active
    counts = torch.zeros(experts, device=x.device, dtype=torch.int32).scatter_add_(
        0, choice.flatten().int(), torch.ones_like(choice.flatten(), dtype=torch.int32)
    )
    offsets = counts.cumsum(0, dtype=torch.int32)
    xs = x[token]
    gate, value = torch._grouped_mm(xs, w["up"], offs=offsets).chunk(2, dim=-1)
    y = torch._grouped_mm(F.silu(gate) * value, w["down"], offs=offsets)
    y = y * weights.flatten()[order, None].to(y.dtype)
    return torch.zeros_like(x).index_add_(0, token, y)


def bench_moe_served(
    timer: Timer, device: torch.device, tokens_list: list[int], layer_tokens: list[int], tiny: bool
) -> list:
    """Routed experts as served: TP- or EP-sharded expert shapes, bf16 and FP8 (what R1 and gpt-oss ship at
    or near), and one whole MoE layer eager against the same layer in a CUDA graph (the host's share)."""
    rows = []
    for name, (experts, active, hidden, ffn) in SERVED_MOE_SHAPES.items():
        if tiny:
            hidden, ffn = 64, 32
        # Consecutive layers' own weights, so that a call touches at least L2_FLUSH_BYTES of FP8 experts even
        # at one token (a decode step walks through the layers; one layer's few experts would stay in L2).
        copies = 1 if tiny else -(-L2_FLUSH_BYTES // (min(active, experts) * 3 * hidden * ffn))
        ws = [expert_weights(experts, hidden, ffn, device) for _ in range(copies)]
        w = ws[0]
        for tokens in tokens_list:
            r = routed(tokens, experts, active, hidden, device)
            impls = [served_layers(wi, r) for wi in ws]
            for impl in impls[0]:
                fp8 = impl.startswith("fp8")
                fns = tuple(i[impl] for i in impls)

                def layer(fns=fns) -> list:
                    return [fn() for fn in fns]

                try:
                    ms = timer.median_ms(graphed(layer, device), reps=7, inner=3) / copies
                except (RuntimeError, AttributeError, NotImplementedError, TypeError) as exc:
                    rows.append(
                        {"kind": "moe_served", "impl": impl, "model": name, "tokens": tokens, "error": str(exc)[:200]}
                    )
                    continue
                touched_bytes = r["touched"] * 3 * hidden * ffn * (1 if fp8 else 2)
                rows.append(
                    {
                        "kind": "moe_served",
                        "impl": impl,
                        "model": name,
                        "tokens": tokens,
                        "experts_touched": r["touched"],
                        "layers_rotated": copies,
                        "ms": ms,
                        "touched_gb_s": touched_bytes / ms / 1e6,
                        "tflops": 2 * tokens * active * 3 * hidden * ffn / ms / 1e9,
                    }
                )
        router = torch.randn(hidden, experts, device=device, dtype=torch.bfloat16) * 0.02
        for tokens in layer_tokens:
            x = torch.randn(tokens, hidden, device=device, dtype=torch.bfloat16)

            def layer(x=x, w=w, router=router, active=active) -> torch.Tensor:
                return moe_layer(w, router, x, active)

            try:
                eager_ms = timer.median_ms(layer, reps=7, inner=3)
                graph_ms = timer.median_ms(graphed(layer, device), reps=7, inner=3)
            except (RuntimeError, AttributeError, NotImplementedError) as exc:
                rows.append({"kind": "moe_layer", "model": name, "tokens": tokens, "error": str(exc)[:200]})
                continue
            rows.append(
                {
                    "kind": "moe_layer",
                    "model": name,
                    "tokens": tokens,
                    "eager_ms": eager_ms,
                    "graph_ms": graph_ms,
                    "host_ms": eager_ms - graph_ms,
                }
            )
        del w, ws
    return rows


def kv_caches(dims: dict[str, int], device: torch.device, pool_tokens: int) -> tuple[list, list]:
    """One flat K and one flat V pool per layer, sliced into (B, kv_heads, C, head_dim) views per config."""
    per_token = dims["kv_heads"] * dims["head_dim"]
    k = [torch.randn(pool_tokens * per_token, device=device, dtype=torch.bfloat16) for _ in range(dims["layers"])]
    v = [torch.randn(pool_tokens * per_token, device=device, dtype=torch.bfloat16) for _ in range(dims["layers"])]
    return k, v


def views(pools: list, dims: dict[str, int], batch: int, context: int) -> list:
    shape = (batch, dims["kv_heads"], context, dims["head_dim"])
    return [p[: batch * context * dims["kv_heads"] * dims["head_dim"]].view(shape) for p in pools]


def bench_attention(
    timer: Timer, device: torch.device, dims: dict, pools: tuple, configs: list, backend: str
) -> list[dict]:
    """Decode attention of one layer, eight layers' caches in turn inside one CUDA graph."""
    rows = []
    group = dims["heads"] // dims["kv_heads"]
    layers = min(8, len(pools[0]))
    for batch, context in configs:
        ks, vs = views(pools[0][:layers], dims, batch, context), views(pools[1][:layers], dims, batch, context)
        q = torch.randn(batch, dims["kv_heads"], group, dims["head_dim"], device=device, dtype=torch.bfloat16)
        fns = [lambda k=k, v=v, q=q: attention(q, k, v, causal=False) for k, v in zip(ks, vs, strict=True)]
        ms = timer.median_ms(graphed_calls(fns, device), reps=7, inner=4) / layers
        kv_bytes = 2 * ks[0].numel() * 2
        rows.append(
            {
                "kind": "attention_decode",
                "backend": backend,
                "batch": batch,
                "context": context,
                "ms": ms,
                "kv_gb_s": kv_bytes / ms / 1e6,
            }
        )
    return rows


def graphed(fn, device: torch.device):
    """Capture fn in a CUDA graph (after warm-up on a side stream); on a CPU, run it as it is."""
    if device.type != "cuda":
        return fn
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def bench_decode(timer: Timer, device: torch.device, model: Model, pools: tuple, configs: list, eager: set) -> list:
    rows = []
    dims = model.d
    for batch, context in configs:
        k, v = views(pools[0], dims, batch, context), views(pools[1], dims, batch, context)
        tokens = torch.randint(0, dims["vocab"], (batch,), device=device)

        def step(tokens=tokens, k=k, v=v) -> torch.Tensor:
            return model.decode(tokens, k, v)

        try:
            expected = step().clone()
            replay = graphed(step, device)
            replay()
            timer.sync()
            same = bool(torch.equal(step(), expected))  # the graph computes what the eager step does
            ms = timer.median_ms(replay, reps=7, inner=5)
            eager_ms = timer.median_ms(step, reps=5, inner=3) if (batch, context) in eager else None
        except RuntimeError as exc:
            rows.append({"kind": "decode", "batch": batch, "context": context, "error": str(exc)[:200]})
            continue
        shape = {"batch": batch, "context": context}
        rows.append(model_row("decode", model, shape, ms, batch, eager_ms=eager_ms, eager_matches=same))
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return rows


def model_row(kind: str, model: Model, shape: dict, ms: float, tokens: int, **extra: object) -> dict:
    """One timed pass of the whole model: its shape, time and tokens per second."""
    weights = "fp8" if model.fp8 else "bf16"
    return {"kind": kind, "weights": weights, **shape, "ms": ms, "tokens_s": tokens / ms * 1e3, **extra}


def bench_prefill(
    timer: Timer, device: torch.device, model: Model, lengths: list[int], backend: str, reps: int = 5, warmup: int = 2
) -> list[dict]:
    rows = []
    for length in lengths:
        tokens = torch.randint(0, model.d["vocab"], (length,), device=device)
        try:
            ms = timer.median_ms(lambda tokens=tokens: model.prefill(tokens), reps=reps, warmup=warmup)
        except RuntimeError as exc:
            rows.append({"kind": "prefill", "input_len": length, "error": str(exc)[:200]})
            continue
        rows.append(model_row("prefill", model, {"input_len": length}, ms, length, backend=backend))
    return rows


def environment(device: torch.device) -> dict:
    env = {"torch": torch.__version__, "python": platform.python_version(), "device": str(device)}
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
        env["sm_count"] = torch.cuda.get_device_properties(device).multi_processor_count
        query = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu"
        try:
            env["nvidia_smi"] = subprocess.run(
                ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], capture_output=True, text=True
            ).stdout.strip()
        except OSError as exc:
            env["nvidia_smi"] = str(exc)
    return env


def script_args(description: str, parser: argparse.ArgumentParser | None = None):
    """The options every device script takes (--out, --tiny) beside `parser`'s own, parsed; and the device they
    select: the GPU, or the CPU for a toy run that checks the script."""
    parser = parser or argparse.ArgumentParser()
    parser.description = description
    parser.add_argument("--out", required=True)
    parser.add_argument("--tiny", action="store_true", help="toy model on the CPU: checks the script only")
    args = parser.parse_args()
    return args, torch.device("cpu" if args.tiny else "cuda")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--only",
        choices=["moe", "moe_served", "long_prefill"],
        help="moe: only the routed experts of DeepSeek-R1 and gpt-oss-120b; moe_served: experts as served (TP/EP "
        "shards, FP8) and whole MoE layers eager against graphed; long_prefill: bf16 prefill of 32K-128K-token "
        "prompts through cuDNN's attention",
    )
    args, device = script_args(__doc__.splitlines()[0], parser)
    dims = TINY if args.tiny else LLAMA_8B
    timer = Timer(device)
    result: dict = {"model": "llama-3.1-8b" if not args.tiny else "tiny", "dims": dims, "env": environment(device)}
    t0 = time.time()

    def stage(name: str) -> None:
        print(f"[{time.time() - t0:6.1f} s] {name}", flush=True)

    result["env"]["sdpa_backend"] = choose_backend(device, dims) or "none"
    stage(f"attention backend {result['env']['sdpa_backend']}")
    if args.only == "moe":
        tokens = [1, 8, 32, 128, 512, 2048] if not args.tiny else [1, 8]
        return write(result, bench_moe(timer, device, tokens, args.tiny, MORE_MOE_SHAPES), device, args.out)
    if args.only == "moe_served":
        tokens = [1, 4, 8, 16, 32, 64, 128, 256, 512, 2048] if not args.tiny else [1, 8]
        layer_tokens = [128, 1024, 4096] if not args.tiny else [16]
        rows = bench_moe_served(timer, device, tokens, layer_tokens, args.tiny)
        return write(result, rows, device, args.out)
    if args.only == "long_prefill":  # attention-bound prompts: 3 timed passes after 1 warm-up (seconds each)
        backend = (choose_backend(device, dims, OTHER_BACKENDS) if not args.tiny else None) or result["env"][
            "sdpa_backend"
        ]
        result["env"]["sdpa_backend"] = backend
        lengths = [32768, 65536, 131072] if not args.tiny else [128, 256]
        rows = bench_prefill(timer, device, Model(dims, device, fp8=False), lengths, backend, reps=3, warmup=1)
        return write(result, rows, device, args.out)
    rows: list[dict] = [bench_copy(timer, device, 0.01 if args.tiny else 4.0)]
    stage("copy")
    try:
        w8 = quantise_fp8(torch.randn(32, 32, device=device, dtype=torch.bfloat16))
        fp8_linear(torch.randn(1, 32, device=device, dtype=torch.bfloat16), *w8)
    except RuntimeError:
        PAD_FP8_ROWS[0] = True
    result["env"]["fp8_rows_padded_to_16"] = PAD_FP8_ROWS[0]
    result["checks"] = {"fp8_gemm_relative_error": fp8_error(device, dims)}
    gemm_m = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] if not args.tiny else [1, 16, 64]
    rows += bench_gemm(timer, device, dims, gemm_m)
    stage("gemm")
    pool_tokens = 4096 if args.tiny else 256 * 1024
    pools = kv_caches(dims, device, pool_tokens)
    decode_configs = (
        [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024), (256, 1024), (1, 8192), (16, 4096), (64, 4096)]
        if not args.tiny
        else [(1, 64), (8, 64), (16, 256)]
    )
    default = result["env"]["sdpa_backend"]
    rows += bench_attention(timer, device, dims, pools, decode_configs, default)
    other = choose_backend(device, dims, OTHER_BACKENDS) if not args.tiny else None
    result["env"]["other_sdpa_backend"] = other
    if other and other.split()[0] != default.split()[0]:
        rows += bench_attention(timer, device, dims, pools, decode_configs, other)
    choose_backend(device, dims)  # back to the default for the model passes
    stage(f"attention ({default}; {other})")
    rows += bench_moe(timer, device, [1, 8, 32, 128, 512, 2048] if not args.tiny else [1, 8], args.tiny)
    stage("moe")
    bf16 = Model(dims, device, fp8=False)
    eager = {decode_configs[0], decode_configs[min(3, len(decode_configs) - 1)]}
    prefill_lengths = [128, 512, 1024, 2048, 4096, 8192, 16384] if not args.tiny else [16, 64]
    for model in (bf16, Model(dims, device, fp8=True, source=bf16)):
        rows += bench_decode(timer, device, model, pools, decode_configs, eager)
        stage(f"decode {'fp8' if model.fp8 else 'bf16'}")
        rows += bench_prefill(timer, device, model, prefill_lengths, default)
        stage(f"prefill {'fp8' if model.fp8 else 'bf16'}")
    if other and other.split()[0] != default.split()[0]:
        choose_backend(device, dims, OTHER_BACKENDS)
        rows += bench_prefill(timer, device, bf16, prefill_lengths, other)
        stage(f"prefill bf16 ({other})")
    return write(result, rows, device, args.out)


def write(result: dict, rows: list[dict], device: torch.device, out: str) -> int:
    """The run's rows and the GPU's state after it, as JSON to `out` and one line per row to stdout."""
    result["rows"] = rows
    result["env"]["after"] = environment(device).get("nvidia_smi")
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
    for row in rows:
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
