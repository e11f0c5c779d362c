#!/usr/bin/env bash
# Live view of a network camera (issue 29): the agent's CPU reading an RTSP camera
# (GStreamer's RTSP server in its own process, 640 × 480 constrained baseline H.264 at
# 15 fps) with nobody watching, with a viewer of its own H.264 passed through, and with
# a viewer while a blur region makes the device encode, side by side in alternating
# passes (edge-agent/examples/live_bench.rs). Release build. Arguments go to the bench
# (--seconds a pass, default 20; --passes, default 3). Results:
# target/bench/live_rtsp.json, and docs/benchmarks.md. Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
say "release build"
cargo build --release --locked -p gemba-agent --example rtsp_camera --example live_bench
mkdir -p "$ROOT/target/bench"
say "live view of an RTSP camera (load average $(cut -d' ' -f1-3 /proc/loadavg))"
"${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/live_bench" "$@" | tee "$ROOT/target/bench/live_rtsp.json"
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
