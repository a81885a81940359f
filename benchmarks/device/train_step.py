"""Time whole training steps of Llama-shaped models with random weights on one GPU (no download).

Run on a lent device machine (PyTorch there; nothing here imports it):

    python3 benchmarks/device/train_step.py --out $OUT/train_step.json

and on a CPU, with a toy model, to check the script itself: `--tiny`.

A step is what a plain PyTorch fine-tuning loop runs: forward, loss, backward and a fused AdamW update, with
mixed precision as PyTorch's AMP does it (fp32 weights, gradients and Adam moments, 16 bytes a parameter; matmuls
in bf16 under autocast), without activation checkpointing except in one run, eagerly (no torch.compile, no CUDA
graph). LoRA keeps the base weights frozen in bf16 and trains rank-r adapters on every linear layer (PEFT's
"all-linear") in fp32. Attention is causal SDPA through cuDNN 9 where its backward runs, else PyTorch's default.

Each row records the step time (median of the timed steps, CUDA events), the peak memory allocated, and for one
more step the memory allocated at the end of the forward pass (loss included), the backward pass and the optimizer
step, with each phase's peak.
`app.calibration.device.device_check` sets each beside the training estimator's step time and memory for the same run
(framework "pytorch", one GPU, no recompute).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from gpu_kernels import (
    DEFAULT_BACKENDS,
    OTHER_BACKENDS,
    Timer,
    attention,
    choose_backend,
    environment,
    script_args,
    write,
)
from torch.utils.checkpoint import checkpoint

# config.json shapes of the catalog's models (tied: the LM head reuses the embedding table)
SHAPES = {
    "llama-3.2-1b": {"layers": 16, "hidden": 2048, "heads": 32, "kv_heads": 8, "head_dim": 64, "ffn": 8192},
    "llama-3.2-3b": {"layers": 28, "hidden": 3072, "heads": 24, "kv_heads": 8, "head_dim": 128, "ffn": 8192},
    "llama-3.1-8b": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336},
}
TIED = {"llama-3.2-1b", "llama-3.2-3b"}
VOCAB = 128256
# (model, method, sequence length, sequences per step, recompute, loss chunks): 8,192 tokens a step; one run at
# 16,384 tokens a sequence for attention's share, once more with the loss in 8 chunks (the logits' transient memory);
# one with every block checkpointed (recomputed in the backward pass)
RUNS = [
    ("llama-3.2-1b", "full_ft", 4096, 2, "none", 1),
    ("llama-3.2-1b", "full_ft", 16384, 1, "none", 1),
    ("llama-3.2-1b", "full_ft", 16384, 1, "none", 8),
    ("llama-3.2-3b", "full_ft", 4096, 2, "none", 1),
    ("llama-3.2-3b", "full_ft", 4096, 2, "full", 1),
    ("llama-3.2-3b", "lora", 4096, 2, "none", 1),
    ("llama-3.1-8b", "lora", 4096, 2, "none", 1),
]
TINY_SHAPE = {"layers": 2, "hidden": 128, "heads": 4, "kv_heads": 2, "head_dim": 32, "ffn": 256}
TINY_RUNS = [
    ("tiny", "full_ft", 64, 2, "none", 1),
    ("tiny", "full_ft", 64, 2, "none", 4),
    ("tiny", "full_ft", 64, 2, "full", 1),
    ("tiny", "lora", 64, 2, "none", 1),
]
LORA_RANK = 16
FROZEN = torch.bfloat16  # LoRA's base weights (norms and embeddings too): frozen, held in bf16


class Linear(torch.nn.Module):
    """A bias-free linear layer; with `rank`, a frozen bf16 base plus a trained low-rank update B(A x)."""

    def __init__(self, inputs: int, outputs: int, rank: int) -> None:
        super().__init__()
        base = torch.randn(outputs, inputs) * 0.02
        if rank:
            self.weight = torch.nn.Parameter(base.to(FROZEN), requires_grad=False)
            self.lora_a = torch.nn.Parameter(torch.randn(rank, inputs) * 0.01)
            self.lora_b = torch.nn.Parameter(torch.randn(outputs, rank) * 0.01)
        else:
            self.weight = torch.nn.Parameter(base)
        self.rank = rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.linear(x, self.weight)
        if self.rank:
            out = out + F.linear(F.linear(x, self.lora_a), self.lora_b)
        return out


class Block(torch.nn.Module):
    def __init__(self, s: dict, rank: int) -> None:
        super().__init__()
        h, hd = s["hidden"], s["head_dim"]
        self.s = s
        self.qkv = Linear(h, (s["heads"] + 2 * s["kv_heads"]) * hd, rank)
        self.o = Linear(s["heads"] * hd, h, rank)
        self.up = Linear(h, 2 * s["ffn"], rank)  # gate and up projections, one matmul
        self.down = Linear(s["ffn"], h, rank)
        self.norms = torch.nn.Parameter(torch.ones(2, h, dtype=FROZEN if rank else None), requires_grad=not rank)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s, (batch, length, h) = self.s, x.shape
        hd = s["head_dim"]
        q, k, v = self.qkv(F.rms_norm(x, (h,), self.norms[0])).split(
            [s["heads"] * hd, s["kv_heads"] * hd, s["kv_heads"] * hd], dim=-1
        )
        q, k, v = (t.view(batch, length, -1, hd).transpose(1, 2) for t in (q, k, v))
        x = x + self.o(attention(q, k, v, causal=True).transpose(1, 2).reshape(batch, length, -1))
        gate, up = self.up(F.rms_norm(x, (h,), self.norms[1])).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Decoder(torch.nn.Module):
    def __init__(self, s: dict, vocab: int, tied: bool, rank: int, recompute: bool = False, loss_chunks: int = 1):
        super().__init__()
        self.recompute, self.loss_chunks = recompute, loss_chunks
        self.embed = torch.nn.Embedding(vocab, s["hidden"])
        if rank:  # frozen like every base weight, and held in bf16 as they are
            self.embed.weight = torch.nn.Parameter(self.embed.weight.to(FROZEN), requires_grad=False)
        self.blocks = torch.nn.ModuleList(Block(s, rank) for _ in range(s["layers"]))
        self.norm = torch.nn.Parameter(torch.ones(s["hidden"], dtype=FROZEN if rank else None), requires_grad=not rank)
        self.head = None if tied else Linear(s["hidden"], vocab, 0)
        if self.head is not None and rank:
            self.head.weight = torch.nn.Parameter(self.head.weight.to(FROZEN), requires_grad=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy over the batch (logits upcast to fp32 for the loss, as HF models do)."""
        x = self.embed(tokens)
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.recompute else block(x)
        x = F.rms_norm(x, (x.shape[-1],), self.norm)
        logits = (F.linear(x, self.embed.weight) if self.head is None else self.head(x))[:, :-1].flatten(0, 1)
        targets = tokens[:, 1:].flatten()
        # in chunks (torchtune's chunked loss): each chunk's fp32 upcast and its gradient live one chunk at a time
        pieces = zip(logits.chunk(self.loss_chunks), targets.chunk(self.loss_chunks), strict=True)
        return sum(F.cross_entropy(part.float(), target, reduction="sum") for part, target in pieces) / len(targets)


