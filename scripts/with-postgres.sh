#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15 cluster, then removes the cluster.
#
#   scripts/with-postgres.sh <command> [args...]
#
# Creates a cluster in a temp dir, starts it on a free 127.0.0.1 port (trust auth, user
# `postgres`, fsync and synchronous_commit off: test data only), exports
# ADAPTOR_TEST_PG_URL=postgres://postgres@127.0.0.1:<port>/postgres, runs the command, and always
# stops the server and deletes the dir (also on Ctrl-C), exiting with the command's exit code.
# As root the server runs as the `postgres` user. Binaries come from $PG_BIN (default
# /usr/lib/postgresql/15/bin). When ADAPTOR_TEST_PG_URL is already set, that server is used as is;
# when the binaries (or, as root, the postgres user) are missing, the command runs without a
# database and the PostgreSQL tests skip with a warning. pg_stat_statements is preloaded when the
# server has it (the benchmarks count statements with it; `CREATE EXTENSION` is theirs to run).
# PG_MAX_CONNECTIONS (default 100) sets max_connections, for the fleet simulation.
set -uo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi

log() { echo "with-postgres: $*" >&2; }

if [ -n "${ADAPTOR_TEST_PG_URL:-}" ]; then
  log "ADAPTOR_TEST_PG_URL is already set; using that server"
  exec "$@"
fi

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
  log "no PostgreSQL binaries in $PG_BIN; running without a database (PostgreSQL tests will skip)"
  exec "$@"
fi

as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    log "running as root but there is no 'postgres' user; running without a database (PostgreSQL tests will skip)"
    exec "$@"
  fi
  # runuser lives in /usr/sbin or /sbin, which a minimal PATH may lack; su is the fallback.
  runuser_bin="$(PATH="$PATH:/usr/sbin:/sbin" command -v runuser || true)"
  if [ -n "$runuser_bin" ]; then
    as_pg=("$runuser_bin" -u postgres --)
  else
    as_pg=(su -s /bin/sh -c '"$0" "$@"' postgres --)
  fi
fi

# As root the cluster dir must be reachable by the postgres user: /tmp, whatever TMPDIR says.
tmp_base="${TMPDIR:-/tmp}"
[ "${#as_pg[@]}" -gt 0 ] && tmp_base=/tmp
dir="$(mktemp -d "$tmp_base/adaptor-pg.XXXXXX")"
cleanup() {
  # postmaster.pid exists while a server runs on the dir, also after a start that timed out.
  if [ -f "$dir/data/postmaster.pid" ]; then
    "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
child=""
# Forward INT/TERM to the command, wait for it, then clean up (the EXIT trap).
on_signal() {
  [ -n "$child" ] && kill "-$1" "$child" 2>/dev/null && wait "$child" 2>/dev/null
  exit "$2"
}
trap cleanup EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

[ "${#as_pg[@]}" -gt 0 ] && chown postgres: "$dir"

if ! "${as_pg[@]}" "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
  log "initdb failed:"
  tail -n 20 "$dir/initdb.log" >&2
  exit 1
fi

free_port() {
  node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

preload=""
# Room for every statement of a whole test run (each test schema makes its own texts), so none is
# evicted while a test reads its counts.
[ -f "$PG_BIN/../lib/pg_stat_statements.so" ] && preload="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=50000"
port=""
for attempt in 1 2 3; do
  candidate="$(free_port)"
  opts="-c listen_addresses=127.0.0.1 -c port=$candidate -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=${PG_MAX_CONNECTIONS:-100} $preload"
  if "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 30 start >/dev/null 2>&1; then
    port="$candidate"
    break
  fi
  log "server did not start on port $candidate (attempt $attempt)"
done
if [ -z "$port" ]; then
  log "could not start PostgreSQL; server log:"
  tail -n 30 "$dir/server.log" >&2 || true
  exit 1
fi

export ADAPTOR_TEST_PG_URL="postgres://postgres@127.0.0.1:$port/postgres"
log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
# In the background (stdin kept) so a signal reaches the trap at once instead of after the command.
if { true <&0; } 2>/dev/null; then "$@" <&0 & else "$@" & fi
child=$!
wait "$child"
exit $?
