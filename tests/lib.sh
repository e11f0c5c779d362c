# shellcheck shell=bash
# Helpers for the system tests and benchmarks that run the real `gemba-cloud serve`
# binary from outside: start it on free ports with its own data folder, sign in
# through the e-mail one-time code read from the outbox, stop it. Sourced, not run
# (after scripts/lib.sh).

# The binary to test: $GEMBA_BIN, else the debug build (built now when missing or stale).
gemba_bin() {
  if [ -z "${GEMBA_BIN:-}" ]; then
    cargo build --locked -q -p gemba-cloud
    GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/gemba-cloud"
  fi
  [ -x "$GEMBA_BIN" ] || { echo "no gemba-cloud binary at $GEMBA_BIN" >&2; return 1; }
}

# A TCP port nobody listens on, with the next one free too (the embedded broker
# takes port and port+1).
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! port_open 127.0.0.1 "$p" && ! port_open 127.0.0.1 $((p + 1)); then
      echo "$p"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# start_gemba DATA_DIR [serve options…]: runs `gemba-cloud serve` with the data folder
# DATA_DIR on free ports and waits for GET /api/health. Sets GEMBA_PID, GEMBA_URL
# (http://127.0.0.1:PORT) and GEMBA_LOG. The super admin comes from
# GEMBA_ADMIN_EMAIL / GEMBA_ADMIN_PASSWORD as usual.
start_gemba() {
  local data="$1"
  shift
  gemba_bin
  local http mqtt
  http="$(free_port)"
  mqtt="$(free_port)"
  [ "$mqtt" != "$http" ] || mqtt="$(free_port)"
  mkdir -p "$data"
  GEMBA_LOG="$data.log"
  RUST_LOG="${RUST_LOG:-warn}" "$GEMBA_BIN" serve --data "$data" --http "127.0.0.1:$http" \
    --mqtt "127.0.0.1:$mqtt" "$@" >"$GEMBA_LOG" 2>&1 &
  GEMBA_PID=$!
  GEMBA_URL="http://127.0.0.1:$http"
  for _ in $(seq 1 300); do
    if curl -fsS -o /dev/null "$GEMBA_URL/api/health" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$GEMBA_PID" 2>/dev/null; then
      echo "gemba-cloud stopped at start:" >&2
      cat "$GEMBA_LOG" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "gemba-cloud did not answer /api/health within 30 s:" >&2
  cat "$GEMBA_LOG" >&2
  return 1
}

# Stops the server start_gemba started (only that process).
stop_gemba() {
  if [ -n "${GEMBA_PID:-}" ]; then
    kill "$GEMBA_PID" 2>/dev/null || true
    wait "$GEMBA_PID" 2>/dev/null || true
    GEMBA_PID=""
  fi
}

# The newest mail to $2 in the outbox folder $1 (its file name).
outbox_last() {
  grep -l "^To: $2" "$1"/*.eml | tail -n 1
}

# The 6-digit code of the newest mail to $2 in the outbox folder $1.
outbox_code() {
  sed -n 's/.*code is \([0-9]\{6\}\).*/\1/p' "$(outbox_last "$1" "$2")" | head -n 1
}

# The token of the verification link in the newest mail to $2 in the outbox folder $1.
outbox_verify_token() {
  grep -o 'verify-email/[A-Za-z0-9_-]*' "$(outbox_last "$1" "$2")" | tail -n 1 | cut -d/ -f2
}

# gemba_login API OUTBOX EMAIL PASSWORD: signs in (password, then the e-mail code from
# the outbox when one is required) and prints the full login answer (token, refresh,
# session_key, …).
gemba_login() {
  local api="$1" outbox="$2" email="$3" password="$4" login temp code
  login="$(curl -fsS -X POST "$api/account/login_v2" -H 'Content-Type: application/json' \
    -d "$(jq -n --arg e "$email" --arg p "$password" '{email: $e, password: $p}')")"
  if [ "$(jq -r .require_otp <<<"$login")" = false ]; then
    echo "$login"
    return 0
  fi
  temp="$(jq -r .token <<<"$login")"
  if [ "$(jq -r .receive_otp_on <<<"$login")" = null ]; then
    curl -fsS -o /dev/null -X PATCH "$api/account/set_mfa_method_email/" -H "Authorization: Bearer $temp"
  else
    curl -fsS -o /dev/null "$api/account/send_otp_code/" -H "Authorization: Bearer $temp"
  fi
  code="$(outbox_code "$outbox" "$email")"
  curl -fsS -X POST "$api/account/verify_otp_code/" -H "Authorization: Bearer $temp" \
    -H 'Content-Type: application/json' -d "{\"otp\": \"$code\"}"
}

# gemba_create_user API OUTBOX ADMIN_TOKEN EMAIL PASSWORD ROLE ORG: signs EMAIL up,
# verifies the address through the outbox link, approves it with the role named ROLE
# and assigns the organisation ORG (an id), as the super admin whose token is given.
gemba_create_user() {
  local api="$1" outbox="$2" admin="$3" email="$4" password="$5" role="$6" org="$7" role_id
  role_id="$(curl -fsS "$api/account/roles/" -H "Authorization: Bearer $admin" |
    jq --arg n "$role" '.[] | select(.name == $n) | .id')"
  curl -fsS -o /dev/null -X POST "$api/account/register" -H 'Content-Type: application/json' \
    -d "$(jq -n --arg e "$email" --arg p "$password" '{name: "Bench", lastname: "User", email: $e, password: $p}')"
  curl -fsS -o /dev/null -X PATCH "$api/account/verify-email/$(outbox_verify_token "$outbox" "$email")"
  curl -fsS -o /dev/null -X PUT "$api/account/approve_user" -H "Authorization: Bearer $admin" \
    -H 'Content-Type: application/json' -d "{\"email\": \"$email\", \"roleId\": $role_id}"
  curl -fsS -o /dev/null -X PUT "$api/account/assign_user_org" -H "Authorization: Bearer $admin" \
    -H 'Content-Type: application/json' -d "{\"email\": \"$email\", \"organization\": $org}"
}
