#!/usr/bin/env bash
# Analytics' render time in headless Chromium with 10,000 cycles behind it (issue 7's
# benchmark): web/e2e/bench/render.bench.ts against the release gemba-cloud (or
# GEMBA_BIN) on SQLite; by the hour (1,992 trend points) and by the day (83), alternately,
# RUNS times each (default 5). Results: target/bench/render.json, and docs/benchmarks.md.
# Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
ensure_node
ensure_chromium
npm_ci_if_stale
build_web
if [ -z "${GEMBA_BIN:-}" ]; then
  say "release build"
  cargo build --release --locked -p gemba-cloud
  GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
fi
export GEMBA_BIN RUNS="${RUNS:-5}"
say "Chromium: Analytics with 10,000 cycles, $RUNS runs a view (load average $(cut -d' ' -f1-3 /proc/loadavg))"
(cd "$ROOT/web" && npx --no-install playwright test -c playwright.bench.config.ts --reporter=list)
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$ROOT/target/bench/render.json"
