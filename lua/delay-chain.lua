-- delay-chain.lua: gen -> delay -> rx on two virtual wires in one process,
-- the delay role between them; the result document to json=FILE.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/delay-chain.lua \
--       netem="delay 10ms 1ms distribution normal" count=100000 rate=1Mpps
--
-- `help` lists the arguments (key=value).
local testbed = require("testbed")
local opt = testbed.params(arg, {
	{ "netem", "", "str", "the forward impairments, tc-netem(8)'s words" },
	{ "netem_back", "", "str", "the backward ones" },
	{ "count", 100000, "int", "frames gen sends", min = 1 },
	{ "rate", "1Mpps", "any", "gen's rate: pps, 50%, 1Mpps, 5Gbps, max", min = 0 },
	{ "size", 64, "any", "gen's frame sizes (64, imix, 64-1518)", min = 64, max = 9018 },
	{ "flows", 16, "int", "gen's flows", min = 1, max = 65536 },
	{ "linger", 1, "num", "seconds rx waits for the last frame", min = 0 },
	{ "buffer", 0, "int", "the delay role's storage per direction, bytes (0: BDP)", min = 0 },
	{ "reverse", false, "bool", "gen sends from the peer's side (netem_back applies)" },
	{ "sink", nil, "choice", "null: the delay sends to net_null0, no rx (its own cost)",
	  choices = { "null" } },
	{ "queues", 1, "int", "queue pairs: gen, delay and rx laid over them by " ..
	  "linerate.plan{}", min = 1, max = 16 },
	{ "json", nil, "out", "the result document" },
	{ "samples", nil, "out", "rx's latency samples, one ns a line" },
	{ "dist_out", nil, "out", "rx's samples as a netem distribution table" },
}, "gen -> delay -> rx on two virtual wires")
linerate.live(false)

if opt.queues > 1 then
	-- Queue pairs: every role laid over the queues as --role does it.
	local g, a = assert(linerate.wire("dlq_in", { queues = opt.queues }))
	local b, r = assert(linerate.wire("dlq_out", { queues = opt.queues }))
	local rxs = assert(linerate.plan{ role = "rx", port = r, flows = opt.flows })
	local ds = assert(linerate.plan{ role = "delay", port = a, peer = b,
	                                 netem = opt.netem, buffer = opt.buffer })
	local gens = assert(linerate.plan{ role = "gen", port = g, count = opt.count,
	                                   rate = opt.rate, size = opt.size,
	                                   flows = opt.flows })
	assert(#ds == opt.queues, "a delay task per queue pair")
	linerate.start()
	for _, t in ipairs(gens) do assert(t:wait(300)) end
	for _, t in ipairs(rxs) do t:wait{ idle = opt.linger, timeout = 300 } end
	linerate.stop()
	if opt.json then assert(linerate.write_json(opt.json)) end
	return
end
local g, a = assert(linerate.wire("dlc_in"))
local b, r
if opt.sink == "null" then
	-- The delay's frames leave by a null port: no rx, nothing crosses
	-- back to gen's CPU (tools/bench/delay.sh: the delay's own cost).
	b = assert(linerate.port("net_null0"))
else
	b, r = assert(linerate.wire("dlc_out"))
end
-- reverse=1: gen sends into the peer's side, so that its frames take
-- netem_back; rx receives behind the delay's port.
if opt.reverse then g, r = r, g end
-- With two worker lcores or more, the delay role has one to itself and gen
-- and rx share the first (tools/bench/delay.sh maps them to two CPUs).
local w = linerate.workers()
local delay_lcore = w[2] or w[1]
local rx_conf = { role = "rx", port = r, flows = opt.flows, lcore = w[1] }
if opt.samples then rx_conf.samples_out = opt.samples end
if opt.dist_out then rx_conf.dist_out = opt.dist_out end
local rx = r and assert(linerate.task(rx_conf))
local delay = assert(linerate.task{ role = "delay", port = a, peer = b,
                                    lcore = delay_lcore,
                                    netem = opt.netem,
                                    netem_back = opt.netem_back,
                                    buffer = opt.buffer })
local gen = assert(linerate.task{ role = "gen", port = g, count = opt.count,
                                  lcore = w[1],
                                  rate = opt.rate, size = opt.size,
                                  flows = opt.flows })
linerate.start()
assert(gen:wait(300))
if rx then
	rx:wait{ idle = opt.linger, timeout = 300 }
else
	-- Until the delay has sent what it holds (or linger= more seconds).
	local until_ = linerate.now() + opt.linger + 1
	repeat linerate.sleep(0.05)
	until linerate.results().delay.forward.held == 0 or linerate.now() > until_
end
linerate.stop()
local res = linerate.results()
local f = res.delay.forward
local rxr = res.rx or { received = 0, lost = 0, latency = {} }
print(("delay-chain: sent %d, delay in %d out %d lost %d dup %d held %d, " ..
       "rx %d lost %d, latency p50 %.3f ms"):format(
	gen:stats().tx_packets, f["in"], f.out, f.lost, f.duplicated,
	f.held, rxr.received, rxr.lost, (rxr.latency.p50_ns or 0) / 1e6))
if opt.json then assert(linerate.write_json(opt.json)) end
-- The tasks' verdicts: a generator short of its rate, a late box, a
-- failed task said, and the run fails.
testbed.finish()
