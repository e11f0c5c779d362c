#!/usr/bin/env bash
# Agent pipeline benchmark (issue "Edge agent"), all side by side in one process
# (edge-agent/examples/pipeline_bench.rs) on the demo footage (640×480 H.264) with the
# default model: GStreamer decode alone and ONNX inference alone (the ceilings), the
# whole pipeline (capture → inference → cycle engine → outbox) on one camera as fast as
# it goes; then cameras at 15 fps (real time) added one at a time while the slowest
# keeps ≥ 14 fps, and the process's RSS; then the real `gemba-agent run` binary, enrolled
# with a cloud, on 1 and 4 cameras at 15 fps: its RSS. RUNS times (default 3); output also in
# target/bench/pipeline.txt. Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_models_tools
RUNS="${RUNS:-3}"
say "release build"
cargo build --release --locked -p gemba-agent --example pipeline_bench
build_models release
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/pipeline_bench"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/pipeline.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
for i in $(seq 1 "$RUNS"); do
  echo "--- run $i" | tee -a "$out"
  RUST_LOG=warn "$bin" --footage "$GEMBA_MODELS/demo.mp4" --model "$GEMBA_MODELS/default" \
    --agent "${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-agent" "$@" | tee -a "$out"
done
