#!/usr/bin/env bash
# The barcode decoder's cost per frame read on the agent (issue 31): a 640x480 grey
# frame with a QR code and one without, read as the camera reads them (QR code,
# DataMatrix, Code 128 in that order), and the grayscale copy of an RGB frame. rxing is
# built at opt-level 3 in every profile (Cargo.toml), so the dev build measures the
# decoder as shipped. Results: docs/benchmarks.md.
source "$(dirname "$0")/../scripts/lib.sh"
cd "$ROOT"
nice -n 10 cargo run -q -p gemba-agent --example barcode_bench -- "$@"
