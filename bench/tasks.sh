#!/usr/bin/env bash
# Benchmarks of the task (operation) calls of gemba-cloud (release build) with wrk, on
# SQLite and PostgreSQL, beside GET /api/health in the same run (the ceiling):
#   - GET organization/task/            the whole list (TASKS tasks, each in full);
#   - GET organization/task/taskpage    one page of 10;
#   - GET organization/task/{id}/       one task;
#   - GET organization/task/{id}/history/  a history of HISTORY entries.
# All as an organisation user of an organisation with TASKS tasks of 12 steps. Prints
# a Markdown table (also target/bench/tasks.md; raw numbers target/bench/tasks.jsonl)
# and fails on any non-2xx answer. Not part of scripts/test.
# Settings: BENCH_SECONDS (default 10), BENCH_CONCURRENCY (default "1 8"),
# BENCH_BACKENDS (default "sqlite postgres"), TASKS (default 50), HISTORY (default 50).
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
apt_install wrk curl jq
SECONDS_EACH="${BENCH_SECONDS:-10}"
CONCURRENCY="${BENCH_CONCURRENCY:-1 8}"
BACKENDS="${BENCH_BACKENDS:-sqlite postgres}"
TASKS="${TASKS:-50}"
HISTORY="${HISTORY:-50}"

say "release build"
cargo build --release --locked -p gemba-cloud
GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
out="$ROOT/target/bench"
mkdir -p "$out"
: >"$out/tasks.jsonl"
work="$(mktemp -d)"
pg_db=""
finish() {
  local rc=$?
  stop_gemba
  if [ -n "$pg_db" ]; then
    psql -q "$GEMBA_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap finish EXIT

export GEMBA_REQUIRE_OTP=false GEMBA_ACCESS_TOKEN_TTL_SECS=3600 RUST_LOG=warn
export GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
PASSWORD=bench-user-1

json() { curl -fsS -H 'Content-Type: application/json' "$@"; }

# A task text of 12 steps in 2 processes, each step with 2 sub-steps.
task_text() {
  local i
  echo "$1"
  for i in $(seq 1 12); do
    printf 'Step %s:\nPick part %s;\nPlace part %s;\n' "$i" "$i" "$i"
    [ "$i" = 6 ] && echo "Pre-assembly~"
  done
  echo "Final assembly~"
}

# The organisation, its subscription, an org user, TASKS tasks, HISTORY changes of one.
seed() {
  local api="$1" outbox="$2" admin org feature i
  admin="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD" | jq -r .token)"
  org="$(json -X POST "$api/organization/" -H "Authorization: Bearer $admin" \
    -d '{"org_name_to_display": "Bench Works"}' | jq .id)"
  feature="$(json "$api/feature_control/feature/" -H "Authorization: Bearer $admin" |
    jq '.[] | select(.name == "Define Operation") | .id')"
  json -o /dev/null -X POST "$api/feature_control/subscribed_feature/" -H "Authorization: Bearer $admin" \
    -d "{\"Feature\": $feature, \"Organization\": $org}"
  gemba_create_user "$api" "$outbox" "$admin" engineer@bench.test "$PASSWORD" org_user "$org"
  TOKEN="$(gemba_login "$api" "$outbox" engineer@bench.test "$PASSWORD" | jq -r .token)"
  for i in $(seq 1 "$TASKS"); do
    TASK="$(task_text "Operation $i" | jq -Rs '{task_detail: .}' |
      json -X POST "$api/organization/task/" -H "Authorization: Bearer $TOKEN" -d @- | jq .id)"
  done
  for i in $(seq 1 "$HISTORY"); do
    json -o /dev/null -X PATCH "$api/organization/task/$TASK/" -H "Authorization: Bearer $TOKEN" \
      -d "{\"maximum_cycle_time\": $((600 + i))}"
  done
}

measure() {
  local backend="$1" name="$2" c="$3" url="$4" threads=2 line
  shift 4
  [ "$c" -ge 2 ] || threads=1
  line="$(env "$@" wrk -t "$threads" -c "$c" -d "${SECONDS_EACH}s" --timeout 10s --latency \
    -s "$ROOT/bench/wrk.lua" "$url" | sed -n 's/^BENCH_JSON //p')"
  [ -n "$line" ] || { echo "wrk gave no result for $name" >&2; return 1; }
  jq -c --arg b "$backend" --arg n "$name" --argjson c "$c" '{backend: $b, endpoint: $n, c: $c} + .' \
    <<<"$line" | tee -a "$out/tasks.jsonl"
}

for backend in $BACKENDS; do
  flags=()
  if [ "$backend" = postgres ]; then
    ensure_postgres
    pg_db="gemba_bench_tasks_$$"
    psql -q "$GEMBA_TEST_PG_URL" -c "CREATE DATABASE $pg_db" >/dev/null
    flags=(--database-url "${GEMBA_TEST_PG_URL%/*}/$pg_db")
  fi
  say "$backend: starting gemba-cloud, $TASKS tasks, $HISTORY history entries"
  start_gemba "$work/$backend/data" "${flags[@]}"
  api="$GEMBA_URL/api"
  seed "$api" "$work/$backend/data/outbox"
  [ "$(json "$api/organization/task/" -H "Authorization: Bearer $TOKEN" | jq length)" = "$TASKS" ]
  wrk -t 2 -c 8 -d 2s "$api/health" >/dev/null
  for c in $CONCURRENCY; do
    say "$backend: concurrency $c"
    measure "$backend" health "$c" "$api/health"
    measure "$backend" list "$c" "$api/organization/task/" BENCH_TOKEN="$TOKEN"
    measure "$backend" page "$c" "$api/organization/task/taskpage?page=1" BENCH_TOKEN="$TOKEN"
    measure "$backend" one "$c" "$api/organization/task/$TASK/" BENCH_TOKEN="$TOKEN"
    measure "$backend" history "$c" "$api/organization/task/$TASK/history/" BENCH_TOKEN="$TOKEN"
  done
  stop_gemba
  if [ -n "$pg_db" ]; then
    psql -q "$GEMBA_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null
    pg_db=""
  fi
done

{
  echo "gemba-cloud $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), release build;" \
    "$(nproc) cores, wrk on the same machine; ${SECONDS_EACH} s per measurement; $TASKS tasks of 12 steps," \
    "a history of $((HISTORY + 1)) entries; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| backend | conc. | health req/s | list ($TASKS) req/s | p50 / p99 ms | page (10) req/s | p50 / p99 ms | one req/s | p50 / p99 ms | history req/s | p50 / p99 ms | list / health | one / health |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  jq -s -r '
    def r: . * 10 | round / 10;
    def cell($e): "\($e.rps | round) | \($e.p50_ms | r) / \($e.p99_ms | r)";
    group_by([.backend, .c]) | sort_by(.[0].backend != "sqlite", .[0].c)[] |
    (map({(.endpoint): .}) | add) as $e |
    "| \($e.health.backend) | \($e.health.c) | \($e.health.rps | round) " +
    "| \(cell($e.list)) | \(cell($e.page)) | \(cell($e.one)) | \(cell($e.history)) " +
    "| \(($e.list.rps / $e.health.rps * 100) | round) % | \(($e.one.rps / $e.health.rps * 100) | round) % |"
  ' "$out/tasks.jsonl"
} | tee "$out/tasks.md"

bad="$(jq -s '[.[] | select(.non_2xx > 0 or .socket_errors > 0)] | length' "$out/tasks.jsonl")"
if [ "$bad" != 0 ]; then
  echo "$bad measurements had non-2xx answers or socket errors" >&2
  exit 1
fi
