#!/usr/bin/env bash
# tests/walkthrough.sh [DOC]: keeps a walkthrough doc true (DOC, by default
# docs/identity-walkthrough.md; also the operations and devices walkthroughs): starts a fresh `gemba-cloud serve` (free
# ports, a temp data folder, the README's default super admin) and runs the doc's
# commands, exactly as written, against it:
#   - every ```sh block, in order, in one bash shell (variables carry over), from the
#     folder that holds the server's data/, so `data/outbox` is its outbox;
#   - a ```json or ```text block right after a ```sh block is its answer: the output
#     must match it. JSON: objects may hold more fields than shown and "…" matches
#     any value. Text: line by line (carriage returns dropped), "…" matches any run
#     of characters;
#   - a ```sh block that prints something must be followed by its answer;
#   - every curl call must answer 2xx (curl runs with --fail-with-body), except one
#     that prints its status itself (`-w '%{http_code}'`), which its answer checks;
#   - ```shell blocks are shown only (they start the server and set $API, which this
#     script does itself).
# Any other output, a non-2xx answer or a failing command fails the walkthrough.
# Needs bash, curl and jq. GEMBA_BIN may name the binary (default: the debug build).
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
apt_install curl jq

DOC="$(realpath "${1:-$ROOT/docs/identity-walkthrough.md}")"
work="$(mktemp -d)"
current=""
finish() {
  local rc=$?
  stop_gemba
  if [ "$rc" != 0 ] && [ -n "$current" ]; then
    echo "walkthrough: FAILED at the block starting on line $current of $DOC" >&2
    [ -s "$work/out" ] && { echo "--- its output:" >&2; cat "$work/out" >&2; }
    [ -f "${GEMBA_LOG:-}" ] && { echo "--- server log (tail):" >&2; tail -n 20 "$GEMBA_LOG" >&2; }
  fi
  rm -rf "$work"
  exit "$rc"
}
trap finish EXIT

# Split the doc into numbered blocks: $work/blocks/NNNN.{sh,json} with the doc line.
mkdir -p "$work/blocks"
awk -v dir="$work/blocks" '
  /^```/ && !inblock {
    lang = substr($0, 4); n++; inblock = 1
    kind = (lang == "sh" || lang == "json" || lang == "text") ? lang : "skip"
    file = sprintf("%s/%04d.%s", dir, n, kind)
    printf "" > file
    print NR > (file ".line")
    next
  }
  /^```$/ && inblock { inblock = 0; close(file); next }
  inblock { print > file }
' "$DOC"
ls "$work/blocks"/*.sh >/dev/null 2>&1 || { echo "no sh blocks in $DOC" >&2; exit 1; }

say "walkthrough of ${DOC#"$ROOT"/}: starting gemba-cloud"
export GEMBA_ADMIN_EMAIL=admin@gemba.local GEMBA_ADMIN_PASSWORD=gemba-admin-1
# The links in the mails read as on the README's defaults (port 8080).
export GEMBA_PUBLIC_URL=http://localhost:8080
start_gemba "$work/data"
# The agent's command line, for the docs that enrol a device (built here unless the
# caller built the workspace: scripts/lib.sh build_models).
[ -n "${GEMBA_WORKSPACE_BUILT:-}" ] || cargo build --locked -q -p gemba-agent
PATH="${CARGO_TARGET_DIR:-$ROOT/target}/debug:$PATH"
API="$GEMBA_URL/api"
cd "$work"

# Every curl of the doc fails on a non-2xx answer, printing the body, unless it prints
# the status itself.
curl() {
  case " $* " in
    *" -w "* | *" --write-out "*) command curl "$@" ;;
    *) command curl --fail-with-body "$@" ;;
  esac
}

# Does the JSON stream in file $1 match the documented answer in file $2?
matches() {
  local verdict
  verdict="$(jq -n --slurpfile got "$1" --slurpfile want "$2" '
    def like($w):
      if $w == "…" then true
      elif ($w | type) == "object" then
        type == "object" and (. as $g | all($w | to_entries[]; . as $e |
          ($g | has($e.key)) and ($g[$e.key] | like($e.value))))
      elif ($w | type) == "array" then
        type == "array" and length == ($w | length) and
          (. as $g | all(range(0; $w | length); . as $i | $g[$i] | like($w[$i])))
      else . == $w end;
    $got | like($want)' 2>&1)" || return 1
  [ "$verdict" = true ]
}

# Does the text in file $1 match the documented answer in file $2?
text_matches() {
  local -a got want
  local i pat rest
  mapfile -t got < <(tr -d '\r' <"$1")
  mapfile -t want <"$2"
  [ "${#got[@]}" -eq "${#want[@]}" ] || return 1
  for i in "${!want[@]}"; do
    pat=""
    rest="${want[$i]}"
    while [[ $rest == *…* ]]; do
      pat+="$(printf '%q' "${rest%%…*}")*"
      rest="${rest#*…}"
    done
    pat+="$(printf '%q' "$rest")"
    eval "[[ \${got[$i]} == $pat ]]" || return 1
  done
}

pending=""   # output of the last sh block, waiting for its answer
blocks=0
for f in "$work/blocks"/*; do
  case "$f" in *.line) continue ;; esac
  line="$(cat "$f.line")"
  case "$f" in
    *.sh)
      if [ -n "$pending" ]; then
        current="$pending"
        echo "the block's output has no answer in the doc" >&2
        exit 1
      fi
      current="$line"
      blocks=$((blocks + 1))
      # shellcheck disable=SC1090
      source "$f" >"$work/out"
      [ -s "$work/out" ] && pending="$line"
      ;;
    *.json | *.text)
      if [ -z "$pending" ]; then
        current="$line"
        echo "an answer with no output before it" >&2
        : >"$work/out"
        exit 1
      fi
      case "$f" in
        *.json) matches "$work/out" "$f" && ok=1 || ok="" ;;
        *) text_matches "$work/out" "$f" && ok=1 || ok="" ;;
      esac
      if [ -z "$ok" ]; then
        current="$pending"
        echo "--- the doc expects (line $line):" >&2
        cat "$f" >&2
        exit 1
      fi
      pending=""
      ;;
  esac
done
if [ -n "$pending" ]; then
  current="$pending"
  echo "the last block's output has no answer in the doc" >&2
  exit 1
fi
current=""
echo "walkthrough: $blocks passed, 0 failed"
