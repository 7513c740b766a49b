-- quickstart.lua: move packets across the virtual wire and check both ends.
--
--   linerate --no-pci --no-huge -m 512 -l 0-1 -- lua/quickstart.lua [key=value ...]
--
-- The virtual wire is two ports inside this process whose queues are rings
-- crossed back to back: what port a sends, port b receives. No NIC needed.
-- `help` lists the arguments (count=, size=, flows=); a bad or unknown one
-- is one line and exit 2. Exit 0 when every frame sent arrived once; a
-- task whose verdict is not ok, or gen stopped short of its count, or
-- frames lost between two rings: an INVALID line and exit 3 (or the
-- task's exit); counts that contradict themselves (more received than
-- sent, duplicates): an error, exit 1.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, {
	{ "count", 1000000, "int", "packets gen sends", min = 1 },
	-- linerate.wire's ports keep their default MTU (1500 B of IP).
	{ "size", 64, "int", "frame bytes with Ethernet header and FCS",
	  min = 64, max = 1518 },
	{ "flows", 16, "int", "flows gen spreads the packets over; rx accounts each",
	  min = 1, max = 65536 },
}, "move packets across the virtual wire and check both ends (key=value)")

local a, b = assert(linerate.wire())
print(string.format("wire: %s -> %s", a.name, b.name))

-- Both tasks run on the first worker lcore: with two cores there is one.
local rx = assert(linerate.task{ role = "rx", port = b, flows = opt.flows })
local gen = assert(linerate.task{ role = "gen", port = a, size = opt.size,
                                  count = opt.count, flows = opt.flows })
linerate.start()
assert(gen:wait(60), "gen did not finish in 60 s")
rx:wait{ idle = 0.2 }	-- until nothing has arrived for 200 ms
linerate.stop()

local s, r = gen:stats(), rx:stats()
local lat = r.latency or {}
print(string.format("sent %d, received %d (%d linerate frames, %d foreign), %.2f Mpps",
                    s.tx_packets, r.rx_packets, r.own_packets,
                    r.foreign_packets, s.tx_mpps))
print(string.format("%d flows: %d received once, %d lost (PER %s), %d duplicates, "
                    .. "%d out of order; latency p50 %s, p99 %s",
                    opt.flows, r.received, r.lost, testbed.num(r.per, "%g"),
                    r.dup, r.out_of_order,
                    testbed.num(lat.p50_ns and lat.p50_ns / 1e3, "%.1f us"),
                    testbed.num(lat.p99_ns and lat.p99_ns / 1e3, "%.1f us")))
testbed.finish()	-- a task's verdict: said, with its exit
local wrong = testbed.impossible(s.tx_packets, r)
if wrong then
	error("quickstart: counts contradict themselves: " .. wrong, 0)
end
local problems = {}
if s.tx_packets ~= opt.count then
	problems[#problems + 1] = ("gen sent %d of %d packets"):format(s.tx_packets,
	                                                             opt.count)
end
if r.received ~= s.tx_packets or r.lost ~= 0 then
	problems[#problems + 1] = ("received %d of %d sent, lost %d on the " ..
	                           "virtual wire"):format(r.received, s.tx_packets,
	                                                  r.lost)
end
testbed.finish(problems)
print("quickstart: OK")
