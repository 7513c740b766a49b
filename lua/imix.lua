-- imix.lua: IMIX (64/594/1518 B at 7:4:1, or any weighted list) from gen to
-- rx on the testbed, checked: every frame arrives, sizes in their weights.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/imix.lua [key=value ...]
--
--   mix=imix | 64:7,594:4,1518:1 | 64-1518   (imix)
--   rate=50%  count=1000000  flows=64  mode=wire|memif|ports (testbed.lua)
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.args(arg, { mode = "wire", mix = "imix", rate = "50%",
                                count = 1000000, flows = 64 })
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
	error("imix: INVALID: " .. bad, 0)
end
local mean = s.tx_bytes / s.tx_packets + 4
print(("imix: %s, %d frames, mean %.1f B, %.3f Mpps, %.3f Gb/s L1"):format(
	opt.mix, s.tx_packets, mean, s.tx_mpps, s.tx_gbps_l1))
print(("imix: received %d, lost %d, PER %.3g, dup %d, out of order %d, p99 %.1f us"):format(
	r.received, s.tx_packets - r.received, r.per, r.dup, r.out_of_order,
	(r.latency and r.latency.p99_ns or 0) / 1e3))
if opt.mix == "imix" then
	-- 7:4:1 of 64, 594 and 1518 B: 361.83 B on average.
	assert(math.abs(mean - (7 * 64 + 4 * 594 + 1518) / 12) < 0.5,
	       "mean frame size is not IMIX's")
end
assert(r.received == s.tx_packets, "frames lost")
