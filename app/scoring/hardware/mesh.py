"""Switchless scale-up boards: how much of a GPU's listed scale-up bandwidth a collective among some of the
board's GPUs can use.

Behind a switch (NVSwitch on HGX boards, NVL72 racks) every GPU reaches any group at its full listed bandwidth.
On a full mesh each GPU is wired straight to each of its peers and the listed figure is the sum of those links,
so an all-reduce among g GPUs of the board runs over g - 1 of them: tensor parallel 2 on an MI300X board moves
its activations over one Infinity Fabric link, a seventh of the 896 GB/s the data sheet lists. The inference
estimator's all-reduce and the disaggregated KV hand-off scale their link by this share. Training's collectives do
not yet (training/step/communication.py `collective_bandwidth_gbs`; docs/ACCURACY.md says why it is held).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from app.scoring.explain import percent, significant
from app.scoring.specs import GpuSpec


@dataclass(frozen=True, slots=True)
class MeshBoard:
    """A switchless board: each GPU's `peers` neighbours, each reached over `peer_share` of its listed bandwidth."""

    interconnect: re.Pattern[str]  # matched against the GPU's published interconnect text (gpus.csv)
    peers: int
    peer_share: float
    source: str


MESH_BOARDS = (
    MeshBoard(
        re.compile(r"Infinity Fabric \(7 links"),
        peers=7,
        peer_share=1 / 7,
        source=(
            "AMD Instinct MI300-series platform: 8 OAMs, each wired to the other 7 by one Infinity Fabric link "
            "(7 × 128 GB/s = the 896 GB/s listed; MI355X 7 × 153.6 GB/s), no switch"
        ),
    ),
    MeshBoard(
        re.compile(r"GbE RoCE on-chip"),
        peers=7,
        peer_share=3 / 24,
        source=(
            "Intel Gaudi 2/3 HLS boards: 21 of each GPU's 24 RoCE ports wired all-to-all, 3 to each of the 7 "
            "peers (the other 3 scale out); the listed bandwidth counts all 24"
        ),
    ),
)


def mesh_board(gpu: GpuSpec) -> MeshBoard | None:
    return _board_for(gpu.interconnect)


@cache
def _board_for(interconnect: str) -> MeshBoard | None:  # a few dozen distinct strings; every layout asks
    return next((b for b in MESH_BOARDS if b.interconnect.search(interconnect)), None)


def group_link_share(gpu: GpuSpec, group_gpus: int) -> float:
    """Share of the GPU's listed scale-up bandwidth a collective among `group_gpus` GPUs of one board uses:
    1 behind a switch; on a mesh, one peer's share per other GPU of the group (at most the whole mesh)."""
    board = mesh_board(gpu)
    if board is None or group_gpus <= 1:
        return 1.0
    return min(group_gpus - 1, board.peers) * board.peer_share


def peer_link_share(gpu: GpuSpec) -> float:
    """Share of the listed bandwidth between two GPUs of one board (a point-to-point send, such as KV moving
    from a prefill GPU to a decode GPU): one link on a mesh, all of it behind a switch."""
    return group_link_share(gpu, 2)


def mesh_note(gpu: GpuSpec, group_gpus: int) -> str | None:
    """What an estimate's terms say when a mesh narrows its collectives, else None."""
    share = group_link_share(gpu, group_gpus)
    board = mesh_board(gpu)
    if board is None or share >= 1.0:
        return None
    return (
        f"{gpu.name} boards are a switchless mesh (each GPU wired to its {board.peers} peers): a group of "
        f"{group_gpus} reduces over {min(group_gpus - 1, board.peers)} of those links, {percent(share)} of the listed "
        f"{significant(gpu.interconnect_gbs or 0)} GB/s"
    )


def scaleup_link_name(gpu: GpuSpec) -> str:
    """What an explanation calls the GPU's scale-up link."""
    vendor = gpu.vendor.upper()
    return "NVLink" if vendor == "NVIDIA" else "Infinity Fabric" if vendor == "AMD" else "scale-up link"
