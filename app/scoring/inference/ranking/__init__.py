"""Ranking GPU offers for serving one model: pricing each configuration, ordering the offers, and the
precision side by side (with the model's released precision).
"""
