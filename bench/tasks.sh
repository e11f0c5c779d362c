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
source "$ROOT/bench/lib.sh"
SECONDS_EACH="${BENCH_SECONDS:-10}"
CONCURRENCY="${BENCH_CONCURRENCY:-1 8}"
BACKENDS="${BENCH_BACKENDS:-sqlite postgres}"
TASKS="${TASKS:-50}"
HISTORY="${HISTORY:-50}"
bench_setup "$ROOT/target/bench/tasks.jsonl"
out="$ROOT/target/bench"
PASSWORD=bench-user-1

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

for backend in $BACKENDS; do
  say "$backend: starting gemba-cloud, $TASKS tasks, $HISTORY history entries"
  bench_start "$backend"
  api="$API"
  seed "$api" "$OUTBOX"
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
  bench_stop
done

{
  echo "gemba-cloud $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), release build;" \
    "$(nproc) cores, wrk on the same machine; ${SECONDS_EACH} s per measurement; $TASKS tasks of 12 steps," \
    "a history of $((HISTORY + 1)) entries; load average before $BENCH_LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
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

bench_check
