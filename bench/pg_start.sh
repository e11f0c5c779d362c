#!/usr/bin/env bash
# The server's start on a new PostgreSQL database, side by side (docs/benchmarks.md,
# "the PostgreSQL half"): on an empty database (`CREATE DATABASE`, every migration then
# applied at start, as each PostgreSQL test of the API suite had it) and on a copy of
# the migrated template (`CREATE DATABASE … TEMPLATE gemba_tpl_…`, what
# `gemba_cloud::pg_template` gives them now): seconds from the CREATE to a healthy
# `/api/health`, ROUNDS times each (default 5), alternating. The newest template is
# used: run a PostgreSQL test of the API suite first, with the same migrations as the
# binary ($GEMBA_BIN, else the debug build). Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_postgres
gemba_bin
PG_URL="$GEMBA_TEST_PG_URL"
tpl="$(psql -Atq "$PG_URL" -c "SELECT datname FROM pg_database WHERE datistemplate
  AND datname ~ '^gemba_tpl_[0-9a-f]{12}$' ORDER BY oid DESC LIMIT 1")"
[ -n "$tpl" ] || { echo "no gemba_tpl_… template: run a PostgreSQL test of the API suite first" >&2; exit 1; }
work="$(mktemp -d)" db=""
drop_db() { [ -z "$db" ] || psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null; db=""; }
trap 'stop_gemba; drop_db; rm -rf "$work"' EXIT
echo "template $tpl; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "${ROUNDS:-5}"); do
  for mode in empty template; do
    db="gemba_start_$$_${round}_$mode"
    from=""
    [ "$mode" = empty ] || from=" TEMPLATE $tpl"
    t0="$(date +%s%N)"
    psql -q "$PG_URL" -c "CREATE DATABASE $db$from" >/dev/null
    start_gemba "$work/$db" --database-url "${PG_URL%/*}/$db"
    t1="$(date +%s%N)"
    echo "$round $mode $(( (t1 - t0) / 1000000 )) ms"
    stop_gemba
    drop_db
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
