"""Device checks: the estimator's kernel terms and training steps beside runs timed on a real GPU.

The runs are recorded in docs/measurements; `gpumatch device-check` and docs/ACCURACY.md's last section show them.
"""
