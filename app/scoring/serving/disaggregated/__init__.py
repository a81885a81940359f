"""Disaggregated prefill/decode serving against aggregated continuous batching, priced for a traffic."""
