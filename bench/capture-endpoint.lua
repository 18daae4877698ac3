-- wrk script for bench/capture-endpoint.ts: POST a capture request with a Bearer token and
-- count answers by status class, so the run can prove "zero 5xx" rather than assume it.
-- The body is static (a per-request Lua body would cost the load generator more than the server):
-- the same request again and again is queued once and then deduped (202), and against an org
-- that already used its hourly quota it is refused (429).
local token = os.getenv("TOKEN")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"workload":"checkout","version":"' .. (os.getenv("VERSION") or "1.0.0") .. '","env":"bench"}'
if token then wrk.headers["Authorization"] = "Bearer " .. token end

local threads = {}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

s2, s4, s429, s5, other = 0, 0, 0, 0, 0

function response(status, headers, body)
  if status == 429 then s429 = s429 + 1
  elseif status >= 500 then s5 = s5 + 1
  elseif status >= 400 then s4 = s4 + 1
  elseif status >= 200 and status < 300 then s2 = s2 + 1
  else other = other + 1 end
end

function done(summary, latency, requests)
  local t = { s2 = 0, s4 = 0, s429 = 0, s5 = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (thread:get(k) or 0) end
  end
  io.write(string.format('STATUS {"2xx":%d,"4xx_other":%d,"429":%d,"5xx":%d,"other":%d,"socket_errors":%d}\n',
    t.s2, t.s4, t.s429, t.s5, t.other,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
