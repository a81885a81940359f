"""What a ranked row over several nodes assumes when its offer states no node count: the one caveat a training run
and a serving replica share (rows with it are labelled "node count unstated", NODES? on the command line)."""

from __future__ import annotations

from app.scoring.hardware.machines import Machine


def unstated_cluster_caveat(machine: Machine, gpu_count: int, unit_of_work: str = "job") -> str:
    """A training job or a serving replica (`unit_of_work`) across several nodes (or NVLink racks) of an offer that
    does not say how many it sells: the ranking assumes they can be had on one fabric, which a buyer must confirm
    ("" for one node's worth, or a stated count)."""
    per_unit = machine.gpus_per_node
    if gpu_count <= per_unit or not machine.clusters or machine.max_nodes is not None:
        return ""
    units = -(-gpu_count // per_unit)
    unit = "racks" if machine.node_gpus else "nodes"
    return (
        f"{units:,} {unit} of {per_unit} GPUs: the offer does not state how many {unit} it supplies to one "
        f"{unit_of_work}, so this size is assumed available; confirm it with the provider"
    )
