-- many-flows.lua: N flows (65536 by default) from address and port ranges in
-- shuffled order, spread by RSS over several queues where the port has RSS;
-- rx accounts for each flow apart. Prints the per-flow spread and writes the
-- per-flow table as CSV when csv= is given.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/many-flows.lua [key=value ...]
--
-- `help` lists the arguments. Exit 3 with an INVALID line when gen fell
-- short of its rate or frames were lost on the point-to-point testbed (the
-- receiver did not keep up); 1 when counts contradict themselves or a flow
-- is missing.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, testbed.with{
	{ "flows", 65536, "int", "flows gen sends and rx tracks", min = 1, max = 1048576 },
	{ "count", 2000000, "int", "frames gen sends", min = 1 },
	{ "rate", "max", "any", "gen's rate: pps, 50%, 1Mpps, 5Gbps, max", min = 0 },
	{ "order", "shuffle", "choice", "the flows' order", choices = { "shuffle", "seq" } },
	{ "src_ip", "10.0.0.1-10.0.0.16", "str", "source address range" },
	{ "src_port", "1024-5119", "str", "source port range" },
	{ "csv", nil, "out", "the per-flow table as CSV (not with mode=memif)" },
}, "N shuffled flows, per-flow accounting")
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
	testbed.finish()	-- gen's own verdict says why (exit 3)
	testbed.finish{ bad }
end
local wrong = testbed.impossible(s.tx_packets, r)
if wrong then error("many-flows: counts contradict themselves: " .. wrong, 0) end
print(("many-flows: %d flows, %d frames at %.3f Mpps; received %d, lost %d, PER %s"):format(
	opt.flows, s.tx_packets, s.tx_mpps, r.received, s.tx_packets - r.received,
	testbed.num(r.per, "%.3g")))
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
	if r.received == s.tx_packets then
		assert(doc.flows_seen == math.min(opt.flows, s.tx_packets), "flows missing")
	end
end
local lost = s.tx_packets - r.received
testbed.finish(lost > 0 and { ("lost %d of %d frames on mode=%s: the receiver " ..
                               "did not keep up"):format(lost, s.tx_packets, opt.mode) } or nil)
