#!/usr/bin/env bash
# Roll-out (issue 30): the time from "move to prod" until every one of DEVICES simulated
# devices runs the new version, and the cloud's CPU for it (cloud/examples/rollout_bench.rs).
# The cloud (SQLite, embedded broker over TLS) runs in one process, the devices in a
# child (each an MQTT client with its own credentials that downloads the release of
# SIZE_MIB MiB through its signed URL, checks it and reports downloading, restarting,
# done); RUNS times. Also target/bench/rollout.txt. Not part of scripts/test. Settings:
# DEVICES (default 100), SIZE_MIB (default 16), RUNS (default 3).
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
say "release build"
cargo build --release --locked -p gemba-cloud --example rollout_bench
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/rollout_bench"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/rollout.txt"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
RUST_LOG=warn "$bin" "${DEVICES:-100}" "${SIZE_MIB:-16}" "${RUNS:-3}" | tee -a "$out"
