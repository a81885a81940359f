"""The cheapest mix of GPU types for a request-length distribution (Mélange's integer program), against one type."""
