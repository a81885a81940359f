"""Ranking GPU offers for a training workload by what the run bills (rank.rank_training): the layout search shared
by a ranking's GPU types (layout_search, gpu_timer), the GPU-count and per-slot searches (count_search, slot_search),
the offers' price groups and rows (price_groups, ranked_rows), the cost-time frontier and the wider run (scale_out),
and what a ranking returns (results)."""
