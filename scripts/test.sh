#!/usr/bin/env bash
# The whole suite: everything on SQLite, then the database-facing tests again on a throwaway Postgres.
# The Postgres pass skips tests/scoring (pure engine, never touches a database) and tests/browser
# (they drive the same routes through Chromium and double the wall time; the HTTP, share and migration
# tests already cover every query on Postgres). Of the rest, tests/conftest.py keeps only the database-facing
# tests (those using a database fixture or marked `db`). Extra arguments go to both pytest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
source scripts/pg_throwaway.sh
trap pg_throwaway_stop EXIT

sqlite_status=0
echo "== suite on SQLite"
"$PY" -m pytest -q "$@" || sqlite_status=$?

echo "== database-facing tests on Postgres"
pg_throwaway_start
postgres_status=0
GPUMATCH_TEST_DATABASE_URL="$PG_URL" "$PY" -m pytest -q --ignore=tests/scoring --ignore=tests/browser "$@" \
  || postgres_status=$?

echo "SQLite run: exit $sqlite_status; Postgres run: exit $postgres_status"
[ "$sqlite_status" -eq 0 ] && [ "$postgres_status" -eq 0 ]
