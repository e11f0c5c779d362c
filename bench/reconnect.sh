#!/usr/bin/env bash
# Reconnect storm (issue 28): DEVICES enrolled devices connect to the embedded broker all
# at once, as after a broker restart, each logging in as itself (the cloud checks its
# key): over plain MQTT, over TLS (each device its certificate and tenant), and on a
# rumqttd without the login check, in turn, RUNS times (cloud/examples/reconnect_bench.rs).
# Prints seconds until every device has its CONNACK and CPU per connection for each
# (also target/bench/reconnect.txt). Not part of scripts/test. Settings: DEVICES
# (default 1000), RUNS (default 3).
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
say "release build"
cargo build --release --locked -p gemba-cloud --example reconnect_bench
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/reconnect_bench"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/reconnect.txt"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
RUST_LOG=warn "$bin" "${DEVICES:-1000}" "${RUNS:-3}" | tee -a "$out"
