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
-- worst error is above max_err= percent (0.1), or when a point is INVALID.
--
-- achieved is gen's achieved_pps: packets over its sending time (from its
-- first packet's slot to the end of its last, or to its end if later), set
-- against the rate computed here from the line rate: the check of gen's
-- schedule arithmetic. A point whose gen did not keep its schedule (its
-- lcore taken away by the machine for longer than the catch-up bound:
-- offered below the tolerance, packets late) measures the machine, not the
-- pacing: it is marked INVALID and left out of the worst error.
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
print(("%6s %5s %14s %14s %10s %9s %9s %8s"):format("frame", "%", "requested pps",
      "achieved pps", "packets", "error %", "offered %", "late"))
local worst, invalid = 0, 0
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
		local got = s.achieved_pps
		local err = (got - want) / want * 100
		local bad = testbed.invalid(s)
		if bad then
			invalid = invalid + 1
		else
			worst = math.max(worst, math.abs(err))
		end
		print(("%6d %5g %14.1f %14.1f %10d %+9.4f %9.4f %8d%s"):format(size, pct,
		      want, got, s.tx_packets, err, s.offered * 100, s.late_packets,
		      bad and "  INVALID" or ""))
	end
end
print(("rate-accuracy: worst error %.4f %% (limit %g %%)%s"):format(worst, opt.max_err,
      invalid > 0 and (", %d points INVALID (rate short: the lcore did not "
                       .. "keep the schedule)"):format(invalid) or ""))
if worst > opt.max_err or invalid > 0 then os.exit(1) end
