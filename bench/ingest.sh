#!/usr/bin/env bash
# Ingestion benchmark (issue "Edge agent"): DEVICES simulated devices publish CYCLES
# signed cycles each (QoS 1) through an embedded broker; measured for the broker alone
# (one subscriber counting: the ceiling) and into gemba-cloud (until every cycle is a
# row: plain MQTT, then over TLS with each device its certificate), on SQLite and on
# PostgreSQL, with publish-to-row latency p50/p99. All in one
# process per run, side by side (cloud/examples/ingest_bench.rs). Prints one line per
# backend and run (also target/bench/ingest.txt). Not part of scripts/test.
# Then the same devices publishing at RATE cycles/s in all (default 5000, below
# saturation), PACED_CYCLES each (default 2500): the latency a steady load sees.
# Settings: DEVICES (default 20), CYCLES (default 500), RUNS (default 3),
# BENCH_BACKENDS (default "sqlite postgres"), RATE.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_postgres
DEVICES="${DEVICES:-20}"
CYCLES="${CYCLES:-500}"
RUNS="${RUNS:-3}"
say "release build"
cargo build --release --locked -p gemba-cloud --example ingest_bench
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/ingest_bench"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/ingest.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
for backend in ${BENCH_BACKENDS:-sqlite postgres}; do
  for _ in $(seq 1 "$RUNS"); do
    RUST_LOG=warn "$bin" "$backend" "$DEVICES" "$CYCLES" | tee -a "$out"
  done
done
for backend in ${BENCH_BACKENDS:-sqlite postgres}; do
  RUST_LOG=warn "$bin" "$backend" "$DEVICES" "${PACED_CYCLES:-2500}" "${RATE:-5000}" | tee -a "$out"
done
