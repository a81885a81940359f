"""Bands on an estimate and the latency limits checked against them: the p99 latency bands, how each scenario
treats the TTFT and TPOT limits, and how far the MoE prefill host time's band reaches.
"""