def train_step(model: Decoder, tokens: torch.Tensor, optimizer: torch.optim.Optimizer, memory: dict | None) -> None:
    """One optimizer step: forward and loss under autocast, backward, fused AdamW, gradients dropped (set to None).

    With `memory` (CUDA only), the allocated GB at the end of each phase and its peak within the phase."""
    device = tokens.device

    def mark(phase: str) -> None:
        if memory is not None:
            memory[f"{phase}_peak_gb"] = torch.cuda.max_memory_allocated(device) / 1e9
            memory[f"{phase}_end_gb"] = torch.cuda.memory_allocated(device) / 1e9
            torch.cuda.reset_peak_memory_stats(device)

    if memory is not None:
        torch.cuda.reset_peak_memory_stats(device)
        memory["start_gb"] = torch.cuda.memory_allocated(device) / 1e9
    with torch.autocast(device.type, dtype=torch.bfloat16):
        loss = model(tokens)
    mark("forward")
    loss.backward()
    mark("backward")
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    mark("optimizer")


def time_steps(
    model: Decoder, tokens: torch.Tensor, device: torch.device, steps: int, warmup: int
) -> tuple[list[float], dict]:
    """Milliseconds of each timed optimizer step after warm-up steps, and the memory of one more step by phase."""
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=1e-5, fused=device.type == "cuda")
    cuda = device.type == "cuda"
    times = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        if cuda:
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
        train_step(model, tokens, optimizer, None)
        if cuda:
            end.record()
            end.synchronize()
            elapsed = begin.elapsed_time(end)
        else:
            elapsed = (time.perf_counter() - start) * 1e3
        if i >= warmup:
            times.append(elapsed)
    memory: dict = {}
    if cuda:
        memory["timed_steps_peak_gb"] = torch.cuda.max_memory_allocated(device) / 1e9
        # what the job takes of the card: the allocator's reserved peak (allocated + its cache and fragmentation)
        # and everything else the process holds (the CUDA context, cuBLAS/cuDNN workspaces), read as the card's used
        # memory minus what the allocator holds now
        memory["timed_steps_reserved_gb"] = torch.cuda.max_memory_reserved(device) / 1e9
        free, total = torch.cuda.mem_get_info(device)
        memory["outside_allocator_gb"] = (total - free - torch.cuda.memory_reserved(device)) / 1e9
        train_step(model, tokens, optimizer, memory)
    return times, memory


