"""A training layout as fields, for /docs: the estimate API's `layout`, a training option's `layout_detail` and a
train-then-serve combination's `training_layout_detail` (app.scoring.training.layouts.memory.Layout, written by
app.service.rank.plain, which leaves out its OMITTED_WHEN_NONE fields while None)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LayoutOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    zero_stage: int = Field(description="0 = DDP, 1 = optimizer sharded, 2 = + gradients, 3 = FSDP full shard")
    tensor_parallel: int = Field(
        description="tensor-parallel degree; with expert_parallel, attention's and the dense layers' (1, or 2-8 beside "
        "EP): the routed experts run whole (expert-TP 1)"
    )
    pipeline_parallel: int = Field(description="pipeline-parallel degree (stages)")
    recompute: str = Field(
        description="none | selective | partial | full; partial (megatron, nemo, torchtitan) recomputes "
        "recompute_layers of each pipeline stage's layers, the others keep every activation"
    )
    micro_batch_seqs: int = Field(description="sequences per micro-batch on each data-parallel rank")
    pipeline_interleave: int | None = Field(description="virtual stages per GPU; null = the stack's default")
    sequence_parallel: int = Field(
        description="GPUs that split each sequence: ring context parallelism (CP) on megatron, nemo, torchtitan and "
        "auto, Ulysses sequence parallelism (SP, DeepSpeed-Ulysses) on hf and for QLoRA on auto; 1 = no split. Not "
        "Megatron sequence parallelism (within TP), which has no field: it turns tensor_parallel's all-reduces into "
        "an all-gather and a reduce-scatter of the same bytes"
    )
    recompute_layers: int | None = Field(
        default=None,
        description="under partial recompute, the layers each pipeline stage recomputes (Megatron-LM "
        "--recompute-num-layers, NeMo activations_checkpoint_num_layers); absent otherwise",
    )
    expert_parallel: int | None = Field(
        default=None,
        description="a mixture of experts' expert-parallel degree: GPUs its routed experts are split over, whole "
        "(Megatron-Core expert_model_parallel_size, torchtitan expert_parallel_degree), trading tokens by all-to-all; "
        "folded over tensor_parallel × the data-parallel ranks, so a layout may pair TP 2-8 with it (Megatron-Core MoE "
        "Parallel Folding: 'TP4 PP2 EP64'); absent where the experts are not split. An answer, never an input: a "
        "training question takes no expert_parallel (inference's is a placement, tp or ep)",
    )
    shard_group: int | None = Field(
        default=None,
        description="hybrid sharding (HSDP: PyTorch FSDP HYBRID_SHARD, torchtitan data_parallel_shard_degree): the "
        "data-parallel ranks of one node (or of 2, 4 ... nodes where one node's cannot hold the model state) that "
        "shard the model state under zero_stage 3, replicated across the data-parallel ranks / shard_group groups; "
        "the parameter gathers and gradient reduce-scatter stay inside a group (over NVLink in one node), and an "
        "all-reduce of each GPU's gradient shard crosses the fabric between the groups ('HSDP 8×4': groups of 8, 4 "
        "replicas; 'HSDP 16×2': groups of 16 over 2 nodes, 2 replicas). Absent where ZeRO shards over every "
        "data-parallel rank. An answer, never an input",
    )
