"""The workload's model, and the refusals before a ranking: ids the catalog lacks (UnknownId), a request beyond the
model's context, an engine asked of GPUs it does not run on, expert parallelism asked of a dense model. A custom
architecture or a pasted config.json becomes a ModelSpec here."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from app.scoring.hardware.dtypes import INT8_W8A8
from app.scoring.hardware.engine_support import filter_reason
from app.scoring.hf_config import quantization as hf_quantization
from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.input_checks.messages import FieldError
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from app.scoring.workload.engine_rules import NO_W8A8_ENGINES, w8a8_refusal
from app.service.catalog_ids import unknown_id_errors, unknown_one_message
from app.service.query.custom_model import unreadable_config

Workload = InferenceWorkload | TrainingWorkload
LENGTHS = ("input_len", "output_len")  # the request lengths a context must hold, in the order a form shows them


class UnknownId(FieldError):
    """The workload names what the catalog lacks: an unknown model id or a config.json that cannot be read, or
    GPU, provider or vendor ids its filters name that no catalog entry has (`errors`: every such field)."""


class BeyondContext(UnknownId):
    """An inference workload whose prompt and output do not fit the model's context window."""


class EngineLacksHardware(UnknownId):
    """An engine asked of GPUs it does not run on: every GPU the workload's filters leave (engine_support)."""


class NotForThisModel(UnknownId):
    """A setting the workload's model has nothing to apply to (expert parallelism on a dense model)."""


class NotForThisEngine(UnknownId):
    """A precision the workload's engine does not run (INT8 W8A8 on llama.cpp or HF Transformers)."""


def model_spec_for(workload: Workload, snapshot: CatalogSnapshot) -> ModelSpec:
    """The workload's model, once every catalog id the workload names is known and an inference workload passes the
    model's and GPUs' checks (model_checks): raises UnknownId, or the first failed check's kind, naming every field
    found wrong at once (an unknown GPU beside expert parallelism on a dense model: both)."""
    unknown = unknown_id_errors(workload, snapshot)
    try:
        spec = model_of(workload, snapshot)
    except UnknownId as exc:
        raise UnknownId(exc.field, str(exc), unknown) from None
    failed: list[UnknownId] = [UnknownId(field, message) for field, message in unknown.items()]
    if isinstance(workload, InferenceWorkload):
        inputs = {name: getattr(workload, name) for name in CHECKED_FIELDS}
        failed += model_checks(inputs, spec, snapshot, workload.model_fields_set, unknown)
    if failed:
        errors: dict[str, str] = {}
        for refusal in failed:
            for field, message in refusal.errors.items():
                errors.setdefault(field, message)
        raise type(failed[0])(failed[0].field, str(failed[0]), errors)
    return spec


@dataclass(frozen=True)
class ModelCheck:
    """A refusal that needs the model (`needs_model`) or the catalog's GPUs, and the inference fields it reads:
    where one of them is itself wrong, the check is skipped and says nothing."""

    inputs: tuple[str, ...]
    needs_model: bool
    run: Callable[[Mapping[str, Any], ModelSpec, CatalogSnapshot, Collection[str]], None]


def model_checks(
    inputs: Mapping[str, Any],
    spec: ModelSpec | None,
    snapshot: CatalogSnapshot,
    given: Collection[str],
    wrong: Collection[str],
) -> list[UnknownId]:
    """Each check's refusal, for the checks whose inputs (valid values by field; a field absent takes the workload's
    default) are not `wrong` and, where a check reads the model, whose model (`spec`, None: wrong or not known) is.
    `given`: the fields the user gave (the context check names the length given)."""
    failed: list[UnknownId] = []
    for check in MODEL_CHECKS:
        if any(name in wrong or _wrong_item(name, wrong) for name in check.inputs):
            continue
        if check.needs_model and spec is None:
            continue
        values = {name: inputs[name] if name in inputs else _default(name) for name in check.inputs}
        try:
            check.run(values, spec, snapshot, given)  # type: ignore[arg-type]  # spec: None only where unread
        except UnknownId as exc:
            failed.append(exc)
    return failed


def _wrong_item(name: str, wrong: Collection[str]) -> bool:
    return any(w.startswith(f"{name}.") for w in wrong)  # gpus.0: a list's item refused on its shape


def _default(name: str) -> Any:
    return InferenceWorkload.model_fields[name].get_default(call_default_factory=True)


def engine_hardware(engine: str, gpus: list[str], vendors: list[str], snapshot: CatalogSnapshot) -> None:
    """GPU or vendor filters that leave only GPUs the engine does not run on (TensorRT-LLM on MI300X) are refused at
    `engine`: without such filters, those GPUs are ranked infeasible with the reason instead."""
    if not (gpus or vendors):
        return
    gpu_ids = {g.lower() for g in gpus}
    vendor_ids = {v.lower() for v in vendors}
    left = [
        g
        for g in snapshot.gpus.values()
        if (not gpu_ids or g.id.lower() in gpu_ids) and (not vendor_ids or g.vendor.lower() in vendor_ids)
    ]
    reason = filter_reason(engine, left)
    if reason is not None:
        raise EngineLacksHardware("engine", reason)


def check_w8a8(engine: str, weight_dtype: str) -> None:
    """INT8 W8A8 on an engine without it (the workload's own check, said here beside a question's other errors)."""
    if weight_dtype == INT8_W8A8 and engine in NO_W8A8_ENGINES:
        raise NotForThisEngine("weight_dtype", w8a8_refusal(engine).removeprefix("weight_dtype: "))


