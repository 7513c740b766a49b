-- many-flows.lua: N flows (65536 by default) from address and port ranges in
-- shuffled order, spread by RSS over several queues where the port has RSS;
-- rx accounts for each flow apart. Prints the per-flow spread and writes the
-- per-flow table as CSV when csv= is given.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/many-flows.lua [key=value ...]
--
--   flows=65536  count=2000000  rate=max  order=shuffle  csv=FILE
--   src_ip=10.0.0.1-10.0.0.16  src_port=1024-5119  mode=wire|memif|ports
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.args(arg, { mode = "wire", flows = 65536, count = 2000000,
                                rate = "max", order = "shuffle",
                                src_ip = "10.0.0.1-10.0.0.16",
                                src_port = "1024-5119" })
linerate.live(false)
local tb <close> = testbed.open(opt)
local rx = tb:rx{ flows = opt.flows }
local gen = assert(linerate.task{ role = "gen", port = tb.tx, flows = opt.flows,
                                  count = opt.count, rate = opt.rate,
                                  order = opt.order, src_ip = opt.src_ip,
                                  src_port = opt.src_port })
linerate.start()
assert(gen:wait(600))
local r = tb:rx_done(rx, gen:stats().tx_packets)
tb:close()
local s = gen:stats()
-- A gen short of its rate or stopped makes no per-flow result.
local bad = testbed.invalid(s)
if bad then
	print("many-flows: INVALID: " .. bad)
	error("many-flows: INVALID: " .. bad, 0)
end
print(("many-flows: %d flows, %d frames at %.3f Mpps; received %d, lost %d, PER %.3g"):format(
	opt.flows, s.tx_packets, s.tx_mpps, r.received, s.tx_packets - r.received, r.per))
if opt.mode ~= "memif" then
	local doc = linerate.results().rx
	local lo, hi = math.huge, 0
	for _, f in ipairs(doc.flows) do
		lo = math.min(lo, f.packets)
		hi = math.max(hi, f.packets)
	end
	print(("many-flows: %d flows seen, packets per flow %d..%d"):format(
		doc.flows_seen, lo, hi))
	if opt.csv then assert(linerate.write_csv(opt.csv)) end
	assert(doc.flows_seen == math.min(opt.flows, s.tx_packets), "flows missing")
end
assert(r.received == s.tx_packets, "frames lost")
