"""How long a training step takes, and the terms that explain it: the stacks the estimator tells apart (frameworks),
FLOPs per token (flops), the peak and the effective MFU (mfu), the step's parts (step_time), and the explanation
lines that show their arithmetic (step_terms for the parts beyond the compute, terms for the whole estimate)."""
