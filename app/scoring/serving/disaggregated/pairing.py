"""Which prefill instance can hand its KV cache to which decode instance, and over what.

Two paths (an offer is a machine: app.scoring.hardware.machines):
- pools over the fabric: both offers at one provider with an inter-node fabric (RDMA, or Ethernet with a
  stated node count); each pool scales on its own, KV moves over the slower of the two fabrics, every TP
  rank sending its shard in parallel;
- inside one node (path "node"): one offer whose node, or NVLink domain of several nodes (an NVL72 rack), holds
  both instances; a group of them is the unit that scales, with a fixed mix of prefill and decode instances, KV over
  the node's NVLink/xGMI or PCIe, or the domain's NVLink.
Offers of different providers never pair: KV cache would cross the public internet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.hardware.machines import FABRIC_ALPHA_MS, Machine
from app.scoring.serving.disaggregated.pools import (
    DecodeInstance,
    PrefillInstance,
    PrefillLoad,
    kv_transfer_ms,
    prefill_load,
    slow_end_multiples,
)
from app.scoring.specs import ModelSpec, Offer
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
class PoolOffer:
    """An offer with an instance of one role on it."""

    offer: Offer
    machine: Machine
    instance: PrefillInstance | DecodeInstance


@dataclass(frozen=True, slots=True)
class Pairing:
    """A prefill instance type and a decode instance type that meet TTFT and TPOT together."""

    prefill: PoolOffer
    decode: PoolOffer
    load: PrefillLoad
    path: str  # fabric | node
    transfer_gbs: float
    transfer_ms: float
    prefill_per_unit: int = 1  # node path: instances of each role in one node
    decode_per_unit: int = 1
    transfer_alpha_ms: float = 0.0  # the KV transfer's latency per layer sent (FABRIC_ALPHA_MS, or the node link's)

    @property
    def prefill_instance(self) -> PrefillInstance:
        assert isinstance(self.prefill.instance, PrefillInstance)
        return self.prefill.instance

    @property
    def decode_instance(self) -> DecodeInstance:
        assert isinstance(self.decode.instance, DecodeInstance)
        return self.decode.instance

    @property
    def node_gpus_used(self) -> int:
        """Node path: the GPUs one node's instances use."""
        p, d = self.prefill.instance, self.decode.instance
        return self.prefill_per_unit * p.gpu_count + self.decode_per_unit * d.gpu_count

    @property
    def node_gpus_billed(self) -> int:
        """Node path: the GPUs one node bills: the whole instances where the offer rents them so (an 8-GPU VM running
        4 + 1 GPUs of instances bills 8; 2 + 4 GPUs in an NVL72 rack of 4-GPU instances bills 8), else the GPUs used."""
        return self.prefill.machine.rented_gpus(self.node_gpus_used)

    def mean_usd_per_s(self, rate_per_s: float) -> float:
        """Cost of serving `rate_per_s` with fractional instances: the order in which pairings are priced."""
        p, d = self.prefill, self.decode
        if self.path == "node":
            gpus = self.node_gpus_billed
            capacity = min(
                self.prefill_per_unit * self.load.capacity_rps, self.decode_per_unit * self.decode_instance.capacity_rps
            )
            return rate_per_s * gpus * p.offer.usd_per_gpu_hour / 3600 / capacity
        prefill = p.instance.gpu_count * p.offer.usd_per_gpu_hour / self.load.capacity_rps
        decode = d.instance.gpu_count * d.offer.usd_per_gpu_hour / self.decode_instance.capacity_rps
        return rate_per_s * (prefill + decode) / 3600


def mean_ttft_budget_ms(workload: InferenceWorkload, eff: InferenceEfficiency) -> float:
    """The limit is a p99: mean TTFT may use the limit over the p99/mean ratio, as aggregated serving does."""
    return workload.ttft_ms / eff.p99_ttft_over_mean


