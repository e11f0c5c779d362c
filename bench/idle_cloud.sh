#!/usr/bin/env bash
# An idle cloud's CPU (docs/benchmarks.md, "An idle cloud's job queue"): `gemba-cloud
# serve` ($GEMBA_BIN, else the debug build) on a new SQLite data folder and on a new
# PostgreSQL database, nothing asking it anything; the clock ticks its process used
# (utime + stime of /proc/PID/stat, 100 a second) over SECONDS (default 20) after a
# 5 s settle, and on PostgreSQL also its database's backends'. Before the queue's
# workers ran in tasks of their own, SQLite's side read about 527 ticks in 20 s. Not
# part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_postgres
gemba_bin
PG_URL="$GEMBA_TEST_PG_URL"
seconds="${SECONDS_IDLE:-20}"
work="$(mktemp -d)" db="gemba_idle_$$"
trap 'stop_gemba; psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1; rm -rf "$work"' EXIT
ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }
backends() { psql -Atq "$PG_URL" -c "SELECT pid FROM pg_stat_activity WHERE datname = '$db'"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for backend in sqlite postgres; do
  if [ "$backend" = sqlite ]; then
    start_gemba "$work/sqlite"
  else
    psql -q "$PG_URL" -c "CREATE DATABASE $db" >/dev/null
    start_gemba "$work/postgres" --database-url "${PG_URL%/*}/$db"
  fi
  sleep 5
  mapfile -t pg < <([ "$backend" = postgres ] && backends)
  a="$(ticks "$GEMBA_PID")" pa="$(ticks "${pg[@]}")"
  sleep "$seconds"
  b="$(ticks "$GEMBA_PID")" pb="$(ticks "${pg[@]}")"
  echo "$backend: gemba-cloud $((b - a)) ticks in ${seconds} s; its database's backends $((pb - pa))"
  stop_gemba
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
