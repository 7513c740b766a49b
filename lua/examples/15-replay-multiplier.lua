-- A replay sped up while it runs: task:set{multiplier = X} on a gen that
-- replays a capture at the capture's own timing (pcap = FILE, no rate =)
-- divides the capture's gaps by X from its next burst on, as tcpreplay's
-- --multiplier would if it could change live; a replay under rate = R
-- takes set{rate = ...} instead. The frames sent before keep their times,
-- the gaps after are the capture's over the new X: none lost, doubled or
-- sent early by the change. Each change is in the task's result,
-- rate_changes: asked and applied times, from_multiplier and multiplier
-- (the capture's mean rate at each: from_rate_pps, rate_pps), the frames
-- sent before it. Refused with an error: rate= on a replay at the capture's
-- timing, multiplier= under rate=, rate = "max", a capture whose frames
-- all have one time (sent unpaced), a task done.
linerate.live(false)
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local cap = dir .. "/paced.pcap"

-- A capture with gaps in it: what a paced gen writes to a pcap port.
local p = assert(linerate.port("net_pcap9,tx_pcap=" .. cap))
local g = assert(linerate.task{ role = "gen", port = p, count = 200, rate = 2000 })
linerate.start()
assert(g:wait(30))
linerate.stop()

local a, b = assert(linerate.wire("ex15"))
local rx = assert(linerate.task{ role = "rx", port = b })
local rp = assert(linerate.task{ role = "gen", port = a, pcap = cap, loops = 0,
                                 stamp = 1 })
linerate.start()
for _, x in ipairs{ 4, 2 } do
	linerate.sleep(0.1)
	assert(rp:set{ multiplier = x })
end
linerate.sleep(0.1)
rp:stop()
assert(rp:wait(5))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.stop()
local s, r = rp:stats(), rx:stats()
for _, c in ipairs(s.rate_changes) do
	print(("x%g -> x%g (%.0f -> %.0f pps) asked at %.4f s, applied %.1f us "
	       .. "later, %d frames before"):format(c.from_multiplier, c.multiplier,
		c.from_rate_pps, c.rate_pps, c.asked_s,
		(c.applied_s - c.asked_s) * 1e6, c.packets_before))
end
print(("replayed %d frames, received %d, lost %d; offered %.3f %% (%d late), verdict %s")
      :format(s.tx_packets, r.received, r.lost, s.offered * 100, s.late_packets, s.verdict))
assert(#s.rate_changes == 2)
assert(r.received == s.tx_packets and r.lost == 0 and r.dup == 0)
print(pcall(rp.set, rp, { multiplier = 8 }))	-- false, "... the task has ended"
os.execute("rm -rf " .. dir)
