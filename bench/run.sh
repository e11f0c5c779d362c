#!/usr/bin/env bash
# Benchmarks of gemba-cloud (release build) with wrk, on SQLite and on PostgreSQL:
#   - GET /api/health: the ceiling (routing, one trivial query);
#   - GET /api/account/get-permissions/ as the super admin: authentication alone (the
#     token, its session and its user: two queries);
#   - GET /api/account/users_list/v2 as an organisation admin (a full page of 10 of the
#     organisation's 25 users): the cost of an authenticated, tenant-scoped call;
#   - POST /api/account/login_v2: bounded by the password KDF (argon2id).
# Each at several concurrencies, all three against the same server in the same run.
# Prints a Markdown table (also written to target/bench/results.md, raw numbers to
# target/bench/results.jsonl) and fails on any non-2xx answer or socket error.
# Slow (about 4 minutes with the defaults); not part of scripts/test.
# Settings by environment: BENCH_SECONDS (per measurement, default 10),
# BENCH_CONCURRENCY (default "1 8 32"), BENCH_BACKENDS (default "sqlite postgres").
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
source "$ROOT/bench/lib.sh"
SECONDS_EACH="${BENCH_SECONDS:-10}"
CONCURRENCY="${BENCH_CONCURRENCY:-1 8 32}"
BACKENDS="${BENCH_BACKENDS:-sqlite postgres}"
USERS=25
bench_setup "$ROOT/target/bench/results.jsonl"
out="$ROOT/target/bench"
PASSWORD=bench-user-1


# One organisation with $USERS users (signed up, verified through the outbox link,
# approved, assigned); user 1 is its organisation admin.
seed() {
  local api="$1" outbox="$2" admin org i
  admin="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD" | jq -r .token)"
  org="$(json -X POST "$api/organization/" -H "Authorization: Bearer $admin" \
    -d '{"org_name_to_display": "Bench Works"}' | jq .id)"
  for i in $(seq -w 1 "$USERS"); do
    gemba_create_user "$api" "$outbox" "$admin" "user$i@bench.test" "$PASSWORD" \
      "$([ "$i" = 01 ] && echo org_admin || echo org_user)" "$org"
  done
  ADMIN_TOKEN="$admin"
}

for backend in $BACKENDS; do
  say "$backend: starting gemba-cloud, $USERS users"
  bench_start "$backend"
  api="$API"
  outbox="$OUTBOX"
  seed "$api" "$outbox"
  token="$(gemba_login "$api" "$outbox" user01@bench.test "$PASSWORD" | jq -r .token)"
  body="{\"email\": \"user02@bench.test\", \"password\": \"$PASSWORD\"}"
  # Check each call once before loading it.
  json -o /dev/null "$api/account/users_list/v2" -H "Authorization: Bearer $token"
  json -o /dev/null "$api/account/get-permissions/" -H "Authorization: Bearer $ADMIN_TOKEN"
  json -o /dev/null -X POST "$api/account/login_v2" -d "$body"
  # Warm up (connections, caches), not recorded.
  wrk -t 2 -c 8 -d 2s "$api/health" >/dev/null
  for c in $CONCURRENCY; do
    say "$backend: concurrency $c"
    measure "$backend" health "$c" "$api/health"
    measure "$backend" auth_only "$c" "$api/account/get-permissions/" BENCH_TOKEN="$ADMIN_TOKEN"
    measure "$backend" users_list "$c" "$api/account/users_list/v2" BENCH_TOKEN="$token"
    measure "$backend" login "$c" "$api/account/login_v2" BENCH_METHOD=POST BENCH_BODY="$body"
  done
  bench_stop
done

kdf="$(sed -n '/^\[kdf\]/,/^$/p' "$ROOT/deploy/gemba-cloud.example.toml" | grep -E '^[a-z_]+ =' |
  sed 's/ //g' | paste -sd, - | sed 's/,/, /g')"
{
  echo "gemba-cloud $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), release build;" \
    "$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), wrk on the same machine;" \
    "${SECONDS_EACH} s per measurement; argon2id $kdf;" \
    "load average before the run $BENCH_LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| backend | conc. | health req/s | p50 / p99 ms | auth only req/s | p50 / p99 ms | users_list/v2 req/s | p50 / p99 ms | list / health | login_v2 req/s | p50 / p99 ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  jq -s -r '
    def r: . * 10 | round / 10;
    group_by([.backend, .c]) | sort_by(.[0].backend != "sqlite", .[0].c)[] |
    (map({(.endpoint): .}) | add) as $e |
    "| \($e.health.backend) | \($e.health.c) " +
    "| \($e.health.rps | round) | \($e.health.p50_ms | r) / \($e.health.p99_ms | r) " +
    "| \($e.auth_only.rps | round) | \($e.auth_only.p50_ms | r) / \($e.auth_only.p99_ms | r) " +
    "| \($e.users_list.rps | round) | \($e.users_list.p50_ms | r) / \($e.users_list.p99_ms | r) " +
    "| \(($e.users_list.rps / $e.health.rps * 100) | round) % " +
    "| \($e.login.rps | round) | \($e.login.p50_ms | r) / \($e.login.p99_ms | r) |"
  ' "$out/results.jsonl"
} | tee "$out/results.md"

bench_check
