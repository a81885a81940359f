#!/usr/bin/env bash
# `make run-multi`: several uvicorn workers over one Postgres on 127.0.0.1:${PORT:-8000}.
# Reuses GPUMATCH_DATABASE_URL when set (e.g. postgresql+psycopg://user@127.0.0.1/gpumatch);
# otherwise starts a throwaway cluster that is removed on exit. WORKERS defaults to 2.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/multi_server.sh
trap multi_server_stop EXIT
trap 'exit 130' INT TERM
multi_server_start "${PORT:-8000}"
wait "$SERVER_PID"
