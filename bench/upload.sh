#!/usr/bin/env bash
# Upload throughput (issue "The learning loop"): a generated 1080p H.264 video (SIZE_S
# seconds, default 40, about 100 MB) uploaded to the release `gemba-cloud serve` as the
# portal does (4 MiB parts in order, one at a time, over one keep-alive connection; the
# last part includes reading the video and moving it into the object store), beside a
# plain file copy of the same file (cp, then sync) on the same disk, alternating, RUNS
# times (default 3). Prints MB/s of both and their ratio per run (also
# target/bench/upload.txt). Not part of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
source "$ROOT/tests/lib.sh"
ensure_rust
ensure_build_deps
apt_install curl jq gstreamer1.0-tools
RUNS="${RUNS:-3}"
SIZE_S="${SIZE_S:-40}"
say "release build"
cargo build --release --locked -q -p gemba-cloud
GEMBA_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gemba-cloud"
work="$(mktemp -d)"
trap 'stop_gemba; rm -rf "$work"' EXIT
video="$work/bench.mp4"
say "making a ${SIZE_S} s 1080p video"
gst-launch-1.0 -q videotestsrc num-buffers=$((SIZE_S * 25)) pattern=smpte \
  ! video/x-raw,width=1920,height=1080,framerate=25/1 \
  ! x264enc speed-preset=ultrafast bitrate=20000 ! mp4mux ! filesink location="$video"
export GEMBA_ADMIN_EMAIL=admin@bench.test GEMBA_ADMIN_PASSWORD=bench-admin-1
start_gemba "$work/data"
api="$GEMBA_URL/api"
token="$(gemba_login "$api" "$work/data/outbox" "$GEMBA_ADMIN_EMAIL" "$GEMBA_ADMIN_PASSWORD" | jq -r .token)"
auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
org="$(curl -fsS -X POST "$api/organization/" "${auth[@]}" -d '{"org_name_to_display": "Bench"}' | jq .id)"
feature="$(curl -fsS "$api/feature_control/feature/" "${auth[@]}" | jq '.[] | select(.name == "Record Training Set") | .id')"
curl -fsS -o /dev/null -X POST "$api/feature_control/subscribed_feature/" "${auth[@]}" \
  -d "{\"Feature\": $feature, \"Organization\": $org, \"is_suppressed\": false}"
task="$(curl -fsS -X POST "$api/organization/task/" "${auth[@]}" -H "Organization: $org" \
  -d '{"task_detail": "Bench\nFit:\nPlace;\nCheck:\nLook;\n"}' | jq .id)"

# Uploads $video in 4 MiB parts over one connection; prints the seconds it took.
upload() {
  python3 - "$GEMBA_URL" "$token" "$org" "$task" "$video" <<'PY'
import http.client, json, os, sys, time, urllib.parse
base, token, org, task, path = sys.argv[1:]
u = urllib.parse.urlparse(base)
c = http.client.HTTPConnection(u.hostname, u.port)
h = {"Authorization": f"Bearer {token}", "Organization": org}
size = os.path.getsize(path)
t0 = time.perf_counter()
c.request("POST", f"/api/organization/task/videos/{task}",
          json.dumps({"file_name": "bench.mp4", "size_bytes": size}), {**h, "Content-Type": "application/json"})
r = c.getresponse(); v = json.loads(r.read()); assert r.status == 201, v
step = 4 * 1024 * 1024
with open(path, "rb") as f:
    at = 0
    while at < size:
        part = f.read(step)
        c.request("PUT", f"/api/organization/task_record/{v['id']}/content/", part,
                  {**h, "Content-Range": f"bytes {at}-{at + len(part) - 1}/{size}",
                   "Content-Type": "application/octet-stream"})
        r = c.getresponse(); body = json.loads(r.read()); assert r.status == 200, body
        at += len(part)
assert body["status"] == "ready", body
print(f"{time.perf_counter() - t0:.3f}")
PY
}

copy() {
  local t0 t1
  t0="$(date +%s.%N)"
  cp "$video" "$work/copy.mp4"
  sync "$work/copy.mp4"
  t1="$(date +%s.%N)"
  rm -f "$work/copy.mp4"
  python3 -c "print(f'{$t1 - $t0:.3f}')"
}

mkdir -p "$ROOT/target/bench"
out="$ROOT/target/bench/upload.txt"
mb="$(python3 -c "print(round($(stat -c %s "$video") / 1e6, 1))")"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); video: $mb MB" | tee "$out"
for r in $(seq 1 "$RUNS"); do
  c="$(copy)"
  u="$(upload)"
  python3 -c "
c, u, mb = $c, $u, $mb
print(f'run $r: copy {mb / c:.0f} MB/s ({c:.2f} s), upload {mb / u:.0f} MB/s ({u:.2f} s), upload/copy {c / u:.2f}')" | tee -a "$out"
done