def bench_training(device: torch.device, runs: list, shapes: dict, vocab: int, steps: int, warmup: int) -> list[dict]:
    rows = []
    for name, method, seq_len, seqs, recompute, chunks in runs:
        rank = LORA_RANK if method == "lora" else 0
        shape = {"model": name, "method": method, "seq_len": seq_len, "batch_seqs": seqs, "recompute": recompute}
        shape["loss_chunks"] = chunks
        model = None
        try:
            torch.manual_seed(0)
            with torch.device(device):  # weights drawn on the GPU itself (an 8B model's on a CPU take minutes)
                model = Decoder(shapes[name], vocab, name in TIED, rank, recompute == "full", chunks)
            tokens = torch.randint(0, vocab, (seqs, seq_len), device=device)
            if device.type == "cuda":
                torch.cuda.reset_peak_memory_stats(device)
            times, memory = time_steps(model, tokens, device, steps, warmup)
        except RuntimeError as exc:  # out of memory included: the row says so and the next run goes on
            rows.append({"kind": "train_step", **shape, "error": str(exc)[:200]})
            continue
        finally:
            del model
            if device.type == "cuda":
                torch.cuda.empty_cache()
        ms = statistics.median(times)
        peak_gb = max((v for k, v in memory.items() if k.endswith("_peak_gb")), default=None)  # allocated
        rows.append(
            {
                "kind": "train_step",
                **shape,
                "lora_rank": rank or None,
                "ms": ms,
                "ms_spread": [min(times), max(times)],
                "tokens_s": seqs * seq_len / ms * 1e3,
                "peak_memory_gb": peak_gb,
                "memory_by_phase_gb": memory or None,
                "logit_elements": seqs * seq_len * vocab,
            }
        )
        print(f"{name} {method} {seqs}x{seq_len} {recompute} {chunks}: {ms:.1f} ms, peak {peak_gb} GB", flush=True)
    return rows


# `--only attention`: causal attention forward + backward of one layer, per backend: (heads, kv heads, head dim) of
# the models above, at the runs' sequence lengths
ATTENTION_SHAPES = {"llama-3.2-1b": (32, 8, 64), "llama-3.2-3b": (24, 8, 128), "llama-3.1-8b": (32, 8, 128)}
ATTENTION_SEQ = [4096, 16384]


def attention_pass(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, grad: torch.Tensor) -> tuple:
    """Forward and backward of causal attention, the gradients returned rather than accumulated."""
    return torch.autograd.grad(attention(q, k, v, causal=True), (q, k, v), grad)


