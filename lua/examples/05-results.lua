-- Results and small helpers.
--   linerate.results()         the result document as a Lua table
--   linerate.write_json(path)  the same document as JSON ("-": stdout)
--   linerate.live(on)          the per-second live line on or off
--   linerate.workers()         worker lcore ids; linerate.now() seconds
--   linerate.tsc_hz()          TSC frequency;   linerate.version
--   arg[0], arg[1..]           the script and its arguments (also as ...)
linerate.live(false)
print("linerate", linerate.version, "workers", table.concat(linerate.workers(), ","),
      "tsc", linerate.tsc_hz(), "args", #arg)
local t0 = linerate.now()
local p = assert(linerate.port("net_null0"))
assert(linerate.task{ role = "gen", port = p, count = 50000 })
linerate.start()
assert(linerate.wait(10))
local r = linerate.results()
print(("%d tasks, %d packets sent in %.3f s"):format(#r.tasks, r.totals.tx_packets,
                                                   linerate.now() - t0))
for _, port in ipairs(r.ports) do print(port.name, port.opackets) end
local path = os.tmpname()
assert(linerate.write_json(path))
print("wrote", path)
os.remove(path)
