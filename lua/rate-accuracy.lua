-- rate-accuracy.lua: requested against achieved rate, gen alone on a port.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/rate-accuracy.lua [key=value ...]
--
-- `help` lists the arguments. Prints one line per point and the worst
-- error; exit 1 when the worst error is above max_err= percent (0.1), 3
-- with an INVALID line when a point's lcore did not keep the schedule.
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

local opt = testbed.params(arg, {
	{ "port", "net_null0", "str", "where to send (a sink: net_null, or a NIC)" },
	{ "sizes", "64,1518,9018", "sizes", "frame sizes", min = 64, max = 9018 },
	{ "pcts", "10,50,100", "nums", "percent of the link speed", above = 0, max = 100 },
	{ "speed", "10G", "bps", "the link speed (10G, 40G, 100G)", min = 1e6 },
	{ "seconds", 2, "num", "per point", above = 0 },
	{ "burst", 32, "int", "gen's burst option", min = 1, max = 512 },
	{ "max_err", 0.1, "num", "the worst error allowed, in %", min = 0 },
}, "requested against achieved rate, gen alone on a port")
local speed = opt.speed
linerate.live(false)
local port = assert(linerate.port(opt.port, { mtu = 9000, speed = opt.speed }))
print(("%6s %5s %14s %14s %10s %9s %9s %8s"):format("frame", "%", "requested pps",
      "achieved pps", "packets", "error %", "offered %", "late"))
local worst, invalid = 0, 0
for _, size in ipairs(opt.sizes) do
	for _, pct in ipairs(opt.pcts) do
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
-- A point above the limit is a finding about the pacing (exit 1); a point
-- whose lcore did not keep the schedule is the machine's (exit 3).
if worst > opt.max_err then
	error(("rate-accuracy: worst error %.4f %% above max_err=%g %%"):format(worst,
	      opt.max_err), 0)
end
testbed.finish(invalid > 0 and { ("%d points: rate short, the lcore did not keep " ..
                                  "the schedule"):format(invalid) } or nil)
