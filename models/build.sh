#!/usr/bin/env bash
# Makes the demo footage and the default step-detection model, deterministically:
#   1. footage of the demo operation (models/demo.py): a training clip (seed 1) and a
#      held-out clip (seed 2), each with its ground truth;
#   2. the model, trained on the first by the project's training code (models/train.py);
#   3. its evaluation on the held-out clip through the agent's own pipeline
#      (gemba-agent eval: GStreamer, ONNX Runtime, the cycle engine);
#   4. the robustness suite's short cut (models/robustness.py --variants ci): the model
#      on the held-out footage as a station varies it (light, camera, operator…);
#   5. the model card with those numbers.
# Writes to $GEMBA_MODELS (default target/models); skips what is already there.
# Needs: gst-launch-1.0 with x264enc, the Python venv with numpy/onnx/onnxruntime
# (scripts/lib.sh ensure_models sets both up), and a built gemba-agent ($GEMBA_AGENT).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${GEMBA_MODELS:-$ROOT/target/models}"
PY="${GEMBA_MODELS_PYTHON:-python3}"
AGENT="${GEMBA_AGENT:-$ROOT/target/debug/gemba-agent}"
TRAIN_S="${GEMBA_DEMO_TRAIN_SECONDS:-240}"
HOLDOUT_S="${GEMBA_DEMO_HOLDOUT_SECONDS:-120}"
mkdir -p "$OUT"
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

SUITE_S="${GEMBA_SUITE_SECONDS:-40}"
stamp="train=$TRAIN_S holdout=$HOLDOUT_S suite=$SUITE_S $(cat "$ROOT/models/demo.py" "$ROOT/models/train.py" "$ROOT/models/recipe.py" "$ROOT/models/robustness.py" "$ROOT/models/build.sh" "$ROOT/edge-agent/src/eval.rs" | sha256sum | cut -c1-16)"
if [ -f "$OUT/default/model.onnx" ] && [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$stamp" ]; then
  say "demo footage and default model are up to date in $OUT"
  exit 0
fi
rm -f "$OUT/.stamp"

say "generating demo footage: ${TRAIN_S}s to train on, ${HOLDOUT_S}s held out (both at once)"
"$PY" "$ROOT/models/demo.py" --seed 1 --seconds "$TRAIN_S" --out "$OUT/demo-train" &
train_pid=$!
"$PY" "$ROOT/models/demo.py" --seed 2 --seconds "$HOLDOUT_S" --out "$OUT/demo" &
holdout_pid=$!
wait "$train_pid"
wait "$holdout_pid"

say "training the default model"
"$PY" "$ROOT/models/train.py" --version demo-1 \
  --train "$OUT/demo-train.mp4:$OUT/demo-train.truth.json" \
  --holdout "$OUT/demo.mp4:$OUT/demo.truth.json" \
  --out "$OUT/default"

say "evaluating it on the held-out footage through the agent's pipeline"
"$AGENT" eval --model "$OUT/default" --video "$OUT/demo.mp4" --truth "$OUT/demo.truth.json" > "$OUT/default/eval.json"

say "judging it on the robustness suite's short cut (${SUITE_S}s per variant)"
GEMBA_AGENT="$AGENT" "$PY" "$ROOT/models/robustness.py" --model "default=$OUT/default" \
  --variants ci --seconds "$SUITE_S" --footage "$OUT/suite" \
  --json "$OUT/default/robustness.json" --markdown "$OUT/default/robustness.md" > /dev/null

"$PY" - "$OUT/default" "$TRAIN_S" "$HOLDOUT_S" "$OUT/demo.truth.json" "$SUITE_S" > "$OUT/default/MODEL_CARD.md" <<'PYEOF'
import json, sys
d, train_s, holdout_s, truth, suite_s = sys.argv[1:]
robust = open(f"{d}/robustness.md").read().strip()
t = json.load(open(f"{d}/train.json"))
e = json.load(open(f"{d}/eval.json"))
print(f"""# Model card: {t['version']} (the default step-detection model)

Made by `models/build.sh` (numbers from that run; the build is deterministic).

- **What it does:** tells, for each frame of a workstation camera, which step of the demo
  operation "Assemble sensor" is being done ({', '.join(t['labels'][:-1])}) or none
  (background).
- **Input:** an RGB frame scaled to {t['input'][0]}×{t['input'][1]} by the agent's GStreamer pipeline.
- **Architecture:** the robust recipe (`models/recipe.py`, chosen by measurement:
  docs/benchmarks.md "Step-model recipes"): in the graph, each frame's colour channels
  divided by their mean over the frame and each pixel's distance from the still bench;
  a multilayer perceptron (one hidden layer) per frame{'' if t.get('window', 1) == 1 else f",{chr(10)}  and a head over the {'step probabilities' if t.get('head_input') == 'probs' else 'hidden layers'} of the last {t['window']} frames"};
  trained with the frames moved, turned, zoomed, relit, recoloured where the operator
  is, cluttered, blurred and noised. ONNX opset 18, trained by `models/train.py` (numpy).
- **Training data:** {train_s} s of synthetic footage (`models/demo.py --seed 1`),
  {t['train_frames']} frames; training frame accuracy {t['train_accuracy']:.1%}.
- **Held-out evaluation:** {holdout_s} s of other synthetic footage (`--seed 2`), never
  seen in training, through the agent's own pipeline (`gemba-agent eval`):

| measure | value |
|---|---|
| frame accuracy | {e['frame_accuracy']:.1%} |
| cycles (reference / found / matched) | {e['true_cycles']} / {e['found_cycles']} / {e['matched']} |
| mean cycle-time error | {e['cycle_time_error_s']:.2f} s ({e['cycle_time_error_share']:.2%}) |
| good/bad verdict agreement with the reference | {e['verdict_agreement']:.0%} |
| the engine on the true labels: cycles as performed found, verdicts right | {e['performed_cycles_found']} of {len(json.load(open(truth))['cycles'])}, {e['performed_verdict_agreement']:.0%} |

The reference cycles are the cycle engine's over the true labels, so the error measures
the model, not the definition of a cycle.

- **Robustness** (the suite's short cut: {suite_s} s of the held-out footage per variant,
  as a station varies it, none of it trained on; `models/robustness.py`; the whole suite
  is in docs/benchmarks.md). Per variant: frame accuracy · cycles matched/true ·
  cycle-time error · verdict agreement.

{robust}

- **Limits:** it knows only the synthetic bench it was trained on: one operation, fixed
  bins. It is a demonstration and a test fixture, not a model for a real station; those
  are trained from the station's own labelled video with the same recipe.""")
PYEOF
echo "$stamp" > "$OUT/.stamp"
say "model card: $OUT/default/MODEL_CARD.md"
cat "$OUT/default/eval.json" >&2
