#!/usr/bin/env bash
# Lighthouse on the portal (issue 33): the login screen and the Dashboard of a signed-in
# organisation admin with a day of cycles, in Lighthouse's default mobile profile
# (simulated slow 4G and 4× CPU slowdown), on Debian's Chromium (no browser download),
# against gemba-cloud serving the built portal (web/e2e/bench/lighthouse.bench.ts does
# the set-up and sign-in; bench/lighthouse/run.mjs runs Lighthouse). Lighthouse lives in
# bench/lighthouse/ with its own package-lock.json, so the portal's `npm ci` does not
# carry it. Targets: accessibility and best practices >= 95, performance >= 90.
# Each page is audited GEMBA_LIGHTHOUSE_RUNS times (3 unless set): prints a Markdown
# table of every run and each page's median (also target/bench/lighthouse.md); each
# run's full report is in target/bench/lighthouse/ (.html, .json). Release build unless
# GEMBA_BIN names a binary. GEMBA_E2E_DIST names the portal's build folder; with
# GEMBA_LIGHTHOUSE_BUILT=1 that build is audited as it is (two builds side by side).
# Not part of scripts/test. Results: docs/benchmarks.md.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_node
ensure_chromium
apt_install jq
if [ -z "${GEMBA_BIN:-}" ]; then
  ensure_rust
  ensure_build_deps
  say "release build"
  cargo build --release --locked -p gemba-cloud
  GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
fi
export GEMBA_BIN
npm_ci_if_stale
[ -d "$ROOT/tests/oidc/node_modules/oidc-provider" ] || npm_ci_oidc
dist="${GEMBA_E2E_DIST:-$ROOT/web/dist}"
export GEMBA_E2E_DIST="$dist"
[ "${GEMBA_LIGHTHOUSE_BUILT:-}" = 1 ] && [ -f "$dist/index.html" ] || build_web "$dist"
say "Lighthouse (bench/lighthouse)"
(cd "$ROOT/bench/lighthouse" && npm ci --no-audit --no-fund --loglevel=error)

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$ROOT/web" && npx --no-install playwright test -c playwright.bench.config.ts --reporter=list lighthouse.bench.ts)
results="$ROOT/target/bench/lighthouse.json"
{
  echo "gemba-cloud $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') ($(basename "$(dirname "$GEMBA_BIN")") build), SQLite;" \
    "Lighthouse $(jq -r '.[0].lighthouse' "$results"), mobile profile; $(chromium --version 2>/dev/null | head -n 1) headless;" \
    "$(nproc) cores; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| page | run | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS | benchmark index | load average |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  jq -r '.[] | "| \(.page) | \(.run) | \(.performance) | \(.accessibility) | \(.best_practices) | \(.seo) | \(.fcp_ms) | \(.lcp_ms) | \(.tbt_ms) | \(.cls) | \(.benchmark_index) | \(.load) |"' "$results"
  # Each column's median over a page's runs (the middle one; the lower of the two middle
  # ones for an even count).
  jq -r 'def med: sort | .[(length - 1) / 2 | floor];
    group_by(.page)[] | . as $r
    | "| **\(.[0].page)** | median of \(length) | " + ([("performance", "accessibility", "best_practices", "seo", "fcp_ms", "lcp_ms", "tbt_ms", "cls", "benchmark_index") as $k | $r | map(.[$k]) | med | tostring] | join(" | ")) + " | |"' "$results"
  echo
  jq -r '.[] | "- \(.run): largest contentful paint: \(.lcp_element); points lost: " + ([.lost | to_entries[] | select(.value | length > 0) | "\(.key) \(.value | join(", "))"] | join("; ") | if . == "" then "none" else . end) + (if (.warnings | length) > 0 then "; warnings: " + (.warnings | join(" ")) else "" end)' "$results"
} | tee "$ROOT/target/bench/lighthouse.md"
