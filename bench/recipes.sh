#!/usr/bin/env bash
# Step-model recipes side by side (issue "A step model that survives a real station"):
# each recipe trained by models/train.py on the same footage, from the demo's 240 s
# (`demo.py --seed 1`, the default model's) and from only its first FEW cycles (default
# 5: the few-shot case), timed; then every model judged on every variant of the
# robustness suite (models/robustness.py: the held-out footage as a station varies it,
# through `gemba-agent eval`) and its inference cost per frame measured by ONNX Runtime
# on one thread. Settings: RECIPES (default "plain per-frame robust temporal"),
# SUITE_SECONDS (the suite's clip length, default 120), FEW (default 5), FEW_EPOCHS (the
# few-shot runs' epochs, default 12 as the cloud's), VARIANTS (default all), PROFILE (the
# agent's build, default release; the figures do not depend on it). Output:
# target/bench/recipes/table.md, results.json and log.txt. Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_rust
ensure_build_deps
ensure_models_tools
RECIPES="${RECIPES:-plain per-frame robust temporal}"
PROFILE="${PROFILE:-release}"
FEW_EPOCHS="${FEW_EPOCHS:-12}"
SUITE_SECONDS="${SUITE_SECONDS:-120}"
FEW="${FEW:-5}"
say "$PROFILE build"
flag=()
[ "$PROFILE" = release ] && flag=(--release)
cargo build "${flag[@]}" --locked -q -p gemba-agent
build_models "$PROFILE"
out="$ROOT/target/bench/recipes"
mkdir -p "$out"
PY="$GEMBA_MODELS_PYTHON"
train_set="$GEMBA_MODELS/demo-train.mp4:$GEMBA_MODELS/demo-train.truth.json"
few_set="$out/few.mp4:$out/few.truth.json"
# The same operator's day as the 240 s, cut after its FEW-th cycle (and the rest that
# follows it): the generator draws the same day for the same seed.
few_s="$("$PY" -c 'import json, sys; c = json.load(open(sys.argv[1]))["cycles"][int(sys.argv[2]) - 1]
print(round(c["end_ms"] / 1000 + 2.5, 1))' "$GEMBA_MODELS/demo-train.truth.json" "$FEW")"
say "making the few-shot footage: the first $FEW cycles ($few_s s)"
[ -f "$out/few.mp4" ] && [ "$(cat "$out/few.seconds" 2>/dev/null)" = "$few_s" ] ||
  { "$PY" "$ROOT/models/demo.py" --seed 1 --seconds "$few_s" --out "$out/few" && echo "$few_s" > "$out/few.seconds"; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/log.txt"
models=()
for r in $RECIPES; do
  for set in full few; do
    data="$train_set" epochs=12
    [ "$set" = few ] && data="$few_set" epochs="$FEW_EPOCHS"
    say "training $r on $set"
    start=$(date +%s.%N)
    "$PY" "$ROOT/models/train.py" --recipe "$r" --version "$r-$set" --train "$data" \
      --epochs "$epochs" --out "$out/$r-$set" 2>>"$out/log.txt"
    end=$(date +%s.%N)
    printf '%s on %s: trained in %.1f s\n' "$r" "$set" "$(echo "$end - $start" | bc)" | tee -a "$out/log.txt"
    "$PY" "$ROOT/bench/model_cost.py" "$out/$r-$set/model.onnx" | tee -a "$out/log.txt"
    models+=(--model "$r-$set=$out/$r-$set")
  done
done
say "the robustness suite"
variants=()
[ -n "${VARIANTS:-}" ] && variants=(--variants "$VARIANTS")
GEMBA_AGENT="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/gemba-agent" \
  "$PY" "$ROOT/models/robustness.py" "${models[@]}" "${variants[@]}" --seconds "$SUITE_SECONDS" \
  --json "$out/results.json" --markdown "$out/table.md"
say "table: $out/table.md"
