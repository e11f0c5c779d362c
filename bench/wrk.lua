-- wrk script for bench/run.sh: the request comes from the environment, and the run
-- ends with one machine-readable line.
--   BENCH_METHOD  GET (default) or POST
--   BENCH_BODY    request body (sent as application/json)
--   BENCH_TOKEN   bearer token (optional)
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.3f, "p99_ms": %.3f, ' ..
    '"non_2xx": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
