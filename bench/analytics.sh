#!/usr/bin/env bash
# Analytics benchmark (issue "Analytics"): CYCLES cycles (default 1,000,000) over a year
# on STATIONS stations (default 20), stored as ingestion stores them, then
# GET telemetry/cycle_stats for a month of one station and a year of all stations:
# p50/p95 through HTTP and at the database, beside the same figures from the raw cycles
# alone in the same run (cloud/examples/analytics_bench.rs). On SQLite and PostgreSQL
# (BENCH_BACKENDS). Prints one line per case (also target/bench/analytics.txt). Not part
# of scripts/test: storing a million cycles takes minutes.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_postgres
say "release build"
cargo build --release --locked -p gemba-cloud --example analytics_bench
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/analytics_bench"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/analytics.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
for backend in ${BENCH_BACKENDS:-sqlite postgres}; do
  say "$backend"
  RUST_LOG=warn "$bin" "$backend" "${CYCLES:-1000000}" "${STATIONS:-20}" | tee -a "$out"
done
