#!/usr/bin/env bash
# The Kaizen assistant's retrieval with the passage embedder (issue 32): passages
# embedded a second, and a question's retrieval with 1,000 and 10,000 passages stored, on
# SQLite (cloud/examples/assistant_retrieval_bench.rs). Builds the embedder first
# (scripts/lib.sh build_embedder). PROFILE=debug measures the debug build (the tests').
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_models_tools
export GEMBA_MODELS="${GEMBA_MODELS:-$ROOT/target/models}"
build_embedder
profile="${PROFILE:-release}" flag=()
[ "$profile" = release ] && flag=(--release)
say "$profile build"
cargo build --locked "${flag[@]}" -p gemba-cloud --example assistant_retrieval_bench
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/assistant.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
RUST_LOG=warn "${CARGO_TARGET_DIR:-$ROOT/target}/$profile/examples/assistant_retrieval_bench" \
  "$GEMBA_ASSISTANT__EMBEDDING_MODEL" | tee -a "$out"