def prefill_budget_ms(
    workload: InferenceWorkload, eff: InferenceEfficiency, transfer_ms: float, instance: PrefillInstance
) -> float:
    """What the prefill instance's first token and queue may take of the mean TTFT budget: the rest after the KV
    transfer, which no band covers (it stays on the estimate), ÷ the TTFT band's high ratio at limits_at band_high."""
    return (mean_ttft_budget_ms(workload, eff) - transfer_ms) / slow_end_multiples(instance, workload)[0]


def own_prefill_scale(workload: InferenceWorkload, eff: InferenceEfficiency) -> float:
    """A question's prompt spread moves its own prefill's p99 off the fitted ratio (OperatingPoint.ttft_p99_ms): the
    pass weighs spread / ratio of itself against the mean budget; 1 where the question gives none."""
    spread = workload.prompt_p99_over_mean
    return 1.0 if spread is None else spread / eff.p99_ttft_over_mean


def _fabric_pair(p: PoolOffer, d: PoolOffer, model: ModelSpec, workload: InferenceWorkload) -> Pairing | None:
    if p.offer.provider_id != d.offer.provider_id:
        return None
    fabric = min(p.machine.fabric_gbs(), d.machine.fabric_gbs())
    if fabric <= 0:
        return None
    gbs = fabric * min(p.instance.gpu_count, d.instance.gpu_count)
    transfer = kv_transfer_ms(model, workload.kv_dtype_effective, workload.input_len, gbs, FABRIC_ALPHA_MS)
    assert isinstance(p.instance, PrefillInstance)
    budget = prefill_budget_ms(workload, DEFAULT_EFFICIENCY, transfer, p.instance)
    load = prefill_load(p.instance, budget, own_prefill_scale(workload, DEFAULT_EFFICIENCY))
    return None if load is None else Pairing(p, d, load, "fabric", gbs, transfer, transfer_alpha_ms=FABRIC_ALPHA_MS)


def _node_pair(
    p: PoolOffer, d: PoolOffer, model: ModelSpec, workload: InferenceWorkload, eff: InferenceEfficiency
) -> Pairing | None:
    """Both roles in one node of the same offer: the mix of instances per node that costs least per request."""
    if p.offer is not d.offer:
        return None
    tp_p, tp_d, per_node = p.instance.gpu_count, d.instance.gpu_count, p.machine.gpus_per_node
    if tp_p + tp_d > per_node:
        return None
    assert isinstance(p.instance, PrefillInstance) and isinstance(d.instance, DecodeInstance)
    gbs = min(p.instance.link_gbs, d.instance.link_gbs) * min(tp_p, tp_d)
    alpha = eff.allreduce_alpha_nvlink_ms if p.instance.nvlink else eff.allreduce_alpha_pcie_ms
    transfer = kv_transfer_ms(model, workload.kv_dtype_effective, workload.input_len, gbs, alpha)
    load = prefill_load(
        p.instance, prefill_budget_ms(workload, eff, transfer, p.instance), own_prefill_scale(workload, eff)
    )
    if load is None:
        return None
    best: Pairing | None = None
    for n_p in range(1, (per_node - tp_d) // tp_p + 1):
        for n_d in range(1, (per_node - n_p * tp_p) // tp_d + 1):
            pairing = Pairing(p, d, load, "node", gbs, transfer, n_p, n_d, alpha)
            if best is None or pairing.mean_usd_per_s(1.0) < best.mean_usd_per_s(1.0):
                best = pairing
    return best


def pairings(
    prefills: Iterable[PoolOffer],
    decodes: Iterable[PoolOffer],
    model: ModelSpec,
    workload: InferenceWorkload,
    eff: InferenceEfficiency = DEFAULT_EFFICIENCY,
) -> list[Pairing]:
    """Every (prefill, decode) instance pair that some path joins and that meets the TTFT limit."""
    by_provider: dict[str, list[PoolOffer]] = {}
    for d in decodes:
        by_provider.setdefault(d.offer.provider_id, []).append(d)
    found = []
    for p in prefills:
        for d in by_provider.get(p.offer.provider_id, []):
            for pairing in (_fabric_pair(p, d, model, workload), _node_pair(p, d, model, workload, eff)):
                if pairing is not None:
                    found.append(pairing)
    return found
