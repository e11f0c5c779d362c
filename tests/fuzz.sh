#!/usr/bin/env bash
# Fuzzes the API from its own OpenAPI document with schemathesis: a fresh
# `gemba-cloud serve` (free ports, temp data folder), a super admin signed in through
# the e-mail one-time code read from the outbox, then every operation of
# /api/openapi.json with generated valid and invalid input. The check: no answer is a
# server error (5xx; single sign-on's designed 501 aside) and the server never panics.
# Bounded: a fixed number of examples per operation and a fixed seed
# (tests/schemathesis.toml), so CI runs are reproducible; about a minute on 2 cores.
# GEMBA_BIN may name the binary (default: the debug build). FUZZ_ARGS adds options,
# e.g. FUZZ_ARGS="--seed 7 --max-examples 100" to explore further.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
apt_install curl jq
ensure_fuzz_tools

work="$(mktemp -d)"
finish() {
  local rc=$?
  stop_gemba
  if [ "$rc" != 0 ] && [ -f "${GEMBA_LOG:-}" ]; then
    echo "--- server log (errors):" >&2
    grep -E 'ERROR|panicked' "$GEMBA_LOG" | tail -n 20 >&2 || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap finish EXIT

say "fuzz: starting gemba-cloud"
export GEMBA_ADMIN_EMAIL=admin@fuzz.test GEMBA_ADMIN_PASSWORD=fuzz-admin-1
# Long enough access tokens for the whole run.
export GEMBA_ACCESS_TOKEN_TTL_SECS=3600
# The fuzzer is one client mailing hundreds of addresses: past the mail limits it would
# only see 429 (their defaults are tested in the API suite, hardening.rs).
export GEMBA_MAIL_LIMIT__PER_CLIENT_PER_HOUR=100000 GEMBA_MAIL_LIMIT__PER_ADDRESS_PER_HOUR=100000
start_gemba "$work/data"
api="$GEMBA_URL/api"

# Three sessions of the super admin, taken before the fuzzer can lock the address or
# change its sign-in: one for the run over every other operation, then one each for
# the two calls that end a session (logout) or may delete the admin itself, run last.
outbox="$work/data/outbox"
main="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD")"
for_logout="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD")"
for_delete="$(gemba_login "$api" "$outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD")"
LOGOUT="PATCH /account/logout/"
DELETE_ACCOUNT="DELETE /account/update-delete/{id}/"

passed=0
failed=0
fuzz() { # fuzz NAME LOGIN-ANSWER [schemathesis options…]
  local name="$1" login="$2"
  shift 2
  local rc=0
  # Run from the temp folder: hypothesis keeps its database in ./.hypothesis.
  (
    cd "$work"
    GEMBA_FUZZ_TOKEN="$(jq -r .token <<<"$login")" \
      GEMBA_FUZZ_SESSION="$(jq -r .session_key <<<"$login")" \
      "$FUZZ_VENV/bin/schemathesis" --no-color --config-file "$ROOT/tests/schemathesis.toml" \
      run "$api/openapi.json" --url "$api" --checks not_a_server_error --workers 2 \
      --report junit --report-junit-path "$work/$name.xml" "$@" ${FUZZ_ARGS:-}
  ) || rc=$?
  # One result per operation, from the JUnit report.
  local ops bad
  ops="$(grep -c '<testcase ' "$work/$name.xml" || true)"
  bad="$(grep -c '<failure\|<error' "$work/$name.xml" || true)"
  passed=$((passed + ops - bad))
  failed=$((failed + bad))
  [ "$rc" = 0 ] || [ "$bad" -gt 0 ] || failed=$((failed + 1))
}

say "fuzz: every operation but logout and account deletion"
fuzz main "$main" --exclude-name "$LOGOUT" --exclude-name "$DELETE_ACCOUNT"
say "fuzz: $LOGOUT"
fuzz logout "$for_logout" --include-name "$LOGOUT"
say "fuzz: $DELETE_ACCOUNT"
fuzz delete "$for_delete" --include-name "$DELETE_ACCOUNT"

if grep -q 'panicked' "$GEMBA_LOG"; then
  echo "the server panicked:" >&2
  grep -A3 'panicked' "$GEMBA_LOG" >&2
  failed=$((failed + 1))
fi
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
