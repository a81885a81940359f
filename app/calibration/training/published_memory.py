"""The peak memory per GPU a training case's notes publish, in 10^9 bytes, with the quantity its source measured.

Three note formats, read through general patterns:

- "peak mem 47.65 GB" on a torchtitan run (the torchao float8 and MXFP8 READMEs): torchtitan's logs print the peak of
  `reserved_bytes.all.peak` divided by 2^30 (torchtitan/tools/metrics.py, DeviceMemoryMonitor `_to_gib`, logged as
  "memory: 47.65GiB"), which the READMEs copy under a "GB" heading: GiB of the caching allocator's reserve.
- "peak active mem 25.5 GiB" (torchtune's optimization-flags table, 2024-11): `active_bytes.all.peak`, the
  allocator's live blocks, allocated memory to within blocks awaiting a stream's free.
- "peak mem/GPU 18.9 GiB" (torchtune's memory-and-speed table, 2024-09): the table does not say which of the
  peaks torchtune logs (`log_memory_stats`: active, allocated, reserved) it shows; the unit is read as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GIB = 2**30
GB = 1e9

PEAK = re.compile(r"\bpeak (active )?mem(?:ory)?(/GPU)? (\d+(?:\.\d+)?) ?(GiB|GB)\b", re.IGNORECASE)
# Frameworks whose published peaks come from their own logs, in GiB whatever the publication's heading says.
GIB_LOGGING_FRAMEWORKS = ("torchtitan",)

QUANTITIES = {
    "reserved": "the caching allocator's reserved peak (torchtitan's log)",
    "active": "the allocator's active (allocated) peak",
    "unstated": "a peak whose kind the source does not state (torchtune logs active, allocated and reserved)",
}


@dataclass(frozen=True, slots=True)
class PublishedPeak:
    """A published peak: `gb` in 10^9 bytes, `as_written` as the notes give it, `quantity` a QUANTITIES key."""

    gb: float
    as_written: str
    quantity: str


def published_peak(row: dict[str, str]) -> PublishedPeak | None:
    """The peak memory per GPU the row's notes publish, None where they publish none."""
    match = PEAK.search(row.get("notes") or "")
    if match is None:
        return None
    active, _, number, unit = match.groups()
    from_logs = (row.get("framework") or "").strip().lower() in GIB_LOGGING_FRAMEWORKS
    binary = unit.lower() == "gib" or from_logs
    quantity = "reserved" if from_logs else ("active" if active else "unstated")
    return PublishedPeak(float(number) * (GIB if binary else GB) / GB, f"{number} {unit}", quantity)
