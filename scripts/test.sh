#!/usr/bin/env bash
# The whole suite: everything on SQLite, and at the same time the database-facing tests again on a throwaway
# Postgres (its output is printed after the SQLite run's). The Postgres pass skips tests/scoring (pure engine,
# never touches a database) and tests/browser (they drive the same routes through Chromium and double the wall
# time; the HTTP, share and migration tests already cover every query on Postgres). Of the rest,
# tests/conftest.py keeps only the database-facing tests (those using a database fixture or marked `db`).
# The two runs share nothing but the CPU: separate databases, temporary folders and free ports.
# Extra arguments go to both pytest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
source scripts/pg_throwaway.sh
postgres_pid=""
postgres_log=$(mktemp /tmp/gpumatch-postgres-run.XXXXXX)
cleanup() {
  if [ -n "$postgres_pid" ]; then kill "$postgres_pid" 2>/dev/null || true; wait "$postgres_pid" 2>/dev/null || true; fi
  pg_throwaway_stop
  rm -f "$postgres_log"
}
trap cleanup EXIT

pg_throwaway_start
GPUMATCH_TEST_DATABASE_URL="$PG_URL" "$PY" -m pytest -q --ignore=tests/scoring --ignore=tests/browser "$@" \
  >"$postgres_log" 2>&1 &
postgres_pid=$!

sqlite_status=0
echo "== suite on SQLite (the Postgres run goes on beside it)"
"$PY" -m pytest -q "$@" || sqlite_status=$?

postgres_status=0
wait "$postgres_pid" || postgres_status=$?
postgres_pid=""
echo "== database-facing tests on Postgres"
cat "$postgres_log"

echo "SQLite run: exit $sqlite_status; Postgres run: exit $postgres_status"
[ "$sqlite_status" -eq 0 ] && [ "$postgres_status" -eq 0 ]
