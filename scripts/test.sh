#!/usr/bin/env bash
# The whole suite: everything on SQLite, then the database-facing tests again on a throwaway Postgres.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
"$PY" -m pytest -q "$@"
