"""Training calibration: a published training run read from its notes and predicted.

The training efficiency constants are fitted here too (calibrate_training.py, part of `make calibrate`).
"""
