#!/usr/bin/env bash
# `make load`: the multi-worker server (as run-multi) on a free loopback port, a bounded load
# against it (benchmarks/loadtest.py), and docs/PERFORMANCE.md. Exit 1 on any failed request.
# Then benchmarks/liveness.py: /healthz p99 under HEAVY_CLIENTS (60) concurrent heavy rankings,
# appended to the same report (exit 1 when p99 >= 100 ms).
# Knobs: WORKERS (2), CLIENTS (20), DURATION_S (30), MAX_REQUESTS (20000), HEAVY_CLIENTS (60), LIVENESS_S (15).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/multi_server.sh
trap multi_server_stop EXIT
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
db_kind="Postgres 15 (throwaway cluster)"
[ -n "${GPUMATCH_DATABASE_URL:-}" ] && db_kind="${GPUMATCH_DATABASE_URL%%:*} (GPUMATCH_DATABASE_URL)"
# One load generator is one client IP: lift the per-client share limit (30/minute) for the mix.
export GPUMATCH_SHARE_RATE_LIMIT="${GPUMATCH_SHARE_RATE_LIMIT:-100000/minute}"
multi_server_start "$port"
"$PY" -m benchmarks.loadtest "http://127.0.0.1:$port" --clients "${CLIENTS:-20}" --duration-s "${DURATION_S:-30}" \
  --max-requests "${MAX_REQUESTS:-20000}" --workers "$WORKERS" --database "$db_kind" --out docs/PERFORMANCE.md
"$PY" -m benchmarks.liveness "http://127.0.0.1:$port" --heavy-clients "${HEAVY_CLIENTS:-60}" \
  --duration-s "${LIVENESS_S:-15}" --append docs/PERFORMANCE.md
