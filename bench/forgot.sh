#!/usr/bin/env bash
# Does forgot_password's answer time tell known addresses from unknown ones? Sends
# ROUNDS requests for an address with an account (the super admin's) and as many for
# addresses without one, alternating, to one gemba-cloud on SQLite, and prints each
# side's median, 10th and 90th percentile and the ratio of the medians (known/unknown).
# The mail limits are raised for the run. GEMBA_BIN picks the binary (default: the
# debug build; the padding it measures does not depend on the build). Not part of
# scripts/test. Settings: ROUNDS (default 60).
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ROUNDS="${ROUNDS:-60}"
work="$(mktemp -d)"
trap 'stop_gemba; rm -rf "$work"' EXIT
export RUST_LOG=warn GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
export GEMBA_MAIL_LIMIT__PER_ADDRESS_PER_HOUR=100000 GEMBA_MAIL_LIMIT__PER_CLIENT_PER_HOUR=100000
start_gemba "$work/data"
api="$GEMBA_URL/api/account/forgot_password/"

# One request for $1; prints its time in milliseconds.
ask() {
  curl -fsS -o /dev/null -w '%{time_total}\n' -X PATCH "$api" \
    -H 'Content-Type: application/json' -d "{\"email\": \"$1\"}" | awk '{ printf "%.1f\n", $1 * 1000 }'
}

: >"$work/known" && : >"$work/unknown"
for i in $(seq 1 "$ROUNDS"); do
  ask "$GEMBA_ADMIN_EMAIL" >>"$work/known"
  ask "nobody-$i@bench.test" >>"$work/unknown"
done
mails="$(find "$work/data/outbox" -name '*.eml' | wc -l)"

# median, p10, p90 of the numbers in file $1
stats() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)], v[int(NR * 0.1) + 1], v[int(NR * 0.9)] }'
}
read -r km k10 k90 <<<"$(stats "$work/known")"
read -r um u10 u90 <<<"$(stats "$work/unknown")"
echo "| address | requests | median ms | p10 ms | p90 ms |"
echo "|---|---|---|---|---|"
echo "| with an account | $ROUNDS | $km | $k10 | $k90 |"
echo "| without one | $ROUNDS | $um | $u10 | $u90 |"
echo "ratio of the medians (known / unknown): $(awk -v a="$km" -v b="$um" 'BEGIN { printf "%.3f", a / b }')"
echo "reset mails written: $mails (expected $ROUNDS)"
