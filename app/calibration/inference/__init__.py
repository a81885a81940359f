"""Inference calibration: a published serving run read into the estimator's setup and predicted.

The inference efficiency constants are fitted here too (calibrate_inference.py, part of `make calibrate`).
"""
