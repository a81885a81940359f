"""JSON in and out of the feature APIs: bodies read strictly (a repeated key or a NaN is a 422), answers serialised
by orjson from plain values, and the response pieces every feature's schema shares in /docs."""
