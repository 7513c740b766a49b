-- rtt-reflect.lua: round trips through the reflect role. rtt sends as gen
-- does and receives what the reflector sends back on the same port; the
-- result document has them under "rtt" (and "reflect" when it ran here).
--
--   linerate --no-pci --no-huge -m 512 -l 0-1 -- lua/rtt-reflect.lua \
--       count=100000 rate=100000 add_delay="delay 2ms" stamp=1
--
-- `help` lists the arguments (key=value).
local testbed = require("testbed")
local opt = testbed.params(arg, {
	{ "port", nil, "str", "rtt on this port, the reflector another process " ..
	  "(net_memif0,role=client,...); default: the virtual wire, the " ..
	  "reflector on its other end, here" },
	{ "count", 10000, "int", "frames rtt sends", min = 1 },
	{ "rate", 100000, "num", "its rate, pps", above = 0 },
	{ "size", 128, "int", "frame size", min = 64, max = 9018 },
	{ "flows", 4, "int", "flows", min = 1, max = 65536 },
	{ "add_delay", nil, "str", "the reflector's --add-delay (wire only)" },
	{ "stamp", 1, "int", "the reflector stamps (wire only): 0 or 1", min = 0, max = 1 },
	{ "others", "drop", "choice", "the reflector's --others (wire only)",
	  choices = { "reflect", "drop" } },
	{ "pair", "rtt,reflect", "str", "device names for samples=" },
	{ "samples", nil, "out", "every RTT as a line A,B,rtt_ns" },
	{ "linger", 2, "num", "seconds to wait for the last frames", min = 0 },
	{ "json", nil, "out", "the result document" },
}, "round trips through the reflect role")
linerate.live(false)

local w = linerate.workers()
local port, refl
if opt.port then
	port = assert(linerate.port(opt.port, { link_timeout = 30 }))
else
	local a, b = assert(linerate.wire("rtt_refl"))
	port = a
	local rc = { role = "reflect", port = b, stamp = opt.stamp,
	             others = opt.others, lcore = w[2] or w[1] }
	-- The wheel holds what rtt's rate brings in the delay (without a
	-- rate the reflector sizes for the port's line rate, or refuses).
	if opt.add_delay then
		rc.add_delay = opt.add_delay
		rc.rate = tostring(opt.rate)
	end
	refl = assert(linerate.task(rc))
end
local plan = { role = "rtt", port = port, lcores = { w[1] },
               count = opt.count, rate = tostring(opt.rate), size = opt.size,
               flows = opt.flows, pair = opt.pair }
if opt.samples then plan.samples = opt.samples end
local tasks = assert(linerate.plan(plan))
linerate.start()
-- gen's tasks end at their count, rx's when every frame came back; a lost
-- frame leaves rx waiting: linger= after gen.
local deadline = linerate.now() + opt.count / opt.rate + opt.linger + 5
for _, t in ipairs(tasks) do
	t:wait(math.max(0.1, deadline - linerate.now()))
end
linerate.stop()
local r = linerate.results()
local rtt = r.rtt
if rtt.rtt == nil then
	-- Nothing came back: no RTT to print (rtt's verdict says why).
	print(("rtt-reflect: sent %d received %d lost %d in flight %d: no RTT (%s)")
	      :format(rtt.sent, rtt.received, rtt.lost, rtt.in_flight,
	              rtt.verdict_why or rtt.verdict))
else
	print(("rtt-reflect: sent %d received %d lost %d, rtt min %.3f p50 %.3f " ..
	       "p99.9 %.3f us%s"):format(rtt.sent, rtt.received, rtt.lost,
		rtt.rtt.min_ns / 1e3, rtt.rtt.p50_ns / 1e3, rtt.rtt.p999_ns / 1e3,
		rtt.residence and (", residence p50 %.3f us"):format(
			rtt.residence.p50_ns / 1e3) or ""))
end
if refl then
	print(("rtt-reflect: reflector in %d reflected %d out %d"):format(
		r.reflect["in"], r.reflect.reflected, r.reflect.out))
end
if opt.json then assert(linerate.write_json(opt.json)) end
-- A generator that fell short, a reflector or rtt whose counts cannot
-- stand (their verdicts): said, and the run fails.
testbed.finish()
