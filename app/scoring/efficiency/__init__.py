"""Efficiency constants of the estimators, one module per workload kind (inference, training),
and moe_share, which spreads a MoE factor over the layers that carry experts.

Every constant is regime-dependent (engine class, dtype, batch, TP degree, GPU family) and carries
a one-line source. They are fitted by the matching `calibrate_*` module and committed here.
"""
