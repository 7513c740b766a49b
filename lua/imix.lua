-- imix.lua: IMIX (64/594/1518 B at 7:4:1, or any weighted list) from gen to
-- rx on the testbed, checked: every frame arrives, sizes in their weights.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/imix.lua [key=value ...]
--
-- `help` lists the arguments. Exit 3 with an INVALID line when the
-- tester, not the link, set the result: gen fell short of its rate, or
-- frames were lost on a point-to-point testbed (the receiver did not keep
-- up); 1 when the counts contradict themselves or the sizes are not the mix.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, testbed.with{
	{ "mix", "imix", "str", "gen's sizes: imix, 64:7,594:4,1518:1, 64-1518" },
	{ "rate", "50%", "any", "gen's rate: pps, 50%, 1Mpps, 5Gbps, max", min = 0 },
	{ "count", 1000000, "int", "frames gen sends", min = 1 },
	{ "flows", 64, "int", "flows", min = 1, max = 65536 },
}, "IMIX through the testbed, every frame checked")
linerate.live(false)
local tb <close> = testbed.open(opt)
local rx = tb:rx{ flows = opt.flows }
local gen = assert(linerate.task{ role = "gen", port = tb.tx, size = opt.mix,
                                  rate = opt.rate, count = opt.count,
                                  flows = opt.flows })
linerate.start()
assert(gen:wait(600))
local r = tb:rx_done(rx, gen:stats().tx_packets)
tb:close()
local s = gen:stats()
-- A gen short of its rate or stopped makes no IMIX result.
local bad = testbed.invalid(s)
if bad then
	print("imix: INVALID: " .. bad)
	testbed.finish()	-- gen's own verdict says why (exit 3)
	testbed.finish{ bad }
end
local wrong = testbed.impossible(s.tx_packets, r)
if wrong then error("imix: counts contradict themselves: " .. wrong, 0) end
local mean = s.tx_bytes / s.tx_packets + 4
print(("imix: %s, %d frames, mean %.1f B, %.3f Mpps, %.3f Gb/s L1"):format(
	opt.mix, s.tx_packets, mean, s.tx_mpps, s.tx_gbps_l1))
print(("imix: received %d, lost %d, PER %s, p99 %s"):format(
	r.received, s.tx_packets - r.received, testbed.num(r.per, "%.3g"),
	testbed.num(r.latency and r.latency.p99_ns and r.latency.p99_ns / 1e3, "%.1f us")))
if opt.mix == "imix" then
	-- 7:4:1 of 64, 594 and 1518 B: 361.83 B on average.
	assert(math.abs(mean - (7 * 64 + 4 * 594 + 1518) / 12) < 0.5,
	       "mean frame size is not IMIX's")
end
local lost = s.tx_packets - r.received
testbed.finish(lost > 0 and { ("lost %d of %d frames on mode=%s: the receiver " ..
                               "did not keep up"):format(lost, s.tx_packets, opt.mode) } or nil)
