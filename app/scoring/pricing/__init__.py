"""Offers and what they cost: joining estimates to priced offers, price terms, per-token prices, an offer read
twice, and a catalog snapshot's memo of what a filter set allows."""
