-- wrk script: POST a five-field multipart submission, each request from a
-- different client address (X-Forwarded-For, trusted from loopback), so
-- that the per-IP limit of 5 a minute stays out of the way as it would
-- for real visitors.
local boundary = "groundworkloadboundary"
local fields = {
  {"name", "Ann Example"},
  {"email", "ann@example.test"},
  {"phone", "+44 20 7946 0000"},
  {"topic", "support"},
  {"message", "Hello, I would like to know more about your product and its pricing."},
}
local parts = {}
for _, f in ipairs(fields) do
  parts[#parts + 1] = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"" .. f[1] .. "\"\r\n\r\n" .. f[2] .. "\r\n"
end
wrk.method = "POST"
wrk.body = table.concat(parts) .. "--" .. boundary .. "--\r\n"
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. boundary
wrk.headers["Accept"] = "application/json"

local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end

local n = 0
function request()
  n = n + 1
  -- A distinct address per request: 10.<thread>.<n / 256>.<n % 256>.
  local ip = string.format("10.%d.%d.%d", id % 256, math.floor(n / 256) % 256, n % 256)
  wrk.headers["X-Forwarded-For"] = ip
  return wrk.format()
end

function done(summary, latency, requests)
  io.write(string.format("requests: %d, non-2xx/3xx: %d, errors: %d\n", summary.requests,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  io.write(string.format("latency p50 %.2f ms, p99 %.2f ms\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
