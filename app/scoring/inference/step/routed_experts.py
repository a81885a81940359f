"""Which routed experts a forward pass touches: the expected share under uniform routing, and under expert
parallelism the share on the busiest GPU, which the step waits for."""

from __future__ import annotations

import math


def expert_coverage(active_share: float, tokens: float) -> float:
    """Expected share of routed experts touched per layer by `tokens` tokens: 1 - (1 - k/E)^tokens."""
    if active_share <= 0:
        return 0.0
    return 1.0 - (1.0 - active_share) ** max(tokens, 1.0)


# Expected maximum of n independent standard normal draws (Royston 1982 tables): the busiest of n groups.
EXPECTED_MAX_OF_NORMALS = {2: 0.564, 4: 1.029, 8: 1.424, 16: 1.766, 32: 2.070, 64: 2.326}


def busiest_group_coverage(coverage: float, experts_per_group: float, groups: int) -> float:
    """Expert parallelism: the step waits for the GPU whose experts the batch touched most. Each GPU's touched
    count is about Binomial(E / EP, coverage) under uniform routing; the busiest of EP GPUs is mean + z(EP) x sd
    (z = expected maximum of EP standard normals), as a share of that GPU's experts, at most all of them."""
    if groups <= 1 or experts_per_group <= 0 or not 0 < coverage < 1:
        return coverage
    z = EXPECTED_MAX_OF_NORMALS.get(groups) or math.sqrt(2 * math.log(groups))
    return min(1.0, coverage + z * math.sqrt(coverage * (1 - coverage) / experts_per_group))