def bench_attention(device: torch.device, shapes: dict, lengths: list[int], backends: dict[str, tuple]) -> list[dict]:
    """Milliseconds of one layer's causal attention forward and backward (median of 5 after 2 warm-ups), with the
    executed FLOPs of a causal flash kernel: forward 2 s^2 heads dim, backward 2.5x that."""
    timer = Timer(device)
    rows = []
    for backend, names in backends.items():
        for name, (heads, kv_heads, dim) in shapes.items():
            dims = {"heads": heads, "kv_heads": kv_heads, "head_dim": dim}
            chosen = choose_backend(device, dims, names)
            for length in lengths:
                q = torch.randn(1, heads, length, dim, device=device, dtype=torch.bfloat16, requires_grad=True)
                k = torch.randn(1, kv_heads, length, dim, device=device, dtype=torch.bfloat16, requires_grad=True)
                v = torch.randn(1, kv_heads, length, dim, device=device, dtype=torch.bfloat16, requires_grad=True)
                grad = torch.randn(1, heads, length, dim, device=device, dtype=torch.bfloat16)
                shape = {"model": name, "heads": heads, "kv_heads": kv_heads, "head_dim": dim, "seq_len": length}
                try:
                    if chosen is None:
                        raise RuntimeError(f"no {backend} backend for this shape")
                    ms = timer.median_ms(lambda q=q, k=k, v=v, g=grad: attention_pass(q, k, v, g), reps=5, warmup=2)
                except RuntimeError as exc:
                    rows.append({"kind": "train_attention", "backend": backend, **shape, "error": str(exc)[:200]})
                    continue
                flops = 3.5 * 2 * length * length * heads * dim
                row = {"kind": "train_attention", "backend": chosen, **shape, "ms": ms, "tflops": flops / ms / 1e9}
                rows.append(row)
    return rows


def training_backend(device: torch.device, dims: dict) -> str | None:
    """cuDNN where its causal GQA attention also runs backward, else the default chain (FlashAttention first)."""
    for names in (OTHER_BACKENDS, DEFAULT_BACKENDS):
        chosen = choose_backend(device, dims, names) if device.type == "cuda" or names is DEFAULT_BACKENDS else None
        if chosen is None:
            continue
        q = torch.randn(1, dims["heads"], 64, dims["head_dim"], device=device, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(1, dims["kv_heads"], 64, dims["head_dim"], device=device, dtype=torch.bfloat16)
        try:
            attention(q, k, k, causal=True).sum().backward()
            return chosen
        except RuntimeError:
            continue
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["attention"], help="attention: one layer's causal attention, per backend")
    args, device = script_args(__doc__.splitlines()[0], parser)
    shapes = {"tiny": TINY_SHAPE} if args.tiny else SHAPES
    runs, vocab = (TINY_RUNS, 1000) if args.tiny else (RUNS, VOCAB)
    result: dict = {"env": environment(device)}
    t0 = time.time()
    if args.only == "attention":
        backends = {"cudnn": OTHER_BACKENDS, "default": DEFAULT_BACKENDS} if not args.tiny else {"math": ("MATH",)}
        result["env"]["sdpa_backend"] = "per row: " + ", ".join(backends)
        attention_shapes = {"tiny": (4, 2, 32)} if args.tiny else ATTENTION_SHAPES
        rows = bench_attention(device, attention_shapes, [64] if args.tiny else ATTENTION_SEQ, backends)
        print(f"[{time.time() - t0:6.1f} s] attention", flush=True)
        return write(result, rows, device, args.out)
    result["env"]["sdpa_backend"] = training_backend(device, next(iter(shapes.values()))) or "none"
    steps, warmup = (5, 3) if not args.tiny else (2, 1)
    rows = bench_training(device, runs, shapes, vocab, steps, warmup)
    print(f"[{time.time() - t0:6.1f} s] training steps ({result['env']['sdpa_backend']})", flush=True)
    return write(result, rows, device, args.out)


if __name__ == "__main__":
    sys.exit(main())
