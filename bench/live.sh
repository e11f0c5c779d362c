#!/usr/bin/env bash
# Live view (issue 29's benchmark): glass-to-glass latency read back from the `stamp`
# camera's frames in Debian's Chromium, directly and through the cloud's relay, and the
# agent's CPU with nobody, one and two viewers, and with a task running at 15 fps
# (web/e2e/bench/live.bench.ts). Release builds. SECONDS_EACH a phase (default 120).
# Results: target/bench/live.json, and docs/benchmarks.md. Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
ensure_node
ensure_chromium
ensure_models_tools
npm_ci_if_stale
build_web
[ -d "$ROOT/target/models/default" ] || build_models debug
if [ -z "${GEMBA_BIN:-}" ]; then
  say "release build"
  cargo build --release --locked -p gemba-cloud -p gemba-agent
  GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
  GEMBA_AGENT="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-agent"
fi
export GEMBA_BIN GEMBA_AGENT GEMBA_MODELS="$ROOT/target/models" SECONDS_EACH="${SECONDS_EACH:-120}"
say "live view: $SECONDS_EACH s a phase (load average $(cut -d' ' -f1-3 /proc/loadavg))"
(cd "$ROOT/web" && npx --no-install playwright test -c playwright.bench.config.ts --reporter=list live.bench.ts)
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$ROOT/target/bench/live.json"
