-- wrk script: book a different free slot with every request. The service
-- "load" (15 minutes) has 20 providers working every hour of every day, so
-- each start takes 20 bookings (round robin) before the next; each wrk
-- thread books its own run of days. Every request comes from its own
-- client address (X-Forwarded-For, trusted from loopback).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end

local n = 0
local base = tonumber(os.getenv("BASE_EPOCH") or "0")
function request()
  n = n + 1
  -- thread k starts 60 days after thread k-1, one day after the base.
  local start = base + 86400 + (id - 1) * 60 * 86400 + math.floor((n - 1) / 20) * 900
  local body = string.format('{"service":"load","start_time":"%s","customer_name":"Load","customer_email":"load@example.test"}',
    os.date("!%Y-%m-%dT%H:%M:%SZ", start))
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", id, math.floor(n / 256) % 256, n % 256)
  return wrk.format(nil, nil, nil, body)
end

local codes = {}
function response(status)
  codes[status] = (codes[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write("status codes of the last thread's responses are counted per thread; see the server's totals below\n")
end
