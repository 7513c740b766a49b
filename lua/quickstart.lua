-- quickstart.lua: move packets across the virtual wire and check both ends.
--
--   linerate --no-pci --no-huge -m 512 -l 0-1 -- lua/quickstart.lua [COUNT] [SIZE]
--
-- The virtual wire is two ports inside this process whose queues are rings
-- crossed back to back: what port a sends, port b receives. No NIC needed.
local linerate = require("linerate")

local count = tonumber(arg[1]) or 1000000	-- packets to send
local size = tonumber(arg[2]) or 64		-- frame bytes with FCS

local a, b = assert(linerate.wire())
print(string.format("wire: %s -> %s", a.name, b.name))

-- Both tasks run on the first worker lcore: with two cores there is one.
local rx = assert(linerate.task{ role = "rx", port = b })
local gen = assert(linerate.task{ role = "gen", port = a, size = size,
                                  count = count, flows = 16 })
linerate.start()
assert(gen:wait(60), "gen did not finish in 60 s")
rx:wait{ idle = 0.2 }	-- until nothing has arrived for 200 ms
linerate.stop()

local s, r = gen:stats(), rx:stats()
print(string.format("sent %d, received %d (%d linerate frames, %d foreign), %.2f Mpps",
                    s.tx_packets, r.rx_packets, r.own_packets,
                    r.foreign_packets, s.tx_mpps))
print(string.format("16 flows: %d received once, %d lost (PER %g), %d duplicates, "
                    .. "%d out of order; latency p50 %.1f us, p99 %.1f us",
                    r.received, r.lost, r.per, r.dup, r.out_of_order,
                    r.latency.p50_ns / 1e3, r.latency.p99_ns / 1e3))
if s.tx_packets ~= count or r.received ~= s.tx_packets or r.lost ~= 0 then
	error(string.format("counters disagree: sent %d of %d, received %d, lost %d",
	                    s.tx_packets, count, r.received, r.lost))
end
print("quickstart: OK")
