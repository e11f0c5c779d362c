#!/usr/bin/env bash
# The portal end to end: Debian's Chromium (installed here if missing, never a
# downloaded browser) driven by Playwright through the built portal (web/dist), served
# by the real `gemba-cloud serve` on a temp SQLite data folder (web/e2e/global-setup.ts
# starts it). Closes on "e2e: N passed, M failed". GEMBA_BIN may name the binary.
# Extra arguments go to `playwright test` (e.g. a file or `-g 'labeler'`).
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_chromium
gemba_bin
export GEMBA_BIN
# The OpenID provider global-setup.ts starts for the single sign-on spec.
[ -d "$ROOT/tests/oidc/node_modules/oidc-provider" ] || npm_ci_oidc
# The built portal, rebuilt when a source is newer than it. GEMBA_E2E_DIST names
# another folder for it, so two checkouts' runs side by side do not share one build.
dist="${GEMBA_E2E_DIST:-$ROOT/web/dist}"
export GEMBA_E2E_DIST="$dist"
if [ ! -f "$dist/index.html" ] ||
  [ -n "$(find "$ROOT/web/src" "$ROOT/web/index.html" -newer "$dist/index.html" -print -quit)" ]; then
  build_web "$dist"
fi

# Playwright's report, kept: every test's duration (scripts/test-times.mjs).
json="${GEMBA_E2E_REPORT:-${CARGO_TARGET_DIR:-$ROOT/target}/e2e-report.json}"
rm -f "$json"
set +e
(cd "$ROOT/web" && PLAYWRIGHT_JSON_OUTPUT_NAME="$json" npx --no-install playwright test --reporter=list,json "$@")
rc=$?
set -e
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).stats;
  console.log(`e2e: ${r.expected + r.flaky} passed, ${r.unexpected} failed`);' "$json" \
  || echo "e2e: 0 passed, 1 failed"
exit "$rc"
