-- wrk script: OwnTracks single-fix posts from many devices (issue 12's benchmark with a client that costs little).
-- TOKENS_FILE holds one device token per line (ingest_throughput.py --wrk writes it); each request posts the next
-- device's next fix, a new second each time, so every post is a new fix stored durably.
local tokens = {}
local counter = 0
local step = tonumber(os.getenv("THREADS") or "2")
local base = os.time() - 2 * 86400

function init(args)
  for line in io.lines(os.getenv("TOKENS_FILE")) do
    if #line > 0 then tokens[#tokens + 1] = "Basic " .. line end
  end
  -- Thread k of T takes the counters k, k+T, k+2T…: no two requests post the same device's same second.
  counter = tonumber(wrk.thread:get("offset") or 0)
end

function setup(thread)
  thread_count = (thread_count or 0) + 1
  thread:set("offset", thread_count - 1)
end

function request()
  counter = counter + step
  local token = tokens[(counter % #tokens) + 1]
  local n = math.floor(counter / #tokens)
  -- Each device rides north at about 1.1 m/s, one fix a second.
  local body = string.format('{"_type":"location","lat":%.6f,"lon":%.6f,"tst":%d,"batt":80,"acc":5}',
    46.5 + n * 1e-5, 6.6 + (counter % #tokens) * 1e-4, base + n)
  return wrk.format("POST", "/ingest/owntracks", {["Authorization"] = token, ["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status ~= 200 then
    print("unexpected status " .. status .. ": " .. body)
  end
end
