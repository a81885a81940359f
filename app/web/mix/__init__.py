"""The GPU-mix page, its JSON twin and API: the cheapest mix of offers for a request-length distribution."""
