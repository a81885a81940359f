"""The pure ASGI middleware at the app's edge: security headers, HEAD as GET, tracking parameters dropped, the body
cap, per-client rate limits and the ranking slots (with the busy page a refused request gets). app/web/edge.py
installs them, in the order its docstring draws."""
