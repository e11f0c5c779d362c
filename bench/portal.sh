#!/usr/bin/env bash
# Portal timings in headless Chromium against the release gemba-cloud (SQLite):
# the first-load size of the built portal (gzip), the time to an interactive login
# screen (cold and cached) and from signing in to the dashboard, as medians of
# BENCH_RUNS (default 10) runs (web/scripts/bench-portal.mjs). Prints a Markdown table
# (also target/bench/portal.md). Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
ensure_node
ensure_chromium
apt_install curl jq
RUNS="${BENCH_RUNS:-10}"

say "release build, portal build"
cargo build --release --locked -p gemba-cloud
GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
npm_ci_if_stale
build_web
size="$(cd web && node scripts/first-load-size.mjs)"

work="$(mktemp -d)"
trap 'stop_gemba; rm -rf "$work"' EXIT
# Password-only sign-in (the one-time code is measured by the e2e tests, not here).
export GEMBA_REQUIRE_OTP=false RUST_LOG=warn
export GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
start_gemba "$work/data"
# The portal at the base domain (`localhost`); organisations at {org}.localhost.
port="${GEMBA_URL##*:}"
api="$GEMBA_URL/api"
outbox="$work/data/outbox"
admin="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD" | jq -r .token)"
org="$(curl -fsS -X POST "$api/organization/" -H "Authorization: Bearer $admin" \
  -H 'Content-Type: application/json' -d '{"org_name_to_display": "Bench Works"}' | jq .id)"
gemba_create_user "$api" "$outbox" "$admin" owner@bench.test bench-user-1 org_admin "$org"

say "Chromium: $RUNS runs"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
results="$(cd web && node scripts/bench-portal.mjs "http://localhost:$port" owner@bench.test bench-user-1 "$RUNS")"
mkdir -p "$ROOT/target/bench"
{
  echo "gemba-cloud $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), release build, SQLite;" \
    "$(chromium --version 2>/dev/null | head -n 1) headless; $(nproc) cores; $RUNS runs each;" \
    "load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo '```text'
  echo "$size"
  echo '```'
  echo
  echo "| measurement | median ms | min ms | max ms |"
  echo "|---|---:|---:|---:|"
  jq -r '"| \(.measurement) | \(.median_ms) | \(.min_ms) | \(.max_ms) |"' <<<"$results"
} | tee "$ROOT/target/bench/portal.md"
