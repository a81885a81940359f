#!/usr/bin/env bash
# Source me: `pg_throwaway_start` starts a throwaway Postgres cluster on a free loopback port and sets
# PG_URL (postgresql+psycopg://postgres@127.0.0.1:PORT/postgres); `pg_throwaway_stop` stops and removes it.
# Trust auth, listening on 127.0.0.1 only: nothing outside this machine can reach it.
# Postgres refuses to run as root, so as root the cluster runs as the `postgres` OS user.

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
PG_DIR=""

_pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

pg_throwaway_start() {
  PG_DIR=$(mktemp -d /tmp/gpumatch-pg.XXXXXX)
  [ "$(id -u)" -eq 0 ] && chown postgres: "$PG_DIR"
  local port; port=$(_free_port)
  _pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
  # fsync off: a throwaway cluster for tests and load runs, never for data anyone keeps.
  _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 60 start \
    -o "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" >/dev/null
  PG_URL="postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
  export PG_URL
  echo "throwaway postgres on 127.0.0.1:$port ($PG_DIR)" >&2
}

pg_throwaway_stop() {
  [ -n "$PG_DIR" ] || return 0
  _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=""
}
