-- delay-chain.lua: gen -> delay -> rx on two virtual wires in one process,
-- the delay role between them; the result document to json=FILE.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/delay-chain.lua \
--       netem="delay 10ms 1ms distribution normal" count=100000 rate=1Mpps
--
-- Arguments (key=value):
--   netem=SPEC        the forward impairments, tc-netem(8)'s words (none)
--   netem_back=SPEC   the backward ones (none)
--   count=N           frames gen sends (100000)
--   rate=R            gen's rate (1Mpps)
--   size=S            gen's frame sizes (64)
--   flows=N           gen's flows (16)
--   linger=S          seconds rx waits for the last frame (1)
--   buffer=BYTES      the delay role's storage per direction (0: BDP)
--   reverse=1         gen sends from the peer's side (netem_back applies)
--   sink=null         the delay sends to net_null0: no rx (its own cost)
--   queues=N          N queue pairs: gen, delay and rx laid over them by
--                     linerate.plan{} (a task per queue each)
--   json=FILE         write the result document there
--   samples=FILE      rx writes its latency samples there, one ns a line
--   dist_out=FILE     rx writes them as a netem distribution table
local testbed = require("testbed")
local opt = testbed.args(arg, { netem = "", netem_back = "", count = 100000,
                                rate = "1Mpps", size = 64, flows = 16,
                                linger = 1, buffer = 0, queues = 1 })
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
if opt.reverse == 1 then g, r = r, g end
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
