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
if s.tx_packets ~= count or r.own_packets ~= s.tx_packets then
	error(string.format("counters disagree: sent %d of %d, received %d",
	                    s.tx_packets, count, r.own_packets))
end
print("quickstart: OK")
