#!/usr/bin/env bash
# `make load`: the multi-worker server (as run-multi) on a free loopback port, a bounded load
# against it (app/loadtest.py), and docs/PERFORMANCE.md. Exit 1 on any failed request.
# Knobs: WORKERS (2), CLIENTS (20), DURATION_S (30), MAX_REQUESTS (20000).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/multi_server.sh
trap multi_server_stop EXIT
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
db_kind="Postgres 15 (throwaway cluster)"
[ -n "${GPUMATCH_DATABASE_URL:-}" ] && db_kind="${GPUMATCH_DATABASE_URL%%:*} (GPUMATCH_DATABASE_URL)"
multi_server_start "$port"
"$PY" -m benchmarks.loadtest "http://127.0.0.1:$port" --clients "${CLIENTS:-20}" --duration-s "${DURATION_S:-30}" \
  --max-requests "${MAX_REQUESTS:-20000}" --workers "$WORKERS" --database "$db_kind" --out docs/PERFORMANCE.md
