"""What hardware an offer can supply: the machine behind the price, and the one feasibility rule that
rankings and single estimates share.

An offer is a machine (GPUs per node, the link inside it) times how many nodes can be had across the
fabric between them. Tensor parallel stays inside a node; PCIe nodes run TP over PCIe; a configuration
spans nodes only across a real fabric and within the offer's node limit. Unknown topology is one machine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from app.scoring.explain import significant
from app.scoring.hashed_once import HashedOnce, hashed_once
from app.scoring.specs import GpuSpec, Offer

# "scale-up": another vendor's own chip-to-chip link (TPU ICI, Gaudi's on-chip RoCE, Trainium's NeuronLink), which
# the catalog's offers do not name; priced at the GPU's interconnect bandwidth as NVLink is
SCALEUP_LINKS = frozenset({"nvlink", "xgmi", "scale-up"})
LINK_NAMES = {"nvlink": "NVLink", "xgmi": "xGMI", "scale-up": "scale-up link"}
RDMA_FABRICS = frozenset({"infiniband", "roce", "efa"})
# Per-GPU fabric when the catalog names the fabric but not its speed: one 400 Gb/s NIC per GPU on
# HGX/MI300X cluster nodes (NVIDIA DGX H100 reference architecture; AWS p5 EFA 3,200 Gb/s per 8 GPUs).
DEFAULT_RDMA_GBPS_PER_GPU = 400.0
# Share of a NIC's line rate NCCL reaches for large collectives (Calculon, scaling book: 0.9).
FABRIC_EFFICIENCY = 0.9
# A node of PCIe cards when nothing else is known (an 8-GPU PCIe server, as training assumes).
PCIE_NODE_GPUS = 8
# A scale-up domain wider than an HGX board's 8 GPUs is a rack of nodes: GB200/GB300 NVL72 is 18 compute trays of two
# Grace-Blackwell superchips, 4 GPUs each (NVIDIA GB200 NVL72 page, shared/reference/gpus.csv row GB200; CoreWeave
# rents them as 4-GPU nodes, prices.csv).
BOARD_GPUS = 8
RACK_NODE_GPUS = 4
# Latency of one point-to-point send between pipeline stages on another node (NCCL over IB/EFA, 10-20 us); training's
# ring context parallelism pays it per ring step across nodes (training/step/context_parallel.py).
FABRIC_ALPHA_MS = 0.015


def rented_gpus(instance_gpus: int, gpu_count: int) -> int:
    """GPUs one rented unit serving a `gpu_count`-GPU layout bills: the whole instance, holding as many copies as
    fit (an 8-GPU VM holds four TP2 copies; a TP2 layout on a 3-GPU instance bills all 3), or the whole instances a
    larger layout spans; the layout's own GPUs where they are rented singly."""
    if gpu_count < instance_gpus:
        return instance_gpus
    return -(-gpu_count // instance_gpus) * instance_gpus


@hashed_once
@dataclass(frozen=True, slots=True)
class Machine(HashedOnce):
    """The hardware behind an offer, as far as parallel layouts care."""

    gpus_per_node: int
    link: str  # nvlink | xgmi | pcie | none
    fabric: str = "none"  # infiniband | roce | efa | ethernet | none
    fabric_gbps_per_gpu: float | None = None
    max_nodes: int | None = 1  # None: a cluster offer whose size is not stated (the workload bounds it)
    # GPUs one rental bills: the offer's instance (an 8-GPU VM is rented whole), 1 where GPUs are rented singly
    instance_gpus: int = 1
    # Physical GPUs per node where the scale-up island spans several nodes (a GB200 NVL72 rack of 4-GPU nodes: the
    # island, gpus_per_node, is 72); None = the island is one node
    node_gpus: int | None = None

    def copies(self, gpu_count: int) -> int:
        """Copies of a `gpu_count`-GPU layout one rented instance holds: an 8-GPU instance runs four TP2 replicas;
        1 for a layout of whole instances or singly rented GPUs."""
        return max(self.instance_gpus // gpu_count, 1) if gpu_count < self.instance_gpus else 1

    def rented_gpus(self, gpu_count: int) -> int:
        """GPUs one rented unit serving a `gpu_count`-GPU layout bills (rented_gpus)."""
        return rented_gpus(self.instance_gpus, gpu_count)

    def instances(self, gpu_count: int, replicas: int) -> int:
        """Rented instances `replicas` copies of a `gpu_count`-GPU layout need: copies share an instance, a layout
        larger than one instance takes whole instances each."""
        if gpu_count < self.instance_gpus:
            return -(-replicas // self.copies(gpu_count))
        return replicas * -(-gpu_count // self.instance_gpus)

    def billed_gpus(self, gpu_count: int) -> float:
        """GPUs billed per copy of a `gpu_count`-GPU layout: the instance shared by the copies it holds (a TP2
        layout on a 3-GPU instance pays for the idle third GPU), whole instances above that."""
        s = self.instance_gpus
        if gpu_count < s:
            return s / self.copies(gpu_count)
        return -(-gpu_count // s) * s

    @property
    def unit_name(self) -> str:
        """What the scale-up island is called: a node, or an NVLink domain of several nodes (an NVL72 rack)."""
        return f"{LINK_NAMES.get(self.link, self.link)} domain" if self.node_gpus else "node"

    @property
    def scaleup(self) -> bool:
        return self.link in SCALEUP_LINKS

    @property
    def clusters(self) -> bool:
        """Multi-node jobs: over RDMA (size may be unstated), over Ethernet only when a node count is stated."""
        if self.max_nodes is not None and self.max_nodes <= 1:
            return False
        if self.fabric in RDMA_FABRICS:
            return True
        return self.fabric == "ethernet" and self.max_nodes is not None

    def node_limit(self, gpu_limit: int) -> int:
        """Most nodes a job of at most `gpu_limit` GPUs can use."""
        if not self.clusters:
            return 1
        whole = max(gpu_limit // self.gpus_per_node, 1)
        return whole if self.max_nodes is None else min(self.max_nodes, whole)

    def fabric_gbs(self) -> float:
        """Usable GB/s per GPU, one direction, across nodes (0 without a fabric)."""
        if not self.clusters:
            return 0.0
        gbps = self.fabric_gbps_per_gpu or (DEFAULT_RDMA_GBPS_PER_GPU if self.fabric in RDMA_FABRICS else 10.0)
        return gbps / 8 * FABRIC_EFFICIENCY

    def describe(self) -> str:
        text = f"{self.gpus_per_node}-GPU node" + (f" ({self.link})" if self.link != "none" else "")  # one GPU: no link
        if self.node_gpus:
            text = f"{self.gpus_per_node}-GPU {self.unit_name} of {self.node_gpus}-GPU nodes"
        if self.instance_gpus > 1:
            text += f", rented as {self.instance_gpus}-GPU instances"
        if self.clusters:
            limit = "node count not stated" if self.max_nodes is None else f"up to {self.max_nodes} nodes"
            stated = self.fabric_gbps_per_gpu
            speed = (
                f"{significant(stated)}"
                if stated
                else f"~{significant(self.fabric_gbs() * 8 / FABRIC_EFFICIENCY)} (assumed)"
            )
            text += f", {self.fabric} {speed} Gb/s per GPU, {limit}"
        return text


def _gpu_link(gpu: GpuSpec) -> str:
    """The GPU's own scale-up link as the catalog names intra-node links: NVIDIA's NVLink is nvlink, AMD's Infinity
    Fabric xgmi, another vendor's chip-to-chip link (TPU ICI, Gaudi, Trainium) scale-up, priced alike at the GPU's
    bandwidth; PCIe otherwise."""
    if not (gpu.interconnect_gbs and gpu.scaleup_domain_gpus > 1):
        return "pcie"
    vendor = gpu.vendor.upper()
    return "nvlink" if vendor == "NVIDIA" else "xgmi" if vendor == "AMD" else "scale-up"


def machine_of(offer: Offer, gpu: GpuSpec) -> Machine:
    """The offer's machine; unknown fields fall back to one machine of the instance's GPUs. The instance is what
    one rental bills: a layout on fewer GPUs runs as copies inside it (Machine.copies), never on part of it."""
    per_node = offer.gpus_per_node or offer.gpu_count
    link = offer.intra_node_link or _gpu_link(gpu)
    if per_node <= 1:
        link = "none"
    fabric = offer.inter_node_fabric or "none"
    max_nodes = offer.max_nodes if fabric != "none" else 1
    domain = offer.scaleup_domain_gpus
    if domain and domain > per_node and link in SCALEUP_LINKS:
        # A rack-scale NVLink domain (GB200 NVL72: 18 nodes of 4 GPUs): a layout spans its nodes at NVLink speed, as
        # on one board; a fabric, where stated, joins whole domains.
        racks = None if offer.max_nodes is None else max(offer.max_nodes * per_node // domain, 1)
        return Machine(
            gpus_per_node=domain,
            link=link,
            fabric=fabric,
            fabric_gbps_per_gpu=offer.inter_node_gbps_per_gpu,
            max_nodes=racks if fabric != "none" else 1,
            instance_gpus=max(offer.gpu_count, 1),
            node_gpus=per_node,
        )
    return Machine(
        gpus_per_node=per_node,
        link=link,
        fabric=fabric,
        fabric_gbps_per_gpu=offer.inter_node_gbps_per_gpu,
        max_nodes=max_nodes,
        instance_gpus=max(offer.gpu_count, 1),
    )


def default_machine(gpu: GpuSpec) -> Machine:
    """What a single estimate assumes when no machine is given: one node, the GPU's own scale-up domain
    (an HGX board, an NVL72 rack of RACK_NODE_GPUS-GPU nodes) or an 8-card PCIe server; no fabric."""
    link = _gpu_link(gpu)
    if link in SCALEUP_LINKS:
        rack = gpu.scaleup_domain_gpus > BOARD_GPUS
        return Machine(gpus_per_node=gpu.scaleup_domain_gpus, link=link, node_gpus=RACK_NODE_GPUS if rack else None)
    return Machine(gpus_per_node=PCIE_NODE_GPUS, link="pcie")


def estimate_machine(gpu: GpuSpec, gpu_count: int) -> Machine:
    """What a single estimate of `gpu_count` GPUs assumes without an offer, said as a ranking says an offer of that
    many: one GPU is a 1-GPU node (no link: it talks to nothing), PCIe cards one server of the GPUs asked for (up to
    PCIE_NODE_GPUS, as an N-card offer is), a scale-up GPU its own board or rack (default_machine)."""
    if gpu_count <= 1:
        return Machine(gpus_per_node=1, link="none")
    machine = default_machine(gpu)
    if machine.link == "pcie" and gpu_count < machine.gpus_per_node:
        return replace(machine, gpus_per_node=gpu_count)
    return machine


def span_reason(machine: Machine, gpu_count: int) -> str | None:
    """Why the machine cannot supply `gpu_count` GPUs for one job (None = it can): part of one node, or
    whole nodes across a real fabric within the offer's node limit."""
    per_node = machine.gpus_per_node
    if gpu_count <= per_node:
        return None
    if not machine.clusters:
        return f"{gpu_count} GPUs span nodes of {per_node}, and this offer has no inter-node fabric (one machine)"
    if gpu_count % per_node:
        return f"{gpu_count} GPUs is not a whole number of {per_node}-GPU nodes"
    nodes = gpu_count // per_node
    if machine.max_nodes is not None and nodes > machine.max_nodes:
        return f"{nodes} nodes exceed the offer's limit of {machine.max_nodes}"
    return None


def job_gpu_limit(machine: Machine) -> int | None:
    """Most GPUs the machine supplies to one job (None: a cluster whose node count is not stated)."""
    if not machine.clusters:
        return machine.gpus_per_node
    return None if machine.max_nodes is None else machine.gpus_per_node * machine.max_nodes


def _units(machine: Machine) -> tuple[str, str]:
    """One scale-up unit in words, and what several are called: a node, or a rack-scale NVLink domain."""
    per_node = machine.gpus_per_node
    if not machine.node_gpus:
        return f"{per_node}-GPU node", "nodes"
    rack = f"NVL{per_node} rack" if machine.link == "nvlink" else f"{LINK_NAMES.get(machine.link, machine.link)} rack"
    return f"{rack} (a {per_node}-GPU {machine.unit_name} of {machine.node_gpus}-GPU nodes)", "racks"


def shared_rack_caveat(machine: Machine, gpu_count: int) -> str:
    """What a layout over several rented instances of a rack-scale NVLink domain assumes: that the provider places
    them in one rack, which no offer states (CoreWeave's GB200 topology source: the NVL72 rack's NVLink domain spans
    72 GPUs, inter-node fabric not verified). '' for a layout within one instance, or a machine without such a rack."""
    if not machine.node_gpus or gpu_count <= machine.instance_gpus:
        return ""
    return f"assumes the instances share one {_units(machine)[0].split(' (')[0]}"


def shared_rack_assumption(machine: Machine, gpu_count: int) -> str:
    """shared_rack_caveat in a sentence, for a row's assumptions ('' where there is none)."""
    if not shared_rack_caveat(machine, gpu_count):
        return ""
    instances = -(-gpu_count // machine.instance_gpus)
    rack = _units(machine)[0].split(" (")[0]
    return (
        f"{gpu_count} GPUs span {instances} rented {machine.instance_gpus}-GPU instances at "
        f"{LINK_NAMES.get(machine.link, machine.link)} speed: this assumes the provider places them in one {rack} "
        f"(the offer states the rack's {machine.gpus_per_node}-GPU domain, not that separate instances share one)"
    )


def supply_limit_reason(machine: Machine, gpu_limit: int) -> str | None:
    """Why one job on this machine stops at its own limit, at or below the workload's `gpu_limit` (None: the
    machine supplies more, and the workload's limit is what stops it)."""
    limit = job_gpu_limit(machine)
    if limit is None or limit > gpu_limit:
        return None
    unit, units = _units(machine)
    gpus = f"{limit:,} GPU{'s' if limit > 1 else ''}"
    if machine.clusters:  # a stated node count
        why = f"{machine.max_nodes:,} {units} of {machine.gpus_per_node} GPUs, the offer's stated limit"
    elif machine.fabric == "none":
        why = f"one {unit}, and no fabric between {units} is stated"
    elif machine.fabric == "ethernet" and machine.max_nodes is None:
        why = f"one {unit}: Ethernet between {units}, with no node count stated"
    else:
        why = f"one {unit}, the offer's stated limit"
    return f"this offer supplies at most {gpus} to one job: {why}"


def supply_reason(machine: Machine, gpu_count: int, tensor_parallel: int, pipeline_parallel: int = 1) -> str | None:
    """Why the machine cannot supply this serving configuration (None = it can). Rankings build only what
    this allows, and the estimate API refuses what it refuses."""
    if tensor_parallel * pipeline_parallel != gpu_count:
        return f"tensor parallel {tensor_parallel} × pipeline parallel {pipeline_parallel} is not {gpu_count} GPUs"
    if tensor_parallel > machine.gpus_per_node:
        return f"tensor parallel {tensor_parallel} spans nodes; one node has {machine.gpus_per_node} GPUs"
    return span_reason(machine, gpu_count)


def nodes_for(machine: Machine, gpu_count: int) -> int:
    """Physical nodes a `gpu_count`-GPU layout runs on (an NVL72 rack's 8-GPU layout: two 4-GPU nodes)."""
    return max(1, -(-gpu_count // (machine.node_gpus or machine.gpus_per_node)))


# machine_gpu's answers by (GPU, machine) value, shared across rankings: both are frozen and the wiring depends on
# them alone; the same GPU object back lets build_context's cache compare keys by identity. A seeded catalog has
# ~100 (GPU, machine) pairs.
_WIRED_GPU_CACHE_SIZE = 1024


@lru_cache(maxsize=_WIRED_GPU_CACHE_SIZE)
def machine_gpu(gpu: GpuSpec, machine: Machine) -> GpuSpec:
    """The GPU as wired in this machine: its scale-up domain is the node's NVLink/xGMI island, or none
    (PCIe) — so the estimators' link terms follow the offer, not the GPU's datasheet."""
    if machine.scaleup and gpu.interconnect_gbs:
        domain = min(max(gpu.scaleup_domain_gpus, 1), machine.gpus_per_node)
        if domain == gpu.scaleup_domain_gpus:
            return gpu
        return replace(gpu, scaleup_domain_gpus=domain)
    return replace(gpu, interconnect_gbs=None, scaleup_domain_gpus=max(machine.gpus_per_node, 1))
