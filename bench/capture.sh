#!/usr/bin/env bash
# What the capture's recording branch costs the agent (edge-agent/examples/capture_bench.rs),
# side by side in one process on the demo footage decoded as fast as it goes: the
# capture chain without the branch, the capture with it closed (every camera, always),
# and the capture while it records. Output also in target/bench/capture.txt. Extra
# arguments go to the example (--frames N, --passes N). Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_models_tools
say "release build"
cargo build --release --locked -p gemba-agent --example capture_bench
build_models release
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/capture.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
"${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/capture_bench" \
  --footage "$GEMBA_MODELS/demo.mp4" "$@" | tee -a "$out"
