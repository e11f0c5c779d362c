# shellcheck shell=bash
# What the wrk benchmarks (bench/run.sh, bench/tasks.sh) share: the release binary,
# a work folder and a per-backend database cleaned up on exit, the accounts, and one
# wrk measurement appended to a results file. Sourced after scripts/lib.sh and
# tests/lib.sh.

# bench_setup RESULTS_FILE: builds the release binary, empties RESULTS_FILE, and
# arranges the clean-up. Sets GEMBA_BIN, BENCH_OUT (the results file), BENCH_WORK and
# BENCH_LOAD_BEFORE.
bench_setup() {
  ensure_rust
  ensure_build_deps
  apt_install wrk curl jq
  say "release build"
  cargo build --release --locked -p gemba-cloud
  GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
  BENCH_LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p "$ROOT/target/bench"
  BENCH_OUT="$1"
  : >"$BENCH_OUT"
  BENCH_WORK="$(mktemp -d)"
  BENCH_PG_DB=""
  trap bench_finish EXIT
  # Accounts sign in with the password alone; tokens outlive the run.
  export GEMBA_REQUIRE_OTP=false GEMBA_ACCESS_TOKEN_TTL_SECS=3600 RUST_LOG=warn
  export GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
}

bench_finish() {
  local rc=$?
  stop_gemba
  bench_drop_db
  rm -rf "$BENCH_WORK"
  exit "$rc"
}

bench_drop_db() {
  if [ -n "${BENCH_PG_DB:-}" ]; then
    psql -q "$GEMBA_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $BENCH_PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
    BENCH_PG_DB=""
  fi
}

# bench_start BACKEND (sqlite | postgres): a fresh gemba-cloud on that backend (a new
# PostgreSQL database each time). Sets API and OUTBOX.
bench_start() {
  local flags=()
  if [ "$1" = postgres ]; then
    ensure_postgres
    BENCH_PG_DB="gemba_bench_$$"
    psql -q "$GEMBA_TEST_PG_URL" -c "CREATE DATABASE $BENCH_PG_DB" >/dev/null
    flags=(--database-url "${GEMBA_TEST_PG_URL%/*}/$BENCH_PG_DB")
  fi
  start_gemba "$BENCH_WORK/$1/data" "${flags[@]}"
  API="$GEMBA_URL/api"
  OUTBOX="$BENCH_WORK/$1/data/outbox"
}

bench_stop() {
  stop_gemba
  bench_drop_db
}

json() { curl -fsS -H 'Content-Type: application/json' "$@"; }

# measure BACKEND NAME CONCURRENCY URL [VAR=value…]: one wrk run of BENCH_SECONDS
# (bench/wrk.lua reads the request from the VARs), appended to BENCH_OUT.
measure() {
  local backend="$1" name="$2" c="$3" url="$4" threads=2 line
  shift 4
  [ "$c" -ge 2 ] || threads=1
  line="$(env "$@" wrk -t "$threads" -c "$c" -d "${BENCH_SECONDS:-10}s" --timeout 10s --latency \
    -s "$ROOT/bench/wrk.lua" "$url" | sed -n 's/^BENCH_JSON //p')"
  [ -n "$line" ] || { echo "wrk gave no result for $name" >&2; return 1; }
  jq -c --arg b "$backend" --arg n "$name" --argjson c "$c" '{backend: $b, endpoint: $n, c: $c} + .' \
    <<<"$line" | tee -a "$BENCH_OUT"
}

# bench_check: fails when a measurement had a non-2xx answer or a socket error.
bench_check() {
  local bad
  bad="$(jq -s '[.[] | select(.non_2xx > 0 or .socket_errors > 0)] | length' "$BENCH_OUT")"
  if [ "$bad" != 0 ]; then
    echo "$bad measurements had non-2xx answers or socket errors:" >&2
    jq -c 'select(.non_2xx > 0 or .socket_errors > 0)' "$BENCH_OUT" >&2
    return 1
  fi
}
