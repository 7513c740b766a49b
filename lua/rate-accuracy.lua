-- rate-accuracy.lua: requested against achieved rate, gen alone on a port.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/rate-accuracy.lua [key=value ...]
--
--   port=net_null0     where to send (a sink: net_null, or a NIC)
--   sizes=64,1518,9018 frame sizes
--   pcts=10,50,100     percent of the link speed
--   speed=10G          the link speed (10G, 40G, 100G)
--   seconds=2          per point
--   burst=32           gen's burst option
-- Prints one line per point and the worst error; exits non-zero when the
-- worst error is above max_err= percent (0.1).
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.args(arg, { port = "net_null0", sizes = "64,1518,9018",
                                pcts = "10,50,100", speed = "10G", seconds = 2,
                                burst = 32, max_err = 0.1 })
local function list(s)
	local t = {}
	for v in tostring(s):gmatch("[%d.]+") do t[#t + 1] = tonumber(v) end
	return t
end
local speed = tonumber((tostring(opt.speed):gsub("G$", "e9"):gsub("M$", "e6")))
linerate.live(false)
local port = assert(linerate.port(opt.port, { mtu = 9000, speed = opt.speed }))
print(("%6s %5s %14s %14s %10s %9s"):format("frame", "%", "requested pps", "achieved pps",
                                           "packets", "error %"))
local worst = 0
for _, size in ipairs(list(opt.sizes)) do
	for _, pct in ipairs(list(opt.pcts)) do
		local want = linerate.line_rate(speed, size) * pct / 100
		local gen = assert(linerate.task{ role = "gen", port = port, size = size,
		                                  rate = pct .. "%", burst = opt.burst,
		                                  duration = opt.seconds })
		linerate.start()
		assert(gen:wait(opt.seconds + 10))
		linerate.stop()
		local s = gen:stats()
		local got = s.tx_packets / s.duration_s
		local err = (got - want) / want * 100
		worst = math.max(worst, math.abs(err))
		print(("%6d %5g %14.1f %14.1f %10d %+9.4f"):format(size, pct, want, got,
		                                                 s.tx_packets, err))
	end
end
print(("rate-accuracy: worst error %.4f %% (limit %g %%)"):format(worst, opt.max_err))
if worst > opt.max_err then os.exit(1) end
