-- adapters/wrk/done.lua — wrk's done() hook: writes wrk's own end-of-run
-- numbers as one JSON object to the file named by $LB_WRK_OUT (default
-- wrk-summary.json in the working directory).
--
-- Run:  LB_WRK_OUT=/run/dir/wrk.json wrk -t T -c C -d Ds --latency \
--           -s adapters/wrk/done.lua URL
--
-- Units are wrk's own: latency in microseconds (integers, from wrk's
-- 1-µs-resolution histogram), duration in microseconds, bytes received.
-- errors.status counts responses with status > 399 (wrk does not count 3xx);
-- such responses are also in "requests" and in the latency numbers.
-- Requests that time out (--timeout, default 2 s) are in errors.timeout and
-- not in the latency numbers. When no response completed, the latency
-- fields are null (wrk's own min would be 2^64-1 and its percentiles 0).
-- "requests_per_thread_sec" is wrk's per-thread req/s sampling, not a total.

local out_path = os.getenv("LB_WRK_OUT") or "wrk-summary.json"

-- request: POST (loadbench's profile): $LB_WRK_BODY names the body file.
-- Set as wrk's own scripts/post.lua does: wrk.method, wrk.body and a
-- Content-Type header, read when each thread loads this script.
local body_path = os.getenv("LB_WRK_BODY")
if body_path then
   local f = assert(io.open(body_path, "rb"))
   wrk.method = "POST"
   wrk.body = f:read("*a")
   f:close()
   wrk.headers["Content-Type"] = "application/octet-stream"
end

-- Written whole or not at all, as loadbench writes its own files: to
-- NAME.tmp.PID, then renamed (a kill mid-write leaves no half JSON, and
-- loadbench's clean-up of a dead run removes the NAME.tmp.PID of a writer
-- that is gone). wrk's Lua is LuaJIT: its ffi gives the pid.
local function tmp_path()
   local ok, pid = pcall(function()
      local ffi = require("ffi")
      ffi.cdef("int getpid(void);")
      return ffi.C.getpid()
   end)
   return out_path .. ".tmp." .. (ok and tostring(pid) or "0")
end

local function num(x)
   if x == nil or x ~= x or x == math.huge or x == -math.huge then
      return "null"
   end
   if x == math.floor(x) and math.abs(x) < 2^53 then
      return string.format("%d", x)
   end
   return string.format("%.3f", x)
end

done = function(summary, latency, requests)
   local e = summary.errors
   local has_latency = summary.requests > 0 and latency.max > 0
   local function lat(f)
      if not has_latency then return "null" end
      return num(f())
   end
   local pcts = { 50, 75, 90, 95, 99, 99.9 }
   local p = {}
   for _, q in ipairs(pcts) do
      p[#p + 1] = string.format('"%s": %s', tostring(q),
         lat(function() return latency:percentile(q) end))
   end
   local tmp = tmp_path()
   local f = assert(io.open(tmp, "w"))
   f:write("{\n")
   f:write('  "tool": "wrk",\n')
   f:write('  "format": 1,\n')
   f:write(string.format('  "duration_us": %s,\n', num(summary.duration)))
   f:write(string.format('  "requests": %s,\n', num(summary.requests)))
   f:write(string.format('  "bytes": %s,\n', num(summary.bytes)))
   f:write(string.format(
      '  "errors": {"connect": %s, "read": %s, "write": %s, "status": %s, "timeout": %s},\n',
      num(e.connect), num(e.read), num(e.write), num(e.status), num(e.timeout)))
   f:write('  "latency_us": {\n')
   f:write(string.format('    "min": %s, "max": %s, "mean": %s, "stdev": %s,\n',
      lat(function() return latency.min end), lat(function() return latency.max end),
      lat(function() return latency.mean end), lat(function() return latency.stdev end)))
   f:write('    "percentiles": {' .. table.concat(p, ", ") .. '}\n')
   f:write('  },\n')
   f:write(string.format(
      '  "requests_per_thread_sec": {"min": %s, "max": %s, "mean": %s, "stdev": %s}\n',
      num(requests.min), num(requests.max), num(requests.mean), num(requests.stdev)))
   f:write("}\n")
   f:close()
   assert(os.rename(tmp, out_path))
end
