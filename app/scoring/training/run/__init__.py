"""A training run held to its offer's terms and the workload's limits: what it costs and bills (offer_terms,
run_explain), what stops it short of its deadline and what would let it finish (deadline), the global batch it runs
at beside published ones (batch_size), and the words its limits are given in at any scale (limit_words)."""
