"""What the site serves beside its features: liveness and readiness (/healthz, /readyz), /docs from the pinned
Swagger UI, and the static files with the pinned front-end assets (versions in file names, SRI hashes, the CSP)."""
