-- wire-rx.lua: gen and rx sharing one worker lcore on the virtual wire,
-- 64 B, with 16 flows and with 65536 flows in shuffled order, latency on and
-- off, and per-flow latency and jitter (flow-latency): what rx's per-flow
-- accounting costs against the same run's cases.
--
--   build/app/linerate --no-pci --no-huge -m 1024 -l 0-1 -- tools/bench/wire-rx.lua [COUNT]
local linerate = require("linerate")
local count = tonumber(arg[1]) or 5e6
linerate.live(false)
local a, b = assert(linerate.wire())
print(("%8s %7s %12s %10s %12s"):format("flows", "latency", "flow-latency",
                                        "Mpps", "received"))
for _, c in ipairs{ { 16, 1, 0 }, { 16, 0, 0 }, { 16, 1, 1 }, { 65536, 1, 0 },
                    { 65536, 0, 0 }, { 65536, 1, 1 } } do
	local rx = assert(linerate.task{ role = "rx", port = b, latency = c[2],
	                                 flows = 65536, flow_latency = c[3] })
	local gen = assert(linerate.task{ role = "gen", port = a, count = count,
	                                  flows = c[1], src_ip = "10.0.0.1-10.0.0.2",
	                                  order = "shuffle" })
	linerate.start()
	assert(gen:wait(120))
	rx:wait{ idle = 0.2 }
	linerate.stop()
	local r = rx:stats()
	print(("%8d %7d %12d %10.2f %12d"):format(c[1], c[2], c[3], gen:stats().tx_mpps,
	                                          r.received))
	assert(r.received == count and r.lost == 0)
end
