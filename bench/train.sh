#!/usr/bin/env bash
# Training time and quality (issue "The learning loop"): LABELLED_S seconds of the demo
# operation's synthetic footage (default 300: five labelled minutes, `models/demo.py
# --seed 3`) and the demo's 120 s held out (`--seed 2`), uploaded and labelled with
# their ground truth through the API as the portal does, then trained by the release
# `gemba-cloud serve` with the default recipe (PATCH organization/trained_task/{id}),
# RUNS times (default 2). Prints per run: seconds from start to the model version (the
# job's wait, fetching and decoding video, the epochs, scoring, storing), seconds per
# labelled minute, and the held-out frame accuracy and mean cycle-time error (also
# target/bench/train.txt). Each run trains twice, side by side: once as above, once with
# UNLABELLED_S more seconds of footage left unlabelled (default 120, `--seed 4`), which the
# new model labels for review (propagated labels); it prints what that costs per
# unlabelled minute and how often the propagated labels agree with the footage's truth
# (frames every 100 ms). Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
ensure_models_tools
apt_install curl jq
RUNS="${RUNS:-2}"
LABELLED_S="${LABELLED_S:-300}"
UNLABELLED_S="${UNLABELLED_S:-120}"
say "release build"
cargo build --release --locked -q -p gemba-cloud
GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
build_models release
work="$(mktemp -d)"
trap 'stop_gemba; rm -rf "$work"' EXIT
say "making ${LABELLED_S} s of labelled footage"
"$GEMBA_MODELS_PYTHON" "$ROOT/models/demo.py" --seed 3 --seconds "$LABELLED_S" --out "$work/labelled"
say "making ${UNLABELLED_S} s of footage to leave unlabelled"
"$GEMBA_MODELS_PYTHON" "$ROOT/models/demo.py" --seed 4 --seconds "$UNLABELLED_S" --out "$work/unlabelled"
export GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
start_gemba "$work/data"
api="$GEMBA_URL/api"
token="$(gemba_login "$api" "$work/data/outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD" | jq -r .token)"
mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/train.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; labelled ${LABELLED_S} s + 120 s held out" | tee "$out"
python3 - "$GEMBA_URL" "$token" "$RUNS" "$LABELLED_S" "$UNLABELLED_S" "$work/unlabelled" "$work/labelled" "$GEMBA_MODELS/demo" <<'PY' | tee -a "$out"
import http.client, json, os, sys, time, urllib.parse
base, token, runs, labelled_s, unlabelled_s, unlabelled, *footage = sys.argv[1:]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

def call(method, path, body=None, org=None, status=200):
    h = dict(auth, **({"Organization": str(org)} if org else {}))
    c.request(method, f"/api/{path}", json.dumps(body) if body is not None else None, h)
    r = c.getresponse(); v = json.loads(r.read() or b"null")
    assert r.status == status, (path, r.status, v)
    return v

features = {f["name"]: f["id"] for f in call("GET", "feature_control/feature/")}
detail = ("Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n"
          "Fasten screws:\nDrive;\nInspect:\nLook;\n")
def upload(org, task, stem, label):
    path = f"{stem}.mp4"
    size = os.path.getsize(path)
    v = call("POST", f"organization/task/videos/{task}", {"file_name": os.path.basename(path), "size_bytes": size}, org, 201)
    with open(path, "rb") as f:
        data = f.read()
    step, at = 4 << 20, 0
    while at < size:
        part = data[at:at + step]
        c.request("PUT", f"/api/organization/task_record/{v['id']}/content/", part,
                  {"Authorization": auth["Authorization"], "Organization": str(org),
                   "Content-Range": f"bytes {at}-{at + len(part) - 1}/{size}"})
        r = c.getresponse(); v = json.loads(r.read()); assert r.status == 200, v
        at += len(part)
    if label:
        truth = json.load(open(f"{stem}.truth.json"))
        end = v["duration_ms"]
        segs = [dict(g, end_ms=min(g["end_ms"], end)) for g in truth["segments"] if g["start_ms"] < end]
        call("PUT", f"organization/task_record/{v['id']}/labels/", {"segments": segs}, org)
    return v["id"]
def at(segments, t):
    return next((g["step"] for g in segments if g["start_ms"] <= t < g["end_ms"]), None)
def train(name, with_unlabelled):
    org = call("POST", "organization/", {"org_name_to_display": name}, status=201)["id"]
    for f in ["Define Operation", "Record Training Set"]:
        call("POST", "feature_control/subscribed_feature/",
             {"Feature": features[f], "Organization": org, "is_suppressed": False}, status=201)
    task = call("POST", "organization/task/", {"task_detail": detail}, org, 201)["id"]
    for stem in footage:
        upload(org, task, stem, True)
    extra = upload(org, task, unlabelled, False) if with_unlabelled else None
    t0 = time.perf_counter()
    call("PATCH", f"organization/trained_task/{task}", {"train_status": "training"}, org)
    while True:
        t = call("GET", f"organization/trained_task/{task}", org=org)
        if t["train_status"] != "training":
            break
        time.sleep(0.2)
    secs = time.perf_counter() - t0
    assert t["train_status"] == "trained", t
    agree = None
    if extra is not None:
        guessed = call("GET", f"organization/task_record/{extra}/labels/", org=org)
        assert guessed["propagated_from"] == t["model_version"]["version"], guessed
        truth = json.load(open(f"{unlabelled}.truth.json"))["segments"]
        times = range(0, guessed["duration_ms"], 100)
        agree = sum(at(guessed["segments"], x) == at(truth, x) for x in times) / len(times)
    return secs, t["model_version"]["metrics"], agree
for run in range(1, int(runs) + 1):
    secs, m, _ = train(f"Bench{chr(96 + run)}", False)
    per_min = secs / (float(labelled_s) / 60)
    print(f"run {run}: {secs:.1f} s to the model ({per_min:.1f} s per labelled minute, "
          f"{secs / 300:.2f} of the 5-minute target); held out: frame accuracy "
          f"{m['frame_accuracy']:.1%}, cycle-time error {m['cycle_time_error_share']:.2%}, "
          f"cycles {m['true_cycles']}/{m['found_cycles']}/{m['matched_cycles']}", flush=True)
    with_secs, _, agree = train(f"Benchp{chr(96 + run)}", True)
    print(f"run {run} with {unlabelled_s} s unlabelled: {with_secs:.1f} s to the model "
          f"({with_secs / secs:.2f} × the run without; "
          f"{(with_secs - secs) / (float(unlabelled_s) / 60):.1f} s per unlabelled minute); "
          f"propagated labels agree with the truth on {agree:.1%} of frames", flush=True)
PY