def check_experts(expert_parallel: str, spec: ModelSpec) -> None:
    """Expert parallelism places a mixture of experts' experts: asked of a dense model it would change nothing."""
    if expert_parallel == "ep" and not spec.is_moe:
        raise NotForThisModel(
            "expert_parallel",
            f"{spec.name} is a dense model, with no experts to place: ep is for a mixture of experts; choose tp",
        )


def check_context(input_len: int, output_len: int, spec: ModelSpec, given: Collection[str] = LENGTHS) -> None:
    """A request's prompt and output must fit the model's context (training may extend it: its ranking notes that).
    The error names the lengths to change: the prompt where it alone fills the context, else the length the user gave
    (`given`), and both where the user gave neither (2,000 + 400 overflow a 2,048-token model at the form defaults).
    In words, no query keys: the page shows it beside Input and Output tokens, the CLI after --input-len (qa36)."""
    context = spec.max_context
    if context is None or input_len + output_len <= context:
        return
    total = input_len + output_len
    message = (
        f"the prompt and output ({input_len:,} input + {output_len:,} output = {total:,} tokens) exceed "
        f"{spec.name}'s context of {context:,} tokens: "
    )
    given_lengths = [name for name in LENGTHS if name in given]
    if input_len >= context:
        fields = ["input_len"]
        message += f"the prompt alone fills it; shorten the input below {context:,} tokens"
    else:
        fields = given_lengths[-1:] or list(LENGTHS)  # both given: the output is what passes the context
        message += f"shorten the input, the output or both, to {context:,} tokens together"
        if not given_lengths:
            message += " (neither was given: both are the defaults)"
    raise BeyondContext(fields[0], message, dict.fromkeys(fields[1:], message))


def model_of(workload: Workload, snapshot: CatalogSnapshot) -> ModelSpec:
    """The workload's model (its catalog id, custom architecture or config.json), its other fields unchecked."""
    if workload.custom_model is not None:
        return spec_from_architecture(workload.custom_model)
    if workload.hf_config is not None:
        return config_spec(dict(workload.hf_config))
    assert workload.model is not None
    spec = snapshot.models.get(workload.model) or next(
        (m for k, m in snapshot.models.items() if k.lower() == workload.model.lower()), None
    )
    if spec is None:
        message = unknown_one_message(snapshot, "models", workload.model)
        raise UnknownId("model", message)
    return spec


def config_spec(config: dict[str, object]) -> ModelSpec:
    """A pasted config.json's model, or UnknownId at hf_config saying why it cannot be read."""
    try:
        return model_spec_from_hf_config(config, "custom")
    except (ValueError, TypeError) as exc:
        raise UnknownId("hf_config", unreadable_config(exc)) from None


def _sliding_layers(arch: ModelArchitecture) -> int:
    """Layers with the sliding window: none without one, every layer where the field is blank."""
    if not arch.sliding_window:
        return 0
    return arch.layers if arch.sliding_layers is None else arch.sliding_layers


def spec_from_architecture(arch: ModelArchitecture) -> ModelSpec:
    heads = arch.num_attention_heads
    return ModelSpec(
        id="custom",
        name=arch.name,
        params_b=arch.params_b,
        active_params_b=arch.active_params_b or arch.params_b,
        layers=arch.layers,
        hidden_size=arch.hidden_size,
        num_attention_heads=heads,
        num_kv_heads=arch.num_kv_heads or heads,
        head_dim=arch.head_dim or arch.hidden_size // heads,
        intermediate_size=arch.intermediate_size,
        vocab_size=arch.vocab_size,
        num_experts=arch.num_experts,
        experts_per_token=arch.experts_per_token,
        moe_intermediate_size=arch.moe_intermediate_size,
        num_shared_experts=arch.num_shared_experts,
        moe_layers=arch.moe_layers or 0,  # blank: every layer of a MoE model (ModelSpec)
        attention=arch.attention,
        kv_lora_rank=arch.kv_lora_rank,
        qk_rope_head_dim=arch.qk_rope_head_dim,
        q_lora_rank=arch.q_lora_rank,
        qk_nope_head_dim=arch.qk_nope_head_dim,
        v_head_dim=arch.v_head_dim,
        experts_fused=arch.experts_fused,
        router_fused=arch.router_fused,
        max_context=arch.max_context,
        sliding_window=arch.sliding_window,
        sliding_layers=_sliding_layers(arch),
        release_precision=arch.release_precision,
        release_precision_source=hf_quantization.source(arch.quantization, arch.release_precision),
        quantization=arch.quantization,
    )


MODEL_CHECKS = (
    ModelCheck(("input_len", "output_len"), True, lambda v, spec, _, given: check_context(**v, spec=spec, given=given)),
    ModelCheck(("expert_parallel",), True, lambda v, spec, _s, _g: check_experts(v["expert_parallel"], spec)),
    ModelCheck(
        ("engine", "gpus", "vendors"), False, lambda v, _, snapshot, _g: engine_hardware(**v, snapshot=snapshot)
    ),
    ModelCheck(("engine", "weight_dtype"), False, lambda v, _m, _s, _g: check_w8a8(**v)),
)
CHECKED_FIELDS = tuple(dict.fromkeys(name for check in MODEL_CHECKS for name in check.inputs))
