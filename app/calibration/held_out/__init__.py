"""Held-out accuracy: leave-one-source-out refits, the stored inference folds, and the bands built from them.

folds.py writes inference_folds.py and bands.py writes app/scoring/efficiency/band_table.py (both `make calibrate`).
"""
