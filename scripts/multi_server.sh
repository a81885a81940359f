#!/usr/bin/env bash
# Source me: `multi_server_start PORT` migrates and seeds the database once, then serves
# `uvicorn --workers $WORKERS` on 127.0.0.1:PORT in the background (pid in SERVER_PID).
# The database is GPUMATCH_DATABASE_URL when set, else a throwaway Postgres (pg_throwaway.sh).
# `multi_server_stop` stops both. Workers share nothing but the database: snapshots re-check its version.

PY=${PY:-.venv/bin/python}
WORKERS=${WORKERS:-2}
SERVER_PID=""
source "$(dirname "${BASH_SOURCE[0]}")/pg_throwaway.sh"

multi_server_start() {
  local port=$1
  if [ -z "${GPUMATCH_DATABASE_URL:-}" ]; then
    pg_throwaway_start
    export GPUMATCH_DATABASE_URL="$PG_URL"
  fi
  # Once, before the workers start: N workers migrating at the same time would race.
  "$PY" -m app.cli.main db seed >/dev/null
  "$PY" -m uvicorn app.main:create_app --factory --host 127.0.0.1 --port "$port" \
    --workers "$WORKERS" --log-level warning &
  SERVER_PID=$!
  for _ in $(seq 1 150); do
    if "$PY" -c "import httpx,sys; sys.exit(httpx.get('http://127.0.0.1:$port/healthz').status_code != 200)" \
      2>/dev/null; then
      echo "serving on http://127.0.0.1:$port with $WORKERS workers over ${GPUMATCH_DATABASE_URL%%:*}" >&2
      return 0
    fi
    sleep 0.2
  done
  echo "the server did not become healthy" >&2
  return 1
}

multi_server_stop() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
  pg_throwaway_stop
}
