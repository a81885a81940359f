"""A machine's tiers of layouts, the GPUs each is compared per and the order they are solved in are worked out once per
machine and kind of load (configurations._tier_plan), not per slot and ranking: every plan equals the one each tier
used to build for itself, on every machine the seeded offers supply, at a fixed load and a capacity question."""

import itertools

from app.scoring.hardware.machines import Machine, machine_of
from app.scoring.inference.estimates import configurations
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
# beside the seeded offers' machines: GPUs rented singly and whole 8-GPU nodes, clusters over a fabric, a 72-GPU rack
MORE_MACHINES = (
    Machine(gpus_per_node=8, link="nvlink"),
    Machine(gpus_per_node=8, link="nvlink", instance_gpus=8),
    Machine(gpus_per_node=8, link="nvlink", fabric="infiniband", fabric_gbps_per_gpu=400, max_nodes=4, instance_gpus=8),
    Machine(gpus_per_node=4, link="pcie", fabric="ethernet", fabric_gbps_per_gpu=100, max_nodes=None, instance_gpus=4),
    Machine(gpus_per_node=72, link="nvlink", instance_gpus=4, node_gpus=4),
    Machine(gpus_per_node=3, link="pcie", instance_gpus=3),
)


def _plan_as_built_per_tier(
    machine: Machine, fixed: bool, max_gpus: int, layers: int, multi_node: bool
) -> tuple[list[tuple[int, int, int]], list[int], list[int]]:
    """The tier's layouts, billed GPUs and search order as _solve_tier built them on every call (before the plans)."""
    layouts = (configurations.multi_node_layouts if multi_node else configurations.single_node_layouts)(
        machine, max_gpus, layers
    )
    billed_of = [machine.instances(count, 1) * machine.instance_gpus if fixed else count for count, _, _ in layouts]
    order = sorted(range(len(layouts)), key=lambda i: (billed_of[i], -layouts[i][0] if fixed else 0, layouts[i][2]))
    return layouts, billed_of, order


def test_every_tier_plan_is_the_plan_its_tier_built_for_itself() -> None:
    machines = {machine_of(offer, SNAPSHOT.gpus[offer.gpu_id]) for offer in SNAPSHOT.offers} | set(MORE_MACHINES)
    checked, reordered = 0, 0
    for machine, fixed, max_gpus, layers, multi_node in itertools.product(
        machines, (False, True), (1, 8, 64), (16, 80, 126), (False, True)
    ):
        plan = configurations._tier_plan(machine, fixed, max_gpus, layers, multi_node)
        layouts, billed_of, order = _plan_as_built_per_tier(machine, fixed, max_gpus, layers, multi_node)
        assert (list(plan.layouts), list(plan.billed), list(plan.order)) == (layouts, billed_of, order), machine
        assert list(plan.copies) == [machine.copies(count) for count, _, _ in layouts]  # spread_copies' source
        assert configurations._tier_plan(machine, fixed, max_gpus, layers, multi_node) is plan  # kept, not rebuilt
        checked += 1
        # a fixed load's bill and order differ from a capacity question's on rented multi-GPU instances
        reordered += fixed and order != _plan_as_built_per_tier(machine, False, max_gpus, layers, multi_node)[2]
    assert len(machines) >= 11 and checked > 300 and reordered > 20
